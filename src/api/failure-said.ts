import { normaliseParserStatus } from './parser-status.js';
import { quoted, readFlag } from './read-flag.js';
import type { Transport } from './transport.js';
import type { TransportRequest, TransportResponse } from './transport-contract.js';

/**
 * Where a success answer (2xx) says the call failed all the same, as services behind a framework that answers
 * every error with 200 do: an `error` that is set (a text, an object, true), `errors` that list any, or `success` /
 * `ok` false (as readFlag reads a flag). A `message` alone says nothing either way ("Project archived"), and nor
 * does a body of another shape. Read where only the status was taken as the outcome, and the outcome cannot be
 * undone: a DELETE taken as done drops its object from state, and a project still live keeps its paid schedule.
 *
 * With `parserId`, a body that is the parser's own record (recordError) has an `error` of its own: why its last
 * generation failed. Read as the call's failure, the delete of a FAILED parser (a replace's new parser that failed)
 * could never be taken; `errors`, `success` and `ok` still count, and the caller reads the parser by id to see
 * whether the delete was done (a refusal dressed as a record would leave it shown).
 */
export function failureSaid(body: unknown, parserId?: string): { field: string; value: unknown } | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const answer = body as Record<string, unknown>;
  const error = answer['error'];
  const ownError = parserId !== undefined && isParserRecord(answer, parserId);
  if (!ownError && (error === true || (typeof error === 'string' && error.trim() !== '') || isFilled(error)))
    return { field: 'error', value: error };
  if (isFilled(answer['errors'])) return { field: 'errors', value: answer['errors'] };
  for (const field of ['success', 'ok']) {
    if (readFlag(answer[field]) === false) return { field, value: answer[field] };
  }
  return undefined;
}

const PARSER_STATUSES = new Set(['GENERATING', 'FINISHED', 'FAILED']);

/**
 * A body that reads as the parser's record: a status a parser version has (GENERATING, FINISHED, FAILED, in any
 * case; not "error" or "fail"), a name or a version, and no id but the parser's. An error body of a framework
 * (`{"status": "failed", "error": ...}`, `{"id": "p-1", "error": ...}`) is none.
 */
function isParserRecord(answer: Record<string, unknown>, parserId: string): boolean {
  const status = answer['status'];
  return (
    typeof status === 'string' &&
    PARSER_STATUSES.has(normaliseParserStatus(status)) &&
    (answer['name'] !== undefined || answer['version'] !== undefined) &&
    (answer['id'] === undefined || String(answer['id']) === parserId)
  );
}

/**
 * The `error` of a DELETE's answer that is the parser's own record (isParserRecord), when set, quoted (cut short
 * past 40 characters): undefined for any other answer. Such an answer neither proves the delete done nor refused,
 * so the caller reads the parser by id (apply/delete-parser.ts).
 */
export function recordError(body: unknown, parserId: string): string | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const answer = body as Record<string, unknown>;
  const error = answer['error'];
  if (error === undefined || error === null || error === false || error === '') return undefined;
  return isParserRecord(answer, parserId) ? quoted(error) : undefined;
}

/** A list or an object holding anything. */
function isFilled(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return value !== null && typeof value === 'object' && Object.keys(value).length > 0;
}

/** The reason of the `api.bad-response` for such an answer, the value quoted and cut short past 40 characters. */
function failureProblem(status: number, { field, value }: { field: string; value: unknown }): string {
  return `field ${field}: the ${status} answer says the call failed (${quoted(value)}); it is not taken as done`;
}

/**
 * Throws the `api.bad-response` of a success answer whose body says the call failed (failureSaid, `parserId` as
 * there); the value is quoted without the key (taken out before the cut, so no part of it is left).
 */
export function refuseFailureSaid(
  transport: Transport,
  request: TransportRequest,
  response: TransportResponse,
  parserId?: string,
): void {
  const found = failureSaid(response.body, parserId);
  if (found === undefined) return;
  const value = transport.redactAnswer(found.value);
  throw transport.badResponse(request, response, failureProblem(response.status, { ...found, value }));
}
