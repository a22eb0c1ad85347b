import { ApiError, neverSent, unreadableStatus } from '../api/api-error.js';
import { unlessGone } from '../api/unless-status.js';
import type { ApiClients } from '../api/create-clients.js';
import { ScrapeformError } from '../errors.js';
import type { ResourceChange } from '../plan/model.js';
import type { LiveIndex } from '../plan/plan-context.js';
import type { ApplyEvent, ApplyOptions, AppliedCall, ChangeResult, Recovered } from './apply-model.js';
import type { Permits } from '../worker-pool.js';
import type { StateStore } from './state-store.js';
import type { CreateIntent } from '../state/model.js';
import type { GenerationPoller } from './generation-poller.js';

/** What every handler gets: the clients, the state store, the options, and where events go. */
export interface HandlerContext {
  clients: ApiClients;
  store: StateStore;
  options: ApplyOptions;
  emit: (event: ApplyEvent) => void;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
  /** Calls in flight (`--concurrency`): a handler holds one, and gives it back while it waits for a generation. */
  calls: Permits;
  /** Looks at every waiting generation with one list call per interval. */
  poller: GenerationPoller;
  /** Told when a change has made the call that starts its generation and begins to wait for it. */
  waiting?: (change: ResourceChange) => void;
  /** The live lists the plan read, by id and name (createOnce takes them as what existed before a create). */
  planned?: LiveIndex;
  /**
   * Creates whose intent was written ahead with the whole plan and whose POST is not sent yet (recordIntentsAhead):
   * a create takes its address out as it sends, and what is left when apply ends is taken back. Each maps to the
   * intent it took the place of (an earlier run's create still unconfirmed), which is put back if it is not sent.
   */
  intentsAhead?: Map<string, CreateIntent | undefined>;
  /** Updates whose first PATCH's intent was written ahead with the plan (recordPatchesAhead) and is not sent yet. */
  patchesAhead?: Set<string>;
}

/** Makes the calls of one change and records them in state; each kind and action has its own. */
export type Handler<C extends ResourceChange> = (
  change: C,
  result: ChangeResult,
  ctx: HandlerContext,
) => Promise<void>;

/** A call as it is logged: the method and the path under the service's base URL (never the key). */
export interface CallLine {
  method: 'POST' | 'PATCH' | 'DELETE' | 'GET';
  path: string;
}

/**
 * Makes one call and records it with `status` (a number, or read from what the call returned: the status the
 * service answered, so a 202 is never listed as a 204); statuses in `gone` (a DELETE of something already gone)
 * count as done. Returns the status recorded. No call starts after Ctrl-C.
 */
export async function makeCall<T>(
  ctx: HandlerContext,
  change: ResourceChange,
  result: ChangeResult,
  line: CallLine,
  run: () => Promise<T>,
  status: number | ((answer: T) => number),
  gone: readonly number[] = [],
): Promise<number> {
  abortIfInterrupted(ctx);
  try {
    const answer = await run();
    const answered = typeof status === 'number' ? status : status(answer);
    noteCall(ctx, change, result, line, answered);
    return answered;
  } catch (error) {
    if (error instanceof ApiError && gone.includes(error.status)) {
      noteCall(ctx, change, result, line, error.status);
      return error.status;
    }
    noteFailedCall(result, line, error);
    throw error;
  }
}

/**
 * After a DELETE answered 404 or 410 (GONE_STATUSES): the object counts as gone only once a read by id answers one
 * of them too, since an answer is never proof of absence by itself (DESIGN section 2); a read that answers nothing
 * (undefined: a project marked archived, ProjectsClient.find) is gone too. While the read still shows it,
 * `unconfirmed` is thrown and the caller keeps it in state; a read that fails otherwise is thrown as it is (unknown
 * is not gone either).
 */
export async function confirmGone(
  read: () => Promise<unknown>,
  unconfirmed: () => ScrapeformError,
): Promise<void> {
  if ((await unlessGone(read)) === undefined) return;
  throw unconfirmed();
}

export function noteCall(
  ctx: HandlerContext,
  change: ResourceChange,
  result: ChangeResult,
  line: CallLine,
  status: number,
  more: { generates?: boolean; answer?: AppliedCall['answer']; found?: AppliedCall['found'] } = {},
): void {
  const call: AppliedCall = {
    method: line.method,
    path: line.path,
    status,
    ...(more.answer !== undefined ? { answer: more.answer } : {}),
    ...(more.found !== undefined ? { found: more.found } : {}),
  };
  result.calls.push(call);
  ctx.emit({
    type: 'call',
    address: change.address,
    ...call,
    ...(more.generates !== undefined ? { generates: more.generates } : {}),
  });
}

/**
 * A call that failed, listed with the status it got (0: no answer; a 2xx whose answer could not be read, so marked),
 * so the report lists every call sent: one refused (a 402 for credits) or one whose answer was lost (it may have
 * landed and been charged) counts for whoever audits the calls. `error` is what the change failed with: the call's
 * own ApiError, or an unconfirmed create caused by it. A call that never left (a refused connection), and a failure
 * of another call (the list before a create), add nothing. Only the result lists it: no `call` event, which would
 * read as a call that did what it asked (watch counts generations from them; `call-unanswered` tells those that may
 * have started one).
 */
export function noteFailedCall(result: ChangeResult, line: CallLine, error: unknown): void {
  const failed =
    error instanceof ScrapeformError && error.code === 'apply.create-unconfirmed' ? error.cause : error;
  if (!(failed instanceof ApiError) || failed.method !== line.method || neverSent(failed)) return;
  const unreadable = unreadableStatus(failed);
  result.calls.push({
    method: line.method,
    path: line.path,
    status: unreadable ?? failed.status,
    ...(unreadable !== undefined ? { answer: 'unreadable' as const } : {}),
  });
}

/**
 * A create's POST to `path`: its 201, or, when its answer did not give the object (createOnce), the status it got
 * (with what its answer was when the status does not say it) and how the object was found, so the report never
 * shows a 201 the service did not send, nor a 201 that gave nothing without saying so.
 */
export function noteCreate(
  ctx: HandlerContext,
  change: ResourceChange,
  result: ChangeResult,
  path: string,
  recovered: Recovered | undefined,
): void {
  noteCall(ctx, change, result, { method: 'POST', path }, recovered?.status ?? 201, recovered);
}

/** A warning in the result, and as an event while apply runs: something the user should know that fails nothing. */
export function warn(
  change: ResourceChange,
  result: ChangeResult,
  ctx: HandlerContext,
  message: string,
): void {
  (result.warnings ??= []).push(message);
  ctx.emit({ type: 'warning', address: change.address, message });
}

/** Ctrl-C came: no new call. `message` says where it stopped (before a call, by default). */
export function abortIfInterrupted(
  ctx: HandlerContext,
  message = 'interrupted before this call; state holds what was done',
): void {
  if (ctx.options.signal?.aborted === true)
    throw new ScrapeformError('apply.interrupted', message, { status: 'error' });
}
