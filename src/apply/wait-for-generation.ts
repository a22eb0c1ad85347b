import type { LiveParserDetails } from '../api/live.js';
import { parserStatusKind } from '../api/parser-status.js';
import { ScrapeformError } from '../errors.js';
import type { ResourceChange } from '../plan/model.js';
import { failureOf } from '../state/model.js';
import type { ParserDefinition, ParserState } from '../state/model.js';
import { abortIfInterrupted } from './apply-context.js';
import type { HandlerContext } from './apply-context.js';
import type { ChangeResult } from './apply-plan.js';

/** Common causes of a FAILED generation (seed 1, States and transitions). */
export const FAILED_GENERATION_CAUSES =
  'example URLs inaccessible or blocked; example URLs of different page types; a domain that needs JavaScript rendering without render set in scraper_params';

/** The version of a parser to wait for, and the definition state records once it is FINISHED. */
export interface Generation {
  id: string;
  version: number;
  definition: ParserDefinition;
}

/**
 * Polls the version until it leaves GENERATING (every 1 s at first, growing to 15 s), records the outcome in state, and throws
 * for FAILED (with the service's error and its usual causes) unless `throwOnFailure` is false.
 */
export async function waitForGeneration(
  change: ResourceChange,
  result: ChangeResult,
  ctx: HandlerContext,
  generation: Generation,
  throwOnFailure = true,
): Promise<string> {
  const { id, version, definition } = generation;
  const started = ctx.now();
  const deadline = started + (ctx.options.waitTimeoutMs ?? 15 * 60_000);
  let delay = ctx.options.pollMinMs ?? 1000;
  let last = '';
  let warned = false;
  let details: LiveParserDetails;
  for (;;) {
    // Ctrl-C stops the wait (a poll is a new call); state already records the version as pending.
    abortIfInterrupted(ctx);
    details = await ctx.clients.parsers.get(id, version);
    if (details.status !== last) {
      last = details.status;
      ctx.emit({
        type: 'generation',
        address: change.address,
        id,
        version,
        status: details.status,
        elapsedMs: ctx.now() - started,
      });
    }
    // Only FINISHED and FAILED end the wait; any other status is the service still at work (issue 13).
    if (parserStatusKind(details.status) !== 'working') break;
    if (details.status !== 'GENERATING' && !warned) {
      warned = true;
      warnUnknownStatus(change, result, ctx, version, details.status);
    }
    if (ctx.now() + delay > deadline) {
      throw new ScrapeformError(
        'apply.wait-timeout',
        `${change.address}: version ${version} still ${details.status} after ${Math.round((ctx.now() - started) / 1000)}s`,
        {
          hint: 'the calls were made and recorded; run plan later to see it finish, or raise --wait-timeout',
        },
      );
    }
    await ctx.sleep(delay);
    // The next wait grows with the time already waited (a fifth of it, from 1 s up to 15 s), so a finish is
    // seen at most ~20% late: doubling waits would see a 5 s generation only after 8 s (bench/apply).
    const min = ctx.options.pollMinMs ?? 1000;
    delay = Math.min(ctx.options.pollMaxMs ?? 15_000, Math.max(min, Math.round((ctx.now() - started) * 0.2)));
  }
  result.version = version;
  result.status = details.status;
  await ctx.store.commit((state) => {
    const current = state.resources[change.address];
    if (current?.kind !== 'Parser') return;
    if (details.status === 'FINISHED') {
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
        failed: failureOf(current.failed, version, details.error ?? details.status, definition),
      };
    }
  });
  if (details.status !== 'FINISHED') {
    result.error = {
      code: 'apply.generation-failed',
      message: `version ${version} FAILED: ${details.error ?? 'no error given'}`,
    };
    if (throwOnFailure) {
      throw new ScrapeformError(
        'apply.generation-failed',
        `${change.address}: version ${version} FAILED: ${details.error ?? 'no error given'}`,
        {
          hint: `common causes: ${FAILED_GENERATION_CAUSES}`,
        },
      );
    }
  }
  return details.status;
}

/** Warns once per wait about a status scrapeform does not know: in the result, and as an event while it runs. */
function warnUnknownStatus(
  change: ResourceChange,
  result: ChangeResult,
  ctx: HandlerContext,
  version: number,
  status: string,
): void {
  const message = `version ${version} reports status "${status}", which scrapeform does not know; read as still working, waiting for FINISHED or FAILED`;
  (result.warnings ??= []).push(message);
  ctx.emit({ type: 'warning', address: change.address, message });
}

export function withoutPending(state: ParserState): ParserState {
  const { pending: _pending, ...rest } = state;
  return rest;
}
