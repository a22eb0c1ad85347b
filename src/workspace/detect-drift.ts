import type { ApiClients } from '../api/create-clients.js';
import { ScrapeformError } from '../errors.js';
import type { LiveParserDetails, LiveParserSummary, LiveProject } from '../api/live.js';
import type { LoadedManifests } from '../manifest/load-manifests.js';
import { READ_CONCURRENCY } from '../model/vocabulary.js';
import { detectDrift, driftReadsNeeded } from '../plan/drift.js';
import type { DriftReport } from '../plan/drift.js';
import type { LiveSnapshot } from '../plan/model.js';
import type { State } from '../state/model.js';
import { readUnlessInterrupted } from '../state/interruptible-state.js';
import { forEachLimited } from '../worker-pool.js';
import type { Services } from './open-workspace.js';
import { unlessGone } from '../api/unless-status.js';
import { fieldlessOf, readNullsAgain, servicesUsed, summaryOf } from './read-live.js';
import { acceptRefusals, withAcceptRefusals } from './accept-checks.js';
import { keyChanged } from '../state/state-account.js';

export interface DetectDriftOptions {
  /** Only these addresses; all that state manages when empty. */
  targets?: readonly string[];
  /**
   * When given, `lifecycle.ignore_changes` of a project's manifest keeps those keys out of drift, and what
   * `drift --accept` would refuse to edit in them is reported as not possible to accept (acceptRefusals).
   */
  manifests?: LoadedManifests;
  signal?: AbortSignal;
}

export interface DetectedDrift {
  state: State;
  live: LiveSnapshot;
  report: DriftReport;
}

/**
 * Compares what the services hold with what state records (not the manifests): the two lists, the details of
 * versions that moved, and a look by id at every managed object a list leaves out (an absence from a list is not
 * proof of a delete). Reads only: no lock, no write.
 */
export async function detectWorkspaceDrift(
  services: Pick<Services, 'clients' | 'backend'>,
  options: DetectDriftOptions = {},
): Promise<DetectedDrift> {
  // watch's Ctrl-C ends a read that a state database never answers (readUnlessInterrupted).
  const state = await readUnlessInterrupted(services.backend, options.signal);
  const unknown = (options.targets ?? []).filter((t) => state.resources[t] === undefined);
  if (unknown.length > 0) {
    throw new ScrapeformError(
      'drift.unknown-address',
      `--target ${unknown.join(', ')}: state does not manage ${unknown.length === 1 ? 'it' : 'them'}, so there is no drift to see`,
      {
        hint: `drift compares live objects with state; managed: ${Object.keys(state.resources).sort().slice(0, 10).join(', ') || 'none'}`,
        details: { unknown },
      },
    );
  }
  const ignored = Object.fromEntries(
    (options.manifests?.projects ?? []).map((p) => [p.address, p.ignoreChanges as readonly string[]]),
  );
  const live = await readLiveForDrift(services.clients, state, options.signal, ignored);
  const found = detectDrift({
    state,
    live,
    keyChanged: keyChanged(state, services.clients.accountDigest),
    ignored,
    ...(options.targets !== undefined ? { targets: options.targets } : {}),
    ...(options.manifests?.narrowedTo !== undefined ? { narrowedTo: options.manifests.narrowedTo } : {}),
  });
  // What --accept would refuse is not possible in the report either (the same checks, one function).
  const report =
    options.manifests !== undefined
      ? withAcceptRefusals(found, await acceptRefusals(options.manifests, found, state))
      : found;
  return { state, live, report };
}

async function readLiveForDrift(
  clients: ApiClients,
  state: State,
  signal: AbortSignal | undefined,
  ignored: Readonly<Record<string, readonly string[]>>,
): Promise<LiveSnapshot> {
  // Only the services state records objects of are called (issue 13: a key may reach one service only).
  const used = servicesUsed({ parsers: [], projects: [] }, state);
  const fieldless = fieldlessOf(state);
  const [listed, listedProjects] = await Promise.all([
    used.parsers ? clients.parsers.list(signal) : Promise.resolve([]),
    used.projects ? clients.projects.list(signal) : Promise.resolve([]),
  ]);
  const parsers: LiveParserSummary[] = [...listed];
  const projects: LiveProject[] = [...listedProjects];
  await readNullsAgain(clients, projects, [], state, signal, undefined, ignored);
  const parserIds = new Set(parsers.map((p) => p.id));
  const projectIds = new Set(projects.map((p) => p.id));
  const missing = Object.values(state.resources).filter((r) =>
    r.kind === 'Parser' ? !parserIds.has(r.id) : !projectIds.has(r.id),
  );
  await forEachLimited(missing, READ_CONCURRENCY, async (resource) => {
    if (resource.kind === 'Parser') {
      const found = await unlessGone(() =>
        clients.parsers.get(resource.id, undefined, signal, { fieldless: fieldless(resource.id) }),
      );
      if (found !== undefined) parsers.push(summaryOf(found));
    } else {
      const found = await clients.projects.find(resource.id, signal);
      if (found !== undefined) projects.push(found);
    }
  });
  const reads = driftReadsNeeded(state, parsers);
  const details: Record<string, LiveParserDetails> = {};
  const listedById = new Map(parsers.map((p) => [p.id, p]));
  await forEachLimited(reads.details, READ_CONCURRENCY, async (id) => {
    const summary = listedById.get(id);
    details[id] = await clients.parsers.get(id, undefined, signal, {
      fieldless: fieldless(id),
      ...(summary !== undefined ? { version: summary.version, name: summary.name } : {}),
    });
  });
  const previous: Record<string, LiveParserDetails> = {};
  await forEachLimited(reads.previous, READ_CONCURRENCY, async (ref) => {
    // Only a hint to tell a rename: an old version the service no longer answers for leaves it untold.
    const read = await clients.parsers
      .get(ref.id, ref.version, signal, { fieldless: fieldless(ref.id) })
      .catch(() => undefined);
    if (read !== undefined) previous[ref.id] = read;
  });
  return { parsers, details, projects, previous };
}
