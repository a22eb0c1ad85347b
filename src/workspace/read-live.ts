import type { ApiClients } from '../api/create-clients.js';
import type { LiveParserDetails } from '../api/live.js';
import type { DesiredParser } from '../model/desired.js';
import { READ_CONCURRENCY } from '../model/vocabulary.js';
import { detailsNeeded } from '../plan/build-plan.js';
import { previousVersionsNeeded } from '../plan/drift.js';
import type { LiveSnapshot } from '../plan/model.js';
import type { State } from '../state/model.js';
import { forEachLimited } from '../worker-pool.js';

/**
 * Reads the live services with the fewest calls: one list per service, then a parser's details only where the
 * planner needs them (adoption, or a version that moved). An unchanged workspace of any size is two calls.
 */
export async function readLive(
  clients: ApiClients,
  parsers: readonly DesiredParser[],
  state: State,
  signal?: AbortSignal,
): Promise<LiveSnapshot> {
  const [parserList, projects] = await Promise.all([
    clients.parsers.list(signal),
    clients.projects.list(signal),
  ]);
  const ids = detailsNeeded(parsers, state, parserList);
  const details: Record<string, LiveParserDetails> = {};
  const listed = new Map(parserList.map((p) => [p.id, p]));
  await forEachLimited(ids, READ_CONCURRENCY, async (id) => {
    // What the list said is the fallback for details that leave out their version or name (API-NOTES).
    const summary = listed.get(id);
    details[id] = await clients.parsers.get(id, undefined, signal, {
      ...(summary !== undefined ? { version: summary.version, name: summary.name } : {}),
    });
  });
  // Where a version moved one step outside scrapeform, the recorded version too: it tells a rename made by hand.
  const previous: Record<string, LiveParserDetails> = {};
  await forEachLimited(previousVersionsNeeded(state, parserList, ids), READ_CONCURRENCY, async (ref) => {
    // Only a hint: a service that no longer answers for an old version leaves the rename untold, as before.
    const read = await clients.parsers.get(ref.id, ref.version, signal).catch(() => undefined);
    if (read !== undefined) previous[ref.id] = read;
  });
  return {
    parsers: parserList,
    details,
    projects,
    ...(Object.keys(previous).length > 0 ? { previous } : {}),
  };
}
