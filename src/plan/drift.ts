import type { LiveParserSummary } from '../api/live.js';
import { narrowedSelects } from '../model/desired.js';
import type { Narrowing } from '../model/desired.js';
import type { State } from '../state/model.js';
import { DRIFT_FORMAT_VERSION, FREE } from './drift-report.js';
import type { DriftCost, DriftReport, ObjectDrift } from './drift-report.js';
import type { LiveSnapshot } from './model.js';
import { knownVersions, parserDrift } from './parser-drift.js';
import { indexLive } from './plan-context.js';
import { projectDrift } from './project-drift.js';
import { unseenStory } from './unseen-create.js';
import { vanishedKinds, vanishedStory } from './vanished.js';
import { latestVersions } from './latest-versions.js';

// The report's shape and the rename reading are public under this module's name (src/index.ts, workspace/, output/).
export type { DriftChange, DriftCost, DriftKind, DriftReport, ObjectDrift } from './drift-report.js';
export { outOfBandRenames } from './live-fields.js';

export interface DriftInput {
  state: State;
  live: LiveSnapshot;
  /** Project keys a manifest ignores (`lifecycle.ignore_changes`), by address: never drift. */
  ignored?: Readonly<Record<string, readonly string[]>>;
  /** Only these addresses; all when empty. */
  targets?: readonly string[];
  /**
   * Paths named with `--env` (loadManifests' `narrowedTo`): only the objects declared under them, as a plan
   * narrowed the same way; `--target` then picks among those.
   */
  narrowedTo?: Narrowing;
  /** The run's key is not the one that last applied this state (state-account.ts): see vanishedKinds. */
  keyChanged?: boolean;
}

/**
 * The reads drift needs beyond the two lists: the latest details of every managed parser whose version moved
 * outside scrapeform, and the recorded version's details where it moved by one step (to tell a rename).
 */
export function driftReadsNeeded(
  state: State,
  list: readonly LiveParserSummary[],
): { details: string[]; previous: { id: string; version: number }[] } {
  const byId = indexLive({ parsers: list, projects: [] }).parserById;
  const details: string[] = [];
  for (const resource of Object.values(state.resources)) {
    if (resource.kind !== 'Parser' || resource.replacing !== undefined) continue;
    const live = byId.get(resource.id);
    if (live !== undefined && !knownVersions(resource).includes(live.version)) details.push(live.id);
  }
  return { details, previous: previousVersionsNeeded(state, list, details) };
}

/**
 * Of the parsers whose latest details are read, those that moved one step past the version drift is reconciled
 * against (the one scrapeform made last: pending, else the recorded one): that version is read too. Not
 * driftBaseline: a live version that is the pending one, or below it, is no drift, and needs no older version read.
 */
export function previousVersionsNeeded(
  state: State,
  list: readonly LiveParserSummary[],
  detailIds: readonly string[],
): { id: string; version: number }[] {
  const byId = indexLive({ parsers: list, projects: [] }).parserById;
  const wanted = new Set(detailIds);
  const out: { id: string; version: number }[] = [];
  for (const resource of Object.values(state.resources)) {
    if (resource.kind !== 'Parser' || !wanted.has(resource.id)) continue;
    const baseline = resource.pending?.version ?? resource.version;
    if (baseline === null) continue;
    const live = byId.get(resource.id);
    if (live !== undefined && live.version === baseline + 1) out.push({ id: resource.id, version: baseline });
  }
  return out;
}

/**
 * Pure: what moved outside scrapeform, compared with state (not the manifests), and what going back or accepting costs.
 */
export function detectDrift(input: DriftInput): DriftReport {
  // Details newer than a list lagging behind a PATCH say where each parser is, as for plan (latest-versions.ts).
  const live = latestVersions(input.live);
  const index = indexLive(live);
  const warnings: string[] = [];
  const drift: ObjectDrift[] = [];
  const narrowed = input.narrowedTo;
  if (narrowed !== undefined)
    warnings.push(
      `partial drift report: only the objects declared under ${narrowed.paths.join(', ')} (paths given)`,
    );
  const kept = narrowedSelects(narrowed);
  const selected = (address: string): boolean =>
    kept(address) &&
    (input.targets === undefined || input.targets.length === 0 || input.targets.includes(address));
  const addresses = Object.keys(input.state.resources).filter(selected).sort();
  const vanished = vanishedKinds(input.state, index, input.keyChanged);
  for (const gone of vanished.values())
    warnings.push(
      `${gone.story}; drift --accept keeps them in state and in the manifests (check the key and the account first)`,
    );
  for (const address of addresses) {
    const recorded = input.state.resources[address];
    if (recorded === undefined) continue;
    const found =
      recorded.kind === 'Parser'
        ? parserDrift(address, recorded, live, index, warnings)
        : projectDrift(address, recorded, index, input.ignored?.[address] ?? []);
    const unseen = found?.drift === 'deleted' ? unseenStory(recorded) : undefined;
    if (found !== undefined && unseen !== undefined) {
      // A 404 for an object not seen since its create may only mean not visible yet, or it is gone: reported (a
      // watch must not miss a deletion), but --accept does not drop it from state.
      drift.push({
        ...found,
        message: `${found.message}, or is not visible yet: ${unseen}, and the service answers 404 for it`,
        accept: {
          ...FREE,
          possible: false,
          placeholders: [],
          note: `kept in state: a 404 so soon after its create may only mean it is not visible yet; run drift again later, or check the service and pass apply --recreate ${address}`,
        },
      });
      continue;
    }
    const none = found?.drift === 'deleted' ? vanishedStory(recorded, vanished) : undefined;
    if (found !== undefined && none !== undefined) {
      // Every object of its kind answering 404 at once reads like another account: reported, but --accept does not
      // drop it from state nor its document from the manifests.
      drift.push({
        ...found,
        accept: {
          ...FREE,
          possible: false,
          placeholders: [],
          note: `kept in state and in the manifests: ${none}; check the key and the service URLs, and if every one was deleted, remove their documents by hand`,
        },
      });
      continue;
    }
    if (found !== undefined) drift.push(found);
  }
  const total = (pick: (d: ObjectDrift) => DriftCost): DriftCost =>
    drift.map(pick).reduce(
      (sum, c) => ({
        calls: sum.calls + c.calls,
        regenerations: sum.regenerations + c.regenerations,
        credits: sum.credits + c.credits,
      }),
      FREE,
    );
  return {
    format_version: DRIFT_FORMAT_VERSION,
    status: drift.length > 0 ? 'drift' : 'no_drift',
    summary: {
      objects: addresses.length,
      drifted: drift.length,
      revert: total((d) => d.revert),
      accept: total((d) => d.accept),
    },
    drift,
    warnings,
  };
}
