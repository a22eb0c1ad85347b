import type { LiveParserSummary, LiveProject } from '../api/live.js';
import type { DesiredParser, DesiredProject } from '../model/desired.js';
import type { State } from '../state/model.js';
import type { LiveSnapshot } from './model.js';
import { managedIds } from './plan-context.js';
import { planMoves } from './plan-moves.js';
import { recoverIntents } from './recover-intents.js';

/**
 * Live objects state does not manage and no plan would adopt: scrapeform never touches them
 * (`plan --show-unmanaged`). An object sharing the name of a managed one is listed (it is not adopted: the name is
 * taken), so a duplicate is never hidden; an object whose name a manifest declares for an address state does not
 * hold yet (nor a `moved:` hint moves state to) is the one the plan adopts, and is not. The objects are returned as
 * the services list them: their names are the services', so renderUnmanaged (output/) makes them printable.
 */
export function listUnmanaged(
  live: LiveSnapshot,
  rawState: State,
  desired: { parsers: readonly DesiredParser[]; projects: readonly DesiredProject[] },
): { parsers: LiveParserSummary[]; projects: LiveProject[] } {
  // State as the plan reads it: a `moved:` hint's object is at its new address, so that name is not one to adopt.
  const state = planMoves(recoverIntents(rawState, live).state, [
    ...desired.parsers,
    ...desired.projects,
  ]).state;
  const managed = managedIds(state);
  const toAdopt = (list: readonly (DesiredParser | DesiredProject)[]): Set<string> =>
    new Set(list.filter((d) => state.resources[d.address] === undefined).map((d) => d.name));
  const parserNames = toAdopt(desired.parsers);
  const projectNames = toAdopt(desired.projects);
  return {
    parsers: live.parsers.filter((p) => !managed.parsers.has(p.id) && !parserNames.has(p.name)),
    projects: live.projects.filter((p) => !managed.projects.has(p.id) && !projectNames.has(p.name ?? '')),
  };
}
