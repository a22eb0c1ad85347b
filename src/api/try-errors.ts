import {
  ApiError,
  formatTimeout,
  MAY_BE_CHARGED,
  networkReason,
  neverSent,
  proxyRefusal,
} from './api-error.js';
import type { ApiErrorInit, CallKind } from './api-error.js';
import { paidTryMayBeCharged } from './retry-policy.js';
import type { AnswerUndecodable } from './answer-encoding.js';
import { AnswerTooDeep, AnswerTooLarge, formatBytes } from './send-request.js';

/** What the error of one failed try says of it: the call, where it went, and what is never shown. */
export interface FailedTry {
  method: string;
  url: URL;
  /** The caller called it off: a try it aborted is not tried again. */
  aborted: boolean;
  /**
   * What kind of call it is, for the hint of a timeout (ApiErrorInit.call). Each try of a `paid` one is charged (a
   * parse): one without a complete answer is never sent again, and its error says so.
   */
  call: CallKind;
  secrets: readonly string[];
  service?: string | undefined;
}

function base(at: FailedTry): Pick<ApiErrorInit, 'method' | 'url' | 'secrets' | 'service' | 'call'> {
  return {
    method: at.method,
    url: at.url.toString(),
    secrets: at.secrets,
    ...(at.service !== undefined ? { service: at.service } : {}),
    call: at.call,
  };
}

/**
 * No complete answer: the deadline passed, the caller aborted, or the connection failed or broke during the answer
 * (`status`: the one it had said). Status 0 either way: the request may have landed (mayHaveLanded), so a create is
 * looked for by name and never sent again blindly, and a GET is tried again.
 */
export function noAnswerError(
  at: FailedTry,
  error: unknown,
  timeout: { timedOut: boolean; ms: number },
  status: number | undefined,
): ApiError {
  const reading = status !== undefined ? ` while reading the ${status} response` : '';
  return charged(at, {
    ...base(at),
    code: timeout.timedOut ? 'api.timeout' : 'api.network',
    status: 0,
    // A proxy that asks for credentials (407) or forbids the tunnel (403) will answer the same again.
    retryable: !at.aborted && ![403, 407].includes(proxyRefusal(error) ?? 0),
    cause: error,
    message: timeout.timedOut
      ? `no answer within the request timeout of ${formatTimeout(timeout.ms)}${reading}`
      : status !== undefined
        ? `the connection broke${reading}`
        : networkReason(error),
  });
}

/** The error of a try without a complete answer; a paid one that may have gone out says it may have been charged. */
function charged(at: FailedTry, init: ApiErrorInit): ApiError {
  const error = new ApiError(init);
  return at.call === 'paid' && !neverSent(error) ? new ApiError({ ...init, note: MAY_BE_CHARGED }) : error;
}

/**
 * An answer of an expected status whose body does not decode as its content-encoding says (cut short, or not in
 * it): no complete answer, as when the connection breaks during it (noAnswerError), whichever way the request went
 * (answer-encoding.ts). Only a body cut short is called incomplete: a whole one in another encoding is unreadable.
 */
export function cutAnswerError(at: FailedTry, status: number, error: AnswerUndecodable): ApiError {
  return charged(at, {
    ...base(at),
    code: 'api.network',
    status: 0,
    answered: status,
    retryable: !at.aborted,
    cause: error,
    message: `the ${status} answer is ${error.cut ? 'incomplete' : 'unreadable'}: ${error.message}`,
  });
}

/**
 * An answer refused whatever its status: too long to read, or nested too deep to walk (MAX_ANSWER_DEPTH). A bad
 * response, not retried (the next would be the same); undefined for any other failure to read one.
 */
export function refusedAnswerError(at: FailedTry, status: number, error: unknown): ApiError | undefined {
  if (!(error instanceof AnswerTooLarge) && !(error instanceof AnswerTooDeep)) return undefined;
  return new ApiError({
    ...base(at),
    code: 'api.bad-response',
    status,
    retryable: false,
    cause: error,
    message:
      error instanceof AnswerTooLarge
        ? `the ${status} answer is larger than ${formatBytes(error.limit)}; it was not read, and nothing is planned from it`
        : `the ${status} answer nests arrays or objects more than ${error.limit} levels deep; nothing is planned from it`,
  });
}

/** MAY_BE_CHARGED for the failed answer (`status`) of a paid call that may have been charged, else undefined. */
export function chargeNote(call: { paid?: boolean | undefined }, status: number): string | undefined {
  return call.paid === true && paidTryMayBeCharged(status) ? MAY_BE_CHARGED : undefined;
}

/** The notes an error says after its message, those there, joined; undefined when there is none. */
export function notesOf(...notes: (string | undefined)[]): string | undefined {
  return notes.filter((n) => n !== undefined).join('; ') || undefined;
}
