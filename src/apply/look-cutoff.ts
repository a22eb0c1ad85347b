import { followAbort, unfollowAbort } from '../abort-fanout.js';
import { formatTimeout } from '../api/api-error.js';
import { DEFAULT_TIMEOUT_MS } from '../api/transport-contract.js';
import { MAX_TIMER_MS } from '../duration.js';
import { realAlarm, sleepAlarm } from './generation-poller.js';
import type { Alarm } from './generation-poller.js';

/** What a look bounded by a LookCutoff rejects with once the cut passed first. */
export class LookGivenUp extends Error {
  constructor() {
    super('the look was given up at the end of its wait');
    this.name = 'LookGivenUp';
  }
}

/**
 * When a wait gives up the look it has in flight. Its deadline is checked between looks only, and one look (a
 * read through the transport: up to four tries of `--timeout` and their backoff) that starts just before it
 * against a slow or hanging service ran minutes past it, and so did a CI job that relied on `--wait-timeout`.
 * The cut comes one request try after the deadline (the caller passes how far off it is): the look made at the
 * deadline still gets one try's time, a try that fails at once still gets a retry, and the wait ends within
 * `--wait-timeout` plus `--timeout`, both settings the user chose.
 *
 * `signal` aborts at the cut and on `interrupt` (Ctrl-C), so a read takes one signal, as before it took the
 * interrupt; `passed` tells the cut from Ctrl-C. Timed by `alarm`: a real timer, or an injected sleep, which is
 * what a fake clock moves (a real timer would never fire in a fake-clock test, or fire in real time).
 * `cancel()` calls it off once the wait is over, so nothing of it keeps the process alive.
 */
export class LookCutoff {
  private readonly controller = new AbortController();
  private alarm: ReturnType<Alarm> | undefined;
  private reached = false;
  /** The bounded looks still in flight, each rejected when the cut passes. */
  private readonly bounded = new Set<() => void>();

  constructor(
    ms: number,
    private readonly setAlarm: Alarm,
    private readonly interrupt?: AbortSignal,
  ) {
    // One listener on the interrupt for every cut (abort-fanout.ts): apply has one per generation it waits for.
    if (interrupt !== undefined) followAbort(interrupt, this.controller);
    this.arm(Math.max(0, ms));
  }

  /** Aborts at the cut or on Ctrl-C: the signal to read with. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Whether the cut passed (not Ctrl-C). */
  get passed(): boolean {
    return this.reached;
  }

  /**
   * `look`, or a LookGivenUp rejection once the cut passes first: a look waiting for a `--concurrency` permit is
   * given up too, not only one whose request is under way. What the look does after that is let go (its
   * request, given `signal`, is called off), its failure included.
   */
  bound<T>(look: Promise<T>): Promise<T> {
    if (this.reached) {
      look.catch(() => undefined);
      return Promise.reject(new LookGivenUp());
    }
    return new Promise<T>((resolve, reject) => {
      const cut = (): void => reject(new LookGivenUp());
      this.bounded.add(cut);
      look.then(resolve, reject).finally(() => this.bounded.delete(cut));
    });
  }

  /** The wait is over: the timer goes, and Ctrl-C no longer reaches this. */
  cancel(): void {
    const alarm = this.alarm;
    this.alarm = undefined;
    alarm?.cancel();
    if (this.interrupt !== undefined) unfollowAbort(this.interrupt, this.controller);
  }

  /**
   * A timer waits at most MAX_TIMER_MS (a longer one fires at once): a cut further off (a library caller's wait
   * beyond what the CLI accepts) is reached in steps. Counted down, not read from a clock, so an injected sleep
   * that returns at once cannot make this loop.
   */
  private arm(ms: number): void {
    const step = Math.min(ms, MAX_TIMER_MS);
    const alarm = this.setAlarm(step);
    this.alarm = alarm;
    void alarm.done.then(() => {
      // Cancelled: an injected sleep cannot be called off, and its late wake-up changes nothing.
      if (this.alarm !== alarm) return;
      if (ms > step) return this.arm(ms - step);
      this.reached = true;
      // The bounded looks first: a read the abort calls off then fails too, and that is not its outcome.
      for (const cut of [...this.bounded]) cut();
      this.bounded.clear();
      this.controller.abort(new LookGivenUp());
    });
  }
}

/**
 * The cut of a wait of `waitMs`: its deadline plus one request try (`timeoutMs`, the clients' `--timeout`), timed
 * by the injected sleep only when the clock is injected too (a fake clock's test). A sleep alone (a test skipping
 * the gaps between looks, or a caller's own, real) would end the wait at once, or leave a timer as long as the wait
 * that cannot be called off, keeping the process up after it ended; a real timer is called off.
 */
export function waitCutoff(
  waitMs: number,
  timeoutMs: number | undefined,
  injected: { sleep?: ((ms: number) => Promise<void>) | undefined; now?: (() => number) | undefined },
  interrupt?: AbortSignal,
): { cut: LookCutoff; lastLookMs: number } {
  const lastLookMs = timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const alarm =
    injected.sleep !== undefined && injected.now !== undefined ? sleepAlarm(injected.sleep) : realAlarm;
  return { cut: new LookCutoff(waitMs + lastLookMs, alarm, interrupt), lastLookMs };
}

/** Why a wait ended at its cut, as its error says it: the last look had one request try past the deadline. */
export function lastLookUnanswered(lastLookMs: number, waitedMs?: number): string {
  const waited = waitedMs !== undefined ? `; given up after ${Math.round(waitedMs / 1000)}s` : '';
  return `the service did not answer the last look in time (it had ${formatTimeout(lastLookMs)}, one request timeout, past --wait-timeout${waited})`;
}
