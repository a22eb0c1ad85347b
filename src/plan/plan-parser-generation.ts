import { failureReason, parserStatusKind } from '../api/parser-status.js';
import { failureOf } from '../state/model.js';
import type { ParserDefinition, ParserFailure, ParserState } from '../state/model.js';
import { sameParserDefinition } from './parser-definition.js';
import type { Context } from './plan-context.js';

/**
 * How the warnings of a parser held back end: a version still generating (plan-parser.ts, plan-parser-adoption.ts)
 * and a definition that FAILED twice; output/render-plan.ts finds such parsers in a plan by them.
 */
export const STILL_GENERATING_ENDING = '; plan again once it';
export const NOT_RETRIED_ENDING = '; not retried again by itself:';

/** "still generating", naming a status scrapeform does not know (read as still working, issue 13). */
export function stillGenerating(status: string): string {
  return status === 'GENERATING' ? 'still generating' : `still generating (status ${status})`;
}

/**
 * A definition that FAILED twice in a row is not tried again by a plan on its own: each try costs a generation,
 * and a plan that always has this retry would keep `plan --detailed-exitcode` at 2 for ever. A changed manifest,
 * or `--reassert ADDR`, tries again. The same holds for a replace whose new parser FAILED (apply records it on the
 * old parser, which stays): each try is a new parser.
 */
export function retriedEnough(
  ctx: Context,
  address: string,
  failed: ParserFailure | undefined,
  wanted: ParserDefinition,
): boolean {
  if (failed === undefined || (failed.attempts ?? 1) < 2 || failed.definition === undefined) return false;
  if (!sameParserDefinition(failed.definition, wanted) || ctx.reassert.includes(address)) return false;
  ctx.warnings.push(
    `${address}: version ${failed.version} FAILED ${failed.attempts ?? 2} times with the definition the manifests ask for (${failed.error})${NOT_RETRIED_ENDING} fix the manifest, or try once more with --reassert ${address}`,
  );
  return true;
}

/**
 * The failures of a parser counted so far: state's, and its pending version when the service now shows that one
 * FAILED. apply records a failure it waits for (wait-for-generation.ts), but not one of a version it did not see end
 * (`--no-wait`, a wait that timed out, a killed run): uncounted, every such apply retried the same definition, each
 * try paying a generation, past the two tries retriedEnough allows. Counted here as apply counts one, and recorded
 * so by refreshState before apply's calls. State's own failure when the pending version is not shown FAILED. The
 * count of a replace carries from one new parser to the next (parser-handlers.ts): each is a try, 30,000 credits.
 */
export function failuresSoFar(
  recorded: ParserState,
  live: { version: number; status: string; error?: string | null | undefined },
): ParserFailure | undefined {
  const { pending, failed } = recorded;
  if (pending === undefined || live.version !== pending.version || parserStatusKind(live.status) !== 'failed')
    return failed;
  // A pending version is never counted yet: whoever counts its failure drops it (apply's wait, refreshState). Not
  // told by its number: every new parser of a replace is at version 0, and a failure carried from the one before
  // (parser-handlers.ts) would read as this one's, each new parser then starting again at one try.
  return failureOf(
    failed,
    pending.version,
    failureReason(live.error),
    pending.definition,
    sameParserDefinition,
  );
}
