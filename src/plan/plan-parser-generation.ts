import type { ParserDefinition, ParserFailure } from '../state/model.js';
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
