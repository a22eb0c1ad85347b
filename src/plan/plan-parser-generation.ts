import type { ParserDefinition, ParserFailure } from '../state/model.js';
import { sameParserDefinition } from './parser-definition.js';
import type { Context } from './plan-context.js';

/** "still generating", naming a status scrapeform does not know (read as still working, issue 13). */
export function stillGenerating(status: string): string {
  return status === 'GENERATING' ? 'still generating' : `still generating (status ${status})`;
}

/**
 * A definition that FAILED twice in a row is not tried again by a plan on its own: each try costs a generation,
 * and a plan that always has this retry would keep `plan --detailed-exitcode` at 2 for ever. A changed manifest,
 * or `--reassert ADDR`, tries again.
 */
export function retriedEnough(
  ctx: Context,
  address: string,
  failed: ParserFailure,
  wanted: ParserDefinition,
): boolean {
  if ((failed.attempts ?? 1) < 2 || failed.definition === undefined) return false;
  if (!sameParserDefinition(failed.definition, wanted) || ctx.reassert.includes(address)) return false;
  ctx.warnings.push(
    `${address}: version ${failed.version} FAILED ${failed.attempts ?? 2} times with the definition the manifests ask for (${failed.error}); not retried again by itself: fix the manifest, or try once more with --reassert ${address}`,
  );
  return true;
}
