/** The signal of one try of a request, with what ended it. */
export interface TrySignal {
  signal: AbortSignal;
  /** Whether the deadline (not the caller's signal) aborted it. */
  timedOut(): boolean;
  /** The try is over: its timer and its listener on the caller's signal go. */
  done(): void;
}

/**
 * Aborted at the deadline (a TimeoutError, as `AbortSignal.timeout` gives) or when the caller's signal aborts (with
 * its reason). One controller and one timer per try, released by `done()`: `AbortSignal.timeout` plus
 * `AbortSignal.any` cost about as much CPU as the rest of a call's own work in a profile of 1,000 creates
 * (bench/scale.js), and `any` keeps every dependent signal registered on the caller's until it is collected.
 */
export function trySignal(timeoutMs: number, outer?: AbortSignal): TrySignal {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  }, timeoutMs);
  // As AbortSignal.timeout: the deadline alone does not keep the process alive.
  timer.unref();
  const onOuter = (): void => controller.abort(outer?.reason);
  if (outer?.aborted === true) controller.abort(outer.reason);
  else outer?.addEventListener('abort', onOuter, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done: () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuter);
    },
  };
}
