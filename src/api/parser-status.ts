import type { ParserStatus } from './live.js';

/** What a caller does with a parser version's status. */
export type ParserStatusKind = 'done' | 'failed' | 'working';

const KNOWN = new Set(['GENERATING', 'FINISHED', 'FAILED']);

/**
 * The status as scrapeform compares it: the seed's three values upper-cased, and the misspelling `FINISED` that
 * the public docs show read as `FINISHED` (API-NOTES). Any other value is passed on unchanged: callers treat it as
 * still working, never as a failure or as done.
 */
export function normaliseParserStatus(raw: string): ParserStatus {
  const upper = raw.trim().toUpperCase();
  if (upper === 'FINISED') return 'FINISHED';
  return KNOWN.has(upper) ? upper : raw;
}

/**
 * Only `FAILED` is a failure and only `FINISHED` is done (issue 13): an unknown value means the service is still
 * working on the version, so a poll keeps waiting rather than failing or diffing a version that is not ready.
 */
export function parserStatusKind(status: string): ParserStatusKind {
  const normalised = normaliseParserStatus(status);
  if (normalised === 'FINISHED') return 'done';
  if (normalised === 'FAILED') return 'failed';
  return 'working';
}

/**
 * Why a version FAILED, as state records it and messages quote it: the service's error, else that it gave none (a
 * status is no reason: recorded as one, the plan said "FAILED 2 times (FAILED)").
 */
export function failureReason(error: string | null | undefined): string {
  return error !== undefined && error !== null && error.trim() !== '' ? error : 'no error given';
}
