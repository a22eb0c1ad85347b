import { HttpError, RetryAfterError } from './http.js';

/** Fault injection, set with PUT /_emulator/faults; applies to the service endpoints, never to /_emulator/. */
export interface Faults {
  /** Added to every service response. */
  latencyMs: number;
  /** Share of service requests answered `errorStatus` (500 or 503) without doing anything. */
  errorRate: number;
  errorStatus: number;
  /** Share answered 429 with Retry-After. */
  rateLimitRate: number;
  retryAfterSeconds: number;
  /** Share whose connection is dropped without an answer. */
  dropRate: number;
  /** Share whose connection is dropped after the request was carried out (the answer is lost). */
  dropAfterRate: number;
  /** Held after the request was carried out, before answering (to kill a client while its call has landed). */
  responseDelayMs: number;
  /** Methods whose answers are held; all when empty. */
  responseDelayMethods: string[];
  /** Overrides the generation delay while set. */
  generationDelayMs: number | null;
  /** The next N generations fail with `generationError`. */
  failGenerations: number;
  generationError: string;
}

/** The longest delay a Node timer holds: past it setTimeout warns and fires after 1 ms (about 24.8 days). */
export const LONGEST_TIMER_MS = 2 ** 31 - 1;

/**
 * The delays handed to setTimeout as they are (the clock's timers re-arm in steps, so generationDelayMs is not one).
 */
const TIMER_DELAYS: readonly string[] = ['latencyMs', 'responseDelayMs'];

export const NO_FAULTS: Readonly<Faults> = {
  latencyMs: 0,
  errorRate: 0,
  errorStatus: 503,
  rateLimitRate: 0,
  retryAfterSeconds: 1,
  dropRate: 0,
  dropAfterRate: 0,
  responseDelayMs: 0,
  responseDelayMethods: [],
  generationDelayMs: null,
  failGenerations: 0,
  generationError: 'GenerationError: the model could not build a parser for these pages (injected fault)',
};

/**
 * The fault a service request meets before it is carried out, from one roll of the random generator: the
 * connection dropped, a 429, a 5xx, or none. The shares stack in that order.
 */
export function pickFault(faults: Faults, roll: number): 'dropped' | HttpError | undefined {
  if (roll < faults.dropRate) return 'dropped';
  if (roll < faults.dropRate + faults.rateLimitRate) {
    return new RetryAfterError(429, 'Too many requests (injected fault)', faults.retryAfterSeconds);
  }
  if (roll < faults.dropRate + faults.rateLimitRate + faults.errorRate) {
    return new HttpError(faults.errorStatus, 'Service unavailable (injected fault)');
  }
  return undefined;
}

/** Whether the answer to a request of this method is held back (`responseDelayMs`). */
export function holdsAnswer(faults: Faults, method: string): boolean {
  return (
    faults.responseDelayMs > 0 &&
    (faults.responseDelayMethods.length === 0 || faults.responseDelayMethods.includes(method))
  );
}

/** Validates a body of PUT /_emulator/faults: 400 naming the setting for anything unknown or out of range. */
export function checkFaults(body: Record<string, unknown>): Partial<Faults> {
  const out: Partial<Faults> = {};
  const rates = ['errorRate', 'rateLimitRate', 'dropRate', 'dropAfterRate'] as const;
  for (const [key, value] of Object.entries(body)) {
    if (!(key in NO_FAULTS))
      throw new HttpError(400, `unknown fault setting ${key}; known: ${Object.keys(NO_FAULTS).join(', ')}`);
    if (key === 'generationError') {
      if (typeof value !== 'string') throw new HttpError(400, 'generationError must be a string');
      out.generationError = value;
      continue;
    }
    if (key === 'responseDelayMethods') {
      if (!Array.isArray(value) || value.some((m) => typeof m !== 'string'))
        throw new HttpError(400, 'responseDelayMethods must be a list of methods');
      out.responseDelayMethods = value as string[];
      continue;
    }
    if (key === 'generationDelayMs' && value === null) {
      out.generationDelayMs = null;
      continue;
    }
    if (typeof value !== 'number' || value < 0) throw new HttpError(400, `${key} must be a number >= 0`);
    if (TIMER_DELAYS.includes(key) && !(value <= LONGEST_TIMER_MS))
      throw new HttpError(
        400,
        `${key} is at most ${LONGEST_TIMER_MS} ms (about 24.8 days): a longer delay fires at once in Node`,
      );
    if ((rates as readonly string[]).includes(key) && value > 1)
      throw new HttpError(400, `${key} is a share from 0 to 1`);
    if (key === 'errorStatus' && value !== 500 && value !== 503)
      throw new HttpError(400, 'errorStatus must be 500 or 503');
    (out as Record<string, unknown>)[key] = value;
  }
  return out;
}

/**
 * The answers held back by `responseDelayMs`, each until its delay is over or the delay is cleared (set to 0, or the
 * faults cleared or reset): then every held answer goes out at once. Kept held, an answer left by a client a test
 * killed went out (and into the request log) whenever its delay ended, during a later command of that test. The
 * waits of `latencyMs` are held here too, but only the emulator's close ends them: its timers kept a program that
 * had closed the emulator (a user's tests, through the library) running until the delay ended, up to 24.8 days.
 */
export class HeldAnswers {
  /** Each hold's release, and whether clearing the delay lets it go (releaseAll). */
  private readonly held = new Map<(go: boolean) => void, boolean>();
  private closed = false;

  /**
   * Resolves true when the answer may go: after `ms`, or at releaseAll() when `releasable`; false at close() (and
   * at once after it): the emulator is gone, and nothing more of the request is done.
   */
  hold(ms: number, releasable = true): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const release = (go: boolean): void => {
        clearTimeout(timer);
        if (this.held.delete(release)) resolve(go);
      };
      const timer = setTimeout(release, ms, true);
      this.held.set(release, releasable);
    });
  }

  releaseAll(): void {
    for (const [release, releasable] of [...this.held]) if (releasable) release(true);
  }

  /** The emulator closed: every wait ends now, its request dropped, and no timer of one is left. */
  close(): void {
    this.closed = true;
    for (const release of [...this.held.keys()]) release(false);
  }
}
