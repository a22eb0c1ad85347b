import type { ParserState, ProjectState, State } from '../state/model.js';
import { needsForget } from './approval.js';
import { UNSEEN_REASON } from './model.js';
import type { ResourceChange } from './model.js';
import type { Context } from './plan-context.js';

/**
 * The reason of the create again of an object this state created and has not seen live since, which the service
 * now answers 404 for; undefined for one seen live since (a 404 then means it is gone: created again, as drift).
 *
 * A service may answer 404 for an object a moment after its create (a read from a replica that has not caught up;
 * DESIGN section 2: an answer is never proof of absence by itself). Taking that one answer as a deletion sends
 * the create a second time: a duplicate, a parser's at the price of a generation, a project's perhaps with a paid
 * run (`scheduledAt: now`). So, as for an unconfirmed create, the plan says why in a warning and apply sends it
 * only with `--recreate ADDRESS` (approval.ts). Not seen since means: a parser with no version ever seen FINISHED
 * and its create's version still pending; a project still marked `unseenSince` (cleared by the first list or read
 * that shows it, refresh-state.ts).
 */
export function unseenSinceCreate(
  ctx: Context,
  address: string,
  recorded: ParserState | ProjectState,
): string | undefined {
  const story = unseenStory(recorded);
  if (story === undefined) return undefined;
  ctx.warnings.push(
    `${address}: ${story}; the service answers 404 for it, which so soon after a create may only mean it is not visible yet: apply refuses to create it again without --recreate ${address} (check the service first: if it exists, that makes a duplicate)`,
  );
  return `${UNSEEN_REASON} ${story}, and the service answers 404 for it (it may not be visible yet); apply creates it again only with --recreate ${address}`;
}

/**
 * How an object this state created and has not seen live since came to be (see unseenSinceCreate), or undefined
 * for one seen since. `drift` reads it too: such an object answering 404 is reported as deleted or not visible
 * yet, and `drift --accept` does not drop it from state.
 */
export function unseenStory(recorded: ParserState | ProjectState): string | undefined {
  if (recorded.kind === 'Parser') {
    if (recorded.version !== null || recorded.pending === undefined) return undefined;
    return `parser ${recorded.id} was created by scrapeform and never seen FINISHED since`;
  }
  if (recorded.unseenSince === undefined) return undefined;
  return `project ${recorded.id} was created by scrapeform at ${recorded.unseenSince} and no list or read has shown it since`;
}

/**
 * The forget (no manifest declares it any more) of an object this state created and has not seen live since, which
 * the service answers 404 for: it may only not be visible yet, and then it runs on (a project on its schedule,
 * paid per page) with nothing managing it once dropped from state. It says so first, and in a warning: apply drops
 * it only with `--forget` for its address (approval.ts). One already held back (none shown) keeps that reason.
 */
export function unseenForget(change: ResourceChange, state: State, warnings: string[]): ResourceChange {
  if (change.action !== 'forget' || needsForget(change)) return change;
  const recorded = state.resources[change.address];
  const story = recorded !== undefined ? unseenStory(recorded) : undefined;
  if (story === undefined) return change;
  warnings.push(
    `${change.address}: ${story}; no manifest declares it any more, and the service answers 404 for it, which so soon after a create may only mean it is not visible yet: apply refuses to drop it from state without --forget ${change.address} (check the service first: if it exists, archive or delete it there, or declare it again)`,
  );
  const reason = `${UNSEEN_REASON} ${story}, and the service answers 404 for it (it may not be visible yet); apply drops it from state only with --forget ${change.address}`;
  return { ...change, reasons: [reason, ...change.reasons] };
}
