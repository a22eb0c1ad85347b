import { ApiError } from '../api/api-error.js';
import type { LiveParserSummary } from '../api/live.js';
import { failureReason, parserStatusKind } from '../api/parser-status.js';
import { ScrapeformError } from '../errors.js';
import { postsNewObject } from '../plan/model.js';
import type { ResourceChange } from '../plan/model.js';
import { failureOf, withoutPending } from '../state/model.js';
import type { ParserDefinition, ParserState } from '../state/model.js';
import { abortIfInterrupted, warn } from './apply-context.js';
import type { HandlerContext } from './apply-context.js';
import type { ChangeResult } from './apply-model.js';
import { lastLookUnanswered, LookGivenUp, waitCutoff } from './look-cutoff.js';
import type { LookCutoff } from './look-cutoff.js';
import { sameParserDefinition } from '../plan/parser-definition.js';

/** Common causes of a FAILED generation (seed 1, States and transitions). */
export const FAILED_GENERATION_CAUSES =
  'example URLs inaccessible or blocked; example URLs of different page types; a domain that needs JavaScript rendering without render set in scraper_params';

/**
 * The first look at a new generation, and the shortest time between two looks of the cadence (`pollMinMs`); only
 * fine looks near a predicted finish come closer (FINE_LOOK_MIN_MS).
 */
export const DEFAULT_POLL_MIN_MS = 250;
/** The longest time between two looks at one generation (`pollMaxMs`). */
export const DEFAULT_POLL_MAX_MS = 15_000;
/**
 * The next look comes after this share of the time already waited: a finish is seen at most ~5% late. Looks are
 * cheap because one list call serves every waiting parser (GenerationPoller), so they can be this frequent.
 */
const POLL_GROWTH = 0.05;

/** What to do after a wait that ended with the version still working: it is pending in state. */
const WAIT_TIMEOUT_HINT =
  'the calls were made and recorded; run plan later to see it finish, or raise --wait-timeout';

/** The version of a parser to wait for, and the definition state records once it is FINISHED. */
export interface Generation {
  id: string;
  version: number;
  definition: ParserDefinition;
}

/** What a look at one version found: its status and error, or nothing when the list does not show it. */
interface Sighting {
  status: string;
  error: string | null;
}

/**
 * A look that did not find the version: its details answered 404, or answered for another version (a service that
 * ignores the version asked for and answers its latest, the old one): `answered` is that version.
 */
interface Unseen {
  answered?: number;
}

/**
 * Polls the version until it leaves GENERATING (the first look after `pollMinMs`, then every twentieth of the time
 * already waited, up to `pollMaxMs`, and once generations of this apply have finished, every fine gap around the
 * time the shortest of them took: GenerationPoller), records the outcome in state, and throws for FAILED (with the
 * service's error and its usual causes) unless `throwOnFailure` is false. The last look is at the deadline, never
 * before it.
 *
 * While it waits it holds no call slot (`--concurrency` counts calls in flight, not generations): its looks take
 * one each, and it takes one again before it returns to its handler, ahead of changes not yet started.
 */
