import { ScrapeformError } from '../errors.js';
import { formatNames } from '../format-count.js';
import type { ResourceChange } from '../plan/model.js';
import { sameJson } from '../plan/plan-context.js';
import type { StateBackend } from '../state/backend.js';
import type { State } from '../state/model.js';
import type { ApplyResult, ChangeResult } from './apply-model.js';

/**
 * A state write that failed during apply (`state.io`: a full, read-only or forbidden disk; `state.lock-lost`: the
 * lock taken over by another run; any other `state.*` error a write raises): apply stopped there, but calls it made
 * before may have landed with nothing recorded. The error says which: the changes that made calls and whose object
 * or intent differs between what this run holds and what the state holds (read again, which a full disk or a lost
 * lock allows; every change that made calls when that read fails too). A database that did not answer
 * (`state.unreachable`, or a lock lost with its connection) is not read again: it may not answer a read either, and
 * would hold the error back for its timeout; every change that made calls is named then. Said as the same error
 * with that added, so the user knows which objects the next apply reads again rather than take "the state was not
 * changed" for nothing having happened.
 */
export async function withUnrecordedCalls(
  error: unknown,
  results: readonly ChangeResult[],
  current: State,
  backend: StateBackend,
): Promise<unknown> {
  if (!(error instanceof ScrapeformError) || !error.code.startsWith('state.')) return error;
  const called = results.filter((result) => result.calls.length > 0);
  // Changes apply did not start once the write had failed: nothing of theirs was sent.
  const notStarted = results.filter((result) => result.skipped === true && result.error?.code === error.code);
  if (called.length === 0 && notStarted.length === 0) return error;
  const stored =
    called.length > 0 && !silentDatabase(error) ? await backend.read().catch(() => undefined) : undefined;
  const unrecorded = called.filter(
    (result) =>
      stored === undefined || !sameJson(recordOf(stored, result.address), recordOf(current, result.address)),
  );
  return namingStop(error, unrecorded, notStarted);
}

/**
 * The state error with what apply left: the changes that made calls state does not hold all of, and those not
 * started (nothing sent); the error as it is when there are none.
 */
function namingStop(
  error: ScrapeformError,
  unrecorded: readonly ChangeResult[],
  notStarted: readonly ChangeResult[],
): ScrapeformError {
  if (unrecorded.length === 0 && notStarted.length === 0) return error;
  const named = formatNames(unrecorded.map((result) => `${result.address} (${result.action})`));
  const said = [
    ...(unrecorded.length > 0
      ? [
          `apply stopped: state does not hold all it did for ${named}, which the next apply reads again (a create not recorded is found by name)`,
        ]
      : ['apply stopped']),
    ...(notStarted.length > 0
      ? [`not started, nothing sent: ${formatNames(notStarted.map((result) => result.address))}`]
      : []),
  ];
  return error.saying(said.join('; '), {
    details: {
      ...(unrecorded.length > 0 ? { unrecorded: unrecorded.map((result) => result.address) } : {}),
      ...(notStarted.length > 0 ? { notStarted: notStarted.map((result) => result.address) } : {}),
    },
  });
}

/** A change apply did not start because a state write failed before it: nothing of it was sent. */
export function notStartedResult(change: ResourceChange, failure: unknown): ChangeResult {
  return {
    address: change.address,
    action: change.action,
    ok: false,
    skipped: true,
    calls: [],
    id: change.id,
    error: notStartedForState(failure),
  };
}

/** Why a change was not started: a state write failed before it, so nothing it would send could be recorded. */
export function notStartedForState(failure: unknown): ChangeResult['error'] & object {
  const code = failure instanceof ScrapeformError ? failure.code : 'internal';
  return { code, message: 'not started: state could not be written' };
}

/**
 * A state error that says the database stopped answering: `state.unreachable`, or a lock lost with the connection
 * that held it (PostgreSQL: the error carries the connection's failure as its cause, a timeout included). Read
 * again, it would hold the error back for the database's timeout (30 s by default).
 */
function silentDatabase(error: ScrapeformError): boolean {
  return (
    error.code === 'state.unreachable' || (error.code === 'state.lock-lost' && error.cause !== undefined)
  );
}

/** What state holds of one address: its object and the intent of a create at it. */
function recordOf(state: State, address: string): unknown[] {
  return [state.resources[address], state.intents?.[address]];
}

/**
 * A state error that stopped apply (a write before its first call, during its calls, or after its last), with what
 * apply had done by then: every change of the plan, the calls each sent, and those not started. The CLI prints that
 * result (`apply --json`, the summary, --markdown-report) before the error, so CI learns what was made (and paid
 * for) on this path too, as it does when a call fails.
 */
export class ApplyStoppedError extends ScrapeformError {
  constructor(
    error: ScrapeformError,
    readonly result: ApplyResult,
  ) {
    super(error.code, error.message, {
      ...(error.hint !== undefined ? { hint: error.hint } : {}),
      details: error.details,
      status: error.status,
      cause: error,
    });
  }
}

/** The error that stopped apply with `result`: a user error carries it (ApplyStoppedError); a bug stays as it is. */
export function stoppedWith(error: unknown, result: ApplyResult): unknown {
  return error instanceof ScrapeformError ? new ApplyStoppedError(error, result) : error;
}

/**
 * The error of a state write that failed before apply's first call (the write of what finished since, the protection
 * and the moves, before the intents), with its result: every change of the plan not started, nothing sent (none for
 * a plan of no changes, whose one write records what finished since and the protection).
 */
export function stoppedBeforeCalls(
  error: unknown,
  changes: readonly ResourceChange[],
  state: State,
): unknown {
  if (!(error instanceof ScrapeformError)) return error;
  const results = changes.map((change) => notStartedResult(change, error));
  const interrupted = error.status === 'interrupted';
  return new ApplyStoppedError(namingStop(error, [], results), { results, state, interrupted });
}
