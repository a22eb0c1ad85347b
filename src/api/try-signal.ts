import { followAbort, unfollowAbort } from '../abort-fanout.js';

/**
 * The deadline of one try of a request, together with the caller's signal (Ctrl-C): what calls the try off, and
 * why. The http path registers plain callbacks (`onAbort`); an AbortSignal is made only for an API that needs one
 * (fetch, through a proxy).
 */
export interface TrySignal {
  /** Whether the try is called off: the deadline passed or the caller's signal aborted. */
  readonly aborted: boolean;
  /** Why: a TimeoutError (as `AbortSignal.timeout` gives) or the caller's reason; undefined while not aborted. */
  readonly reason: unknown;
  /** Whether the deadline (not the caller's signal) called it off. */
  timedOut(): boolean;
  /** Runs `listener` once when the try is called off (at once when it already is); the returned function removes it. */
  onAbort(listener: (reason: unknown) => void): () => void;
  /** The same as an AbortSignal, for APIs that take one; made on first use. */
  readonly signal: AbortSignal;
  /** The try is over: its timer goes, and the caller's signal no longer reaches it. */
  done(): void;
}

/**
 * One timer per try and no AbortController unless `signal` is asked for. Per call, an AbortController, its signal's
 * listeners (the caller's signal, http.request's `signal` option, the body reader) and their removal cost more CPU
 * than the rest of the transport's own work in a profile of 1,000 creates (bench/scale.js): EventTarget is slow to
 * add to and remove from. The caller's signal gets one listener for all the tries it covers (abort-fanout.ts).
 */
export function trySignal(timeoutMs: number, outer?: AbortSignal): TrySignal {
  return new Try(timeoutMs, outer);
}

class Try implements TrySignal {
  aborted = false;
  reason: unknown = undefined;
  private expired = false;
  private listeners: ((reason: unknown) => void)[] | undefined;
  private controller: AbortController | undefined;
  private readonly timer: NodeJS.Timeout;
  private finished = false;

  constructor(
    timeoutMs: number,
    private readonly outer: AbortSignal | undefined,
  ) {
    this.timer = setTimeout(() => {
      this.expired = true;
      this.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    }, timeoutMs);
    // As AbortSignal.timeout: the deadline alone does not keep the process alive.
    this.timer.unref();
    if (outer !== undefined) followAbort(outer, this);
  }

  timedOut(): boolean {
    return this.expired;
  }

  abort(reason: unknown): void {
    if (this.aborted || this.finished) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners ?? [];
    this.listeners = undefined;
    this.controller?.abort(reason);
    for (const listener of listeners) listener(reason);
  }

  onAbort(listener: (reason: unknown) => void): () => void {
    if (this.aborted) {
      listener(this.reason);
      return () => undefined;
    }
    (this.listeners ??= []).push(listener);
    return () => {
      const at = this.listeners?.indexOf(listener) ?? -1;
      if (at >= 0) this.listeners?.splice(at, 1);
    };
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  done(): void {
    this.finished = true;
    this.listeners = undefined;
    clearTimeout(this.timer);
    if (this.outer !== undefined) unfollowAbort(this.outer, this);
  }
}