export async function waitForGeneration(
  change: ResourceChange,
  result: ChangeResult,
  ctx: HandlerContext,
  generation: Generation,
  throwOnFailure = true,
): Promise<string> {
  const { id, version, definition } = generation;
  const min = ctx.options.pollMinMs ?? DEFAULT_POLL_MIN_MS;
  const max = Math.max(min, ctx.options.pollMaxMs ?? DEFAULT_POLL_MAX_MS);
  const started = ctx.now();
  const waitMs = ctx.options.waitTimeoutMs ?? 15 * 60_000;
  const deadline = started + waitMs;
  // The look made at the deadline gets one request try; one still in flight then is given up (LookCutoff).
  // Ctrl-C, or a state write that failed (nothing the wait would see can be recorded), ends the wait.
  const stop =
    ctx.options.signal === undefined
      ? ctx.store.failedSignal
      : AbortSignal.any([ctx.options.signal, ctx.store.failedSignal]);
  const { cut, lastLookMs } = waitCutoff(waitMs, ctx.clients.timeoutMs, ctx.options, stop);
  let delay = min;
  let last = '';
  let seen: Sighting | Unseen | undefined;
  let warned = false;
  let unseenWarned = false;
  ctx.calls.give();
  ctx.waiting?.(change);
  try {
    // An update's or a replace's version is recorded as pending on disk before the long wait (a replace deletes
    // the old parser after it). A create needs no write of its own here: its intent was on disk before its POST,
    // so a run killed now finds it by name, and the record is written in the next coalesced write (50 ms); the
    // write here made every create of a wave of short generations queue behind the others' (bench/scale.js).
    if (change.action !== 'create') await ctx.store.durable();
    // Ctrl-C stops the wait; state already records the version as pending. The call that started the generation
    // was answered, so this says so (not "before this call": nothing would seem made, the generation paid for).
    const stopped = `interrupted while version ${version} of parser ${id} was generating: state records it as pending, and the next apply waits for it (no new generation) and finishes the change`;
    const unanswered = (): ScrapeformError =>
      givenUpAtCut(change, generation, ctx.now() - started, lastLookMs, seen);
    // Ctrl-C first, then a state write that failed: either ends the wait.
    const endIfStopped = (): void => {
      abortIfInterrupted(ctx, stopped);
      stopIfStateFailed(ctx, id, version);
    };
    for (;;) {
      endIfStopped();
      const due = Math.min(ctx.now() + delay, deadline);
      const listed = await ctx.poller.look(id, version, due, started, cut.signal);
      endIfStopped();
      try {
        // A look given up at the cut answers undefined, and its details are not read (sightingOf).
        seen = await sightingOf(ctx, generation, listed, cut);
      } catch (error) {
        // A read given up at the cut: the service did not answer in time (unless Ctrl-C came too, which wins, or
        // a state write failed).
        if (error instanceof LookGivenUp) {
          endIfStopped();
          throw unanswered();
        }
        throw error;
      }
      if (!('status' in seen)) {
        // Not visible yet: a service read from replicas may answer 404 for what it just made (DESIGN section 2: an
        // answer is never proof of absence by itself). Looked at again until the deadline, as a generation is.
        if (!unseenWarned) {
          unseenWarned = true;
          warn(change, result, ctx, notVisibleYet(id, version, seen.answered));
        }
        if (ctx.now() >= deadline)
          throw notVisibleAfter(change, id, version, ctx.now() - started, seen.answered);
        delay = nextDelay(ctx.now() - started, min, max);
        continue;
      }
      if (seen.status === 'FINISHED') ctx.poller.finished(ctx.now() - started);
      if (seen.status !== last) {
        last = seen.status;
        ctx.emit({
          type: 'generation',
          address: change.address,
          id,
          version,
          status: seen.status,
          elapsedMs: ctx.now() - started,
        });
      }
      // Only FINISHED and FAILED end the wait; any other status is the service still at work (issue 13).
      if (parserStatusKind(seen.status) !== 'working') break;
      if (seen.status !== 'GENERATING' && !warned) {
        warned = true;
        warnUnknownStatus(change, result, ctx, version, seen.status);
      }
      if (ctx.now() >= deadline) {
        throw new ScrapeformError(
          'apply.wait-timeout',
          `${change.address}: version ${version} still ${seen.status} after ${Math.round((ctx.now() - started) / 1000)}s`,
          { hint: WAIT_TIMEOUT_HINT },
        );
      }
      delay = nextDelay(ctx.now() - started, min, max);
    }
  } finally {
    cut.cancel();
    await ctx.calls.take(true);
  }
  const outcome = seen as Sighting;
  result.version = version;
  result.status = outcome.status;
  await ctx.store.commit((state) => {
    const current = state.resources[change.address];
    if (current?.kind !== 'Parser') return;
    if (outcome.status === 'FINISHED') {
      state.resources[change.address] = {
        ...withoutPending(current),
        version,
        definition,
        descriptionsKnown: true,
      };
      delete (state.resources[change.address] as ParserState).failed;
    } else {
      state.resources[change.address] = {
        ...withoutPending(current),
        failed: failureOf(
          current.failed,
          version,
          failureReason(outcome.error),
          definition,
          sameParserDefinition,
        ),
      };
    }
  });
  if (outcome.status !== 'FINISHED') {
    result.error = {
      code: 'apply.generation-failed',
      message: `version ${version} FAILED: ${failureReason(outcome.error)}`,
    };
    if (throwOnFailure) {
      throw new ScrapeformError(
        'apply.generation-failed',
        `${change.address}: version ${version} FAILED: ${failureReason(outcome.error)}`,
        {
          hint: `common causes: ${FAILED_GENERATION_CAUSES}`,
        },
      );
    }
  }
  return outcome.status;
}

/**
 * The version's status from the list when the list shows that very version; otherwise (a list that lags behind a
 * create or a PATCH, a newer version made by someone else, a single waiter) from its details. A FAILED version the
 * list gives no error for is read in full too, for its error.
 */
