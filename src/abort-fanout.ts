/** What a signal's abort reaches: an AbortController, or anything called off the same way. */
export interface Abortable {
  abort(reason: unknown): void;
}

/** What follows each signal: reached through one listener of the signal's own. */
const followers = new WeakMap<AbortSignal, Set<Abortable>>();

/**
 * Aborts `target` with the reason when `signal` aborts (at once when it already has), through one listener on the
 * signal for every follower, not one each: EventTarget is slow to add to and remove from (a request's tries), and
 * past ten listeners Node prints "MaxListenersExceededWarning: Possible EventTarget memory leak detected" (apply
 * waits for up to --max-generating generations at once, each with its cut). `unfollowAbort` takes it off.
 */
export function followAbort(signal: AbortSignal, target: Abortable): void {
  if (signal.aborted) {
    target.abort(signal.reason);
    return;
  }
  let set = followers.get(signal);
  if (set === undefined) {
    const fresh = new Set<Abortable>();
    set = fresh;
    followers.set(signal, fresh);
    signal.addEventListener(
      'abort',
      () => {
        for (const t of [...fresh]) t.abort(signal.reason);
        fresh.clear();
      },
      { once: true },
    );
  }
  set.add(target);
}

/** `target` no longer follows `signal`. */
export function unfollowAbort(signal: AbortSignal, target: Abortable): void {
  followers.get(signal)?.delete(target);
}
