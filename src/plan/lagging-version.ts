import type { LiveParserDetails, LiveParserSummary } from '../api/live.js';
import type { ParserState } from '../state/model.js';

/**
 * The highest version of a parser that state records as existing: the recorded one (seen FINISHED, or answered
 * ready at once by a PATCH's 200: renames, removes, description edits) and one seen FAILED. A pending version is
 * only announced; a list or details not showing it yet is unconfirmedPatches' case (build-plan.ts).
 */
function versionStateSaw(recorded: ParserState): number | undefined {
  const saw = Math.max(recorded.version ?? -1, recorded.failed?.version ?? -1);
  return saw >= 0 ? saw : undefined;
}

/**
 * Versions only go up: a service showing a parser below a version state records as existing answers from a replica
 * lagging behind, and an answer is never proof by itself (DESIGN). It is neither a change made outside scrapeform
 * (drift) nor a version to base a PATCH on (which would drop what the newer one changed, and may pay a
 * regeneration for it). Says why for a warning, with the version to wait for; undefined when the version is not
 * below one state saw.
 */
export function laggingVersion(
  recorded: ParserState,
  liveVersion: number,
): { story: string; awaited: number } | undefined {
  const saw = versionStateSaw(recorded);
  if (saw === undefined || liveVersion >= saw) return undefined;
  return {
    story: `the service shows version ${liveVersion} of parser ${recorded.id}, below version ${saw} that state records (versions only go up: an answer lagging behind, not a change made outside scrapeform)`,
    awaited: saw,
  };
}

/** How the plan's warning of a lagging parser ends; the summary line counts the warnings that say it. */
const NOTHING_PLANNED = '; nothing is planned for it until the service shows version';

/** The plan's warning for a parser whose live version lags behind state (plan-parser.ts). */
export function lagWarning(address: string, lag: { story: string; awaited: number }): string {
  return `${address}: ${lag.story}${NOTHING_PLANNED} ${lag.awaited} again`;
}

/**
 * How many parsers a plan holds back because the service shows them below a version state records: the plan says
 * no change for them, which is not that they are in line (render-plan.ts, summarisePlan).
 */
export function laggingParsers(warnings: readonly string[]): number {
  return warnings.filter((w) => w.includes(NOTHING_PLANNED)).length;
}

/**
 * Details of a parser below the version its list shows: a replica lagging behind the list (a PATCH made outside
 * scrapeform, or by another run, that the details do not show yet). Planned from, they would show the parser moved
 * to an older version, and base a PATCH on it that adds again what the newer version may already have, at the
 * price of a regeneration. readLive reads the listed version by its number first; details still below it hold the
 * parser back with the warning pushed here. True when nothing is to be planned for it.
 */
export function detailsBehind(
  warnings: string[],
  address: string,
  live: LiveParserSummary,
  details: LiveParserDetails | undefined,
): boolean {
  const lag = detailsLag(live, details);
  if (lag === undefined) return false;
  warnings.push(lagWarning(address, lag));
  return true;
}

/** Why details below the version the list shows lag behind it (plan: detailsBehind; drift: parser-drift.ts). */
export function detailsLag(
  live: LiveParserSummary,
  details: LiveParserDetails | undefined,
): { story: string; awaited: number } | undefined {
  if (details === undefined || details.version >= live.version) return undefined;
  return {
    story: `the details of parser ${live.id} answer for version ${details.version}, below version ${live.version} that its list shows (versions only go up: an answer lagging behind, not a change made outside scrapeform)`,
    awaited: live.version,
  };
}