async function sightingOf(
  ctx: HandlerContext,
  generation: Generation,
  listed: LiveParserSummary | undefined,
  cut: LookCutoff,
): Promise<Sighting | Unseen> {
  const { id, version } = generation;
  if (listed !== undefined && listed.version === version) {
    const error = listed.error ?? null;
    if (!(listed.status === 'FAILED' && error === null)) return { status: listed.status, error };
  }
  try {
    // The cut's signal aborts on Ctrl-C too, as the interrupt alone did; a read whose permit comes after the cut
    // is not sent.
    const details = await cut.bound(
      ctx.calls.with(
        () =>
          cut.signal.aborted
            ? Promise.reject(new LookGivenUp())
            : // The wait needs the status and the version only: details that say FINISHED but leave the fields
              // out ended the apply with api.bad-response, though the generation had finished (the next plan reads
              // the fields, and requires them, before it plans from them).
              ctx.clients.parsers.get(id, version, cut.signal, { fieldsUnread: true }),
        true,
      ),
    );
    // Details of another version say nothing of this one: their FINISHED would end the wait on a version that may
    // still fail.
    if (details.version !== version) return { answered: details.version };
    return { status: details.status, error: details.error };
  } catch (error) {
    // The version this apply just made (a create's or a PATCH's): a 404 means "not visible yet", not "gone".
    if (error instanceof ApiError && error.status === 404) return {};
    throw error;
  }
}

/** The next gap between two looks: a twentieth of the time already waited, within the bounds. */
function nextDelay(waited: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.round(waited * POLL_GROWTH)));
}

function notVisibleYet(id: string, version: number, answered: number | undefined): string {
  return `version ${version} of ${id} is not found yet (${answered === undefined ? 'the service answers 404 right after it was made' : `its details answer for version ${answered}`}): read as not visible yet, waiting for it`;
}

/**
 * The end of a wait whose version the service never showed: the call that made it was answered, so state keeps
 * the parser (with the version pending), and the next plan neither drops it nor creates it again on a 404 alone.
 */
function notVisibleAfter(
  change: ResourceChange,
  id: string,
  version: number,
  waited: number,
  answered: number | undefined,
): ScrapeformError {
  const how = answered === undefined ? 'answers 404 for it' : `answers for version ${answered} instead`;
  return new ScrapeformError(
    'apply.wait-timeout',
    `${change.address}: version ${version} of ${id} was made but the service still ${how} after ${Math.round(waited / 1000)}s (not visible yet)`,
    {
      hint: `the call that made it was answered and recorded: state keeps it, pending. Run plan later to see it appear and finish, or raise --wait-timeout${postsNewObject(change) ? `; plan does not create it again while the service answers 404 for it unless you pass --recreate ${change.address} (after checking the service that it does not exist)` : ''}`,
    },
  );
}

/**
 * The end of a wait whose last look the service did not answer within one request try of the deadline, told
 * from what the looks before it saw. The next step is a wait-timeout's: the version is pending in state, and one
 * the service answered 404 for is kept as not visible yet (notVisibleAfter's hint).
 */
function givenUpAtCut(
  change: ResourceChange,
  generation: Generation,
  waited: number,
  lastLookMs: number,
  seen: Sighting | Unseen | undefined,
): ScrapeformError {
  const { id, version } = generation;
  const given = lastLookUnanswered(lastLookMs, waited);
  if (seen === undefined || 'status' in seen) {
    const last =
      seen === undefined
        ? `version ${version} of ${id} was made, and no look at it was answered`
        : `version ${version} was still ${seen.status} when last seen`;
    return new ScrapeformError('apply.wait-timeout', `${change.address}: ${last}: ${given}`, {
      hint: WAIT_TIMEOUT_HINT,
    });
  }
  const how = seen.answered === undefined ? '404' : `for version ${seen.answered}`;
  const notYet = notVisibleAfter(change, id, version, waited, seen.answered);
  return new ScrapeformError(
    'apply.wait-timeout',
    `${change.address}: version ${version} of ${id} was made, and looks at it were answered ${how} so far (not visible yet): ${given}`,
    notYet.hint !== undefined ? { hint: notYet.hint } : {},
  );
}

/** Warns once per wait about a status scrapeform does not know: in the result, and as an event while it runs. */
function warnUnknownStatus(
  change: ResourceChange,
  result: ChangeResult,
  ctx: HandlerContext,
  version: number,
  status: string,
): void {
  warn(
    change,
    result,
    ctx,
    `version ${version} reports status "${status}", which scrapeform does not know; read as still working, waiting for FINISHED or FAILED`,
  );
}

/**
 * A state write failed while the generation ran: the wait ends at once, since nothing it would see can be recorded,
 * and the run's error names what was sent and not recorded (unrecorded-calls.ts). The generation goes on at the
 * service; the next apply reads it again.
 */
function stopIfStateFailed(ctx: HandlerContext, id: string, version: number): void {
  const failure = ctx.store.failed;
  if (failure === undefined) return;
  throw new ScrapeformError(
    failure instanceof ScrapeformError ? failure.code : 'state.io',
    `not waited for: state could not be written while version ${version} of parser ${id} was generating`,
    { status: 'error' },
  );
}
