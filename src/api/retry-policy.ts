import { followAbort, unfollowAbort } from '../abort-fanout.js';
import { formatDuration } from '../duration.js';
import type { ApiError } from './api-error.js';
import type { AnswerHeaders } from './send-request.js';

export interface RetryPolicy {
  /** Retries after the first try; 0 disables retrying. */
  maxRetries: number;
  /** First backoff ceiling; doubles each retry (full jitter picks a delay below it). */
  baseDelayMs: number;
  /** Ceiling of any one delay; a Retry-After beyond it ends the call (beyondWait). */
  maxDelayMs: number;
  /**
   * Overall bound of one call: no retry starts once the call has run this long, or would after its delay.
   * Default: four request timeouts, so a server that never answers fails in minutes, not after every retry.
   */
  maxElapsedMs?: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 4, baseDelayMs: 500, maxDelayMs: 30_000 };

/** The policy of a transport: `retry` over the default, bounded by four request timeouts unless it says otherwise. */
export function policyOf(
  retry: Partial<RetryPolicy> | undefined,
  timeoutMs: number,
): RetryPolicy & { maxElapsedMs: number } {
  const policy = { ...DEFAULT_RETRY_POLICY, ...retry };
  return { ...policy, maxElapsedMs: policy.maxElapsedMs ?? 4 * timeoutMs };
}

/** What a retry decision reads of the call: whether it may be repeated, and whether Ctrl-C came. */
export interface RetryCall {
  idempotent: boolean;
  /** Each try is charged: retried only after an answer saying it was not done (paidTryMayBeCharged). */
  paid?: boolean | undefined;
  signal?: AbortSignal | undefined;
}

/** Why no try follows a failed one (retryDelay): what a 429's error then says was done (endedAfter). */
export type RetryEnding =
  'not-retryable' | 'retries' | 'interrupted' | 'once' | 'charged' | 'retry-after' | 'elapsed';

/**
 * How long to wait before the next try, or why none follows (RetryEnding). Only idempotent calls are retried, except a
 * 429: the service refused the request, so a POST or PATCH did not land and may be sent again (API-NOTES). A
 * Retry-After the answer carried is honoured; one longer than `maxDelayMs` ends the call (beyondWait): a try
 * before it is one the service said it would refuse, and cut to the cap it kept a CI job trying for minutes
 * what the service had refused for hours. Without one, full jitter below a doubling ceiling. No retry starts
 * that would end past `maxElapsedMs` of the whole call.
 */
export function retryDelay(
  policy: RetryPolicy & { maxElapsedMs: number },
  call: RetryCall,
  error: ApiError,
  attempt: number,
  elapsedMs: number,
  retryAfterMs: number | undefined,
  random: () => number,
): number | RetryEnding {
  if (!error.retryable) return 'not-retryable';
  if (attempt >= policy.maxRetries) return 'retries';
  if (call.signal?.aborted === true) return 'interrupted';
  if (!call.idempotent && error.status !== 429) return 'once';
  if (call.paid === true && paidTryMayBeCharged(error.status)) return 'charged';
  if (beyondWait(policy, retryAfterMs)) return 'retry-after';
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  const delayMs = retryAfterMs ?? Math.floor(random() * ceiling);
  if (elapsedMs + delayMs > policy.maxElapsedMs) return 'elapsed';
  return delayMs;
}

/** What to do after a 429 whatever the ending: scrapeform has already waited and tried again. */
const RATE_LIMITED_NEXT =
  "lower --concurrency (apply), run the command again later, or check the rate limits of the account's plan in the ScraperAPI dashboard";

/** How a call's tries went: how many were made, and how many of the last ones in a row were refused with 429. */
export interface TriesMade {
  tries: number;
  /** The tries answered 429 at the end of the call, in a row (a 503 before them is not one). */
  lastRefused: number;
}

/**
 * The error a call ends with after its tries, no other following for `ending`. After a 429 its hint says what was
 * already done, where the code's advice ("wait and try again") would have the user do it again: how many tries,
 * how many of the last were refused (a call whose first tries failed with a 5xx was not refused on each), each wait
 * as long as the service's Retry-After asked, or the Retry-After (or the next wait) that ended the call. Any other
 * error is returned as it is.
 */
export function endedAfter(
  error: ApiError,
  policy: RetryPolicy & { maxElapsedMs: number },
  made: TriesMade,
  ending: RetryEnding,
): ApiError {
  if (error.code !== 'api.rate-limited') return error;
  const { tries, lastRefused } = made;
  const count = tries === 1 ? '1 try' : `${tries} tries`;
  const refused = 'the service refused this call with 429 (rate limited)';
  const waited =
    'scrapeform waited before each new try as long as its Retry-After asked (backing off when it named no wait)';
  const why: Partial<Record<RetryEnding, string>> = {
    retries:
      tries === 1
        ? `${refused} on its one try`
        : lastRefused >= tries
          ? `${refused} on each of its ${count}, and ${waited}`
          : lastRefused === 1
            ? `${refused}: its last try was refused with 429 after ${count}, the ones before failing otherwise, and ${waited}`
            : `${refused}: the last ${lastRefused} of its ${count} were refused with 429, the ones before failing otherwise, and ${waited}`,
    'retry-after': `${refused} and asked to wait longer than the ${formatDuration(policy.maxDelayMs)} scrapeform waits between tries (the message says how long), so the call ended after ${count} rather than send one the service said it would refuse`,
    elapsed: `${refused}, and the next wait would have run past the ${formatDuration(policy.maxElapsedMs)} scrapeform gives one call, so it ended after ${count}`,
    interrupted: `${refused}, and the run was stopped after ${count}, before scrapeform tried it again`,
  };
  return error.withHint(`${why[ending] ?? refused}: ${RATE_LIMITED_NEXT}`);
}

/**
 * The answers that say a paid try was not done: refused (429), or failed (the seed's 500 "Extraction failed", a
 * 503 Service Unavailable). Every other 5xx may be a proxy's or gateway's that gave up on a request the service
 * had (a 502, a 504, Cloudflare's 520 to 524), and names no outcome a charge would not follow.
 */
const PAID_RETRIED: ReadonlySet<number> = new Set([429, 500, 503]);

/**
 * Whether a failed try of a paid call (a parse) may have been charged all the same, and is then never sent again:
 * no answer (status 0: a timeout, a broken connection), or a 5xx other than 500 and 503.
 */
export function paidTryMayBeCharged(status: number): boolean {
  return status === 0 || (status >= 500 && !PAID_RETRIED.has(status));
}

/** Whether a Retry-After asks for a longer wait than any one the policy makes: the call then ends. */
function beyondWait(policy: RetryPolicy, retryAfterMs: number | undefined): retryAfterMs is number {
  return retryAfterMs !== undefined && retryAfterMs > policy.maxDelayMs;
}

/**
 * The Retry-After of a failed answer, in ms, when it carried a readable one, and the note its error then says
 * when no try follows for it: how long the service asked for, and that it is beyondWait, or longer than what is
 * left of the call's `maxElapsedMs` after `elapsedMs` (retryDelay gives up then too; without the note the call
 * ended on a bare 429, not a word of the wait, where a short request timeout left less than the wait asked).
 */
export function retryAfterOf(
  policy: RetryPolicy & { maxElapsedMs: number },
  headers: AnswerHeaders,
  now: number,
  elapsedMs: number,
): { ms?: number; note?: string } {
  const header = headers.get('retry-after');
  const ms = header === null ? undefined : parseRetryAfter(header, now);
  if (ms === undefined) return {};
  const left = Math.max(0, policy.maxElapsedMs - elapsedMs);
  const beyond = beyondWait(policy, ms);
  if (!beyond && ms <= left) return { ms };
  const asked = Number.isFinite(ms) ? formatDuration(ms) : 'longer than scrapeform waits';
  const limit = beyond
    ? `the ${formatDuration(policy.maxDelayMs)} scrapeform waits between tries`
    : `the ${formatDuration(left)} left of the ${formatDuration(policy.maxElapsedMs)} scrapeform gives one call`;
  return {
    ms,
    note: `the service asks to wait ${asked} before another try, more than ${limit}; not tried again`,
  };
}

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{2}:\\d{2}:\\d{2}';
/** IMF-fixdate, then the obsolete RFC 850 and asctime forms a recipient still reads (RFC 9110 section 5.6.7). */
const HTTP_DATE = [
  new RegExp(`^${DAY}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT$`, 'i'),
  new RegExp(`^(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, \\d{2}-${MONTH}-\\d{2} ${TIME} GMT$`, 'i'),
  new RegExp(`^${DAY} ${MONTH} [ \\d]\\d ${TIME} \\d{4}$`, 'i'),
];

/**
 * Retry-After as milliseconds from now: delta-seconds or an HTTP date (RFC 9110 section 10.2.3). Seconds with a
 * fraction (`1.5`) are read as meant. Anything else is unreadable (undefined: the backoff decides). Only the three
 * forms of an HTTP date are read as one: Date.parse finds a date in much else (`-5` and `1.5` as dates long past,
 * "now"; `soon 2099` as a date in 2099, a wait of decades that ended the call).
 */
export function parseRetryAfter(value: string, now: number): number | undefined {
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed) * 1000);
  const form = HTTP_DATE.findIndex((f) => f.test(trimmed));
  if (form < 0) return undefined;
  // asctime names no zone, and means GMT; Date.parse would read it in the machine's own.
  const date = Date.parse(form === 2 ? `${trimmed} GMT` : trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/**
 * The wait between tries: `ms`, or less when `signal` aborts (the timer is cleared, so nothing keeps the process).
 * Every call waiting out a 429 at once follows the signal through one listener (abort-fanout.ts).
 */
export function waitBeforeRetry(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) return resolve();
    const waiter = { abort: (): void => done() };
    const done = (): void => {
      clearTimeout(timer);
      if (signal !== undefined) unfollowAbort(signal, waiter);
      resolve();
    };
    const timer = setTimeout(done, ms);
    if (signal !== undefined) followAbort(signal, waiter);
  });
}
