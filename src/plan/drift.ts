import type { LiveField, LiveParserDetails, LiveParserSummary } from '../api/live.js';
import type { DesiredField } from '../model/desired.js';
import { CREDITS_PER_GENERATION, PLACEHOLDER_DESCRIPTION } from '../model/vocabulary.js';
import { fieldOperationsBody, parserPath, PARSERS_PATH, projectPath, PROJECTS_PATH } from '../model/wire.js';
import type { FieldOperations } from '../model/wire.js';
import type { ParserState, ProjectState, ResourceState, State } from '../state/model.js';
import { diffFields, parentOf } from './diff-fields.js';
import type { LiveSnapshot } from './model.js';
import { indexLive } from './plan-context.js';
import type { LiveIndex } from './plan-context.js';
import { PROJECT_FIELDS, projectFieldRule } from '../model/project-fields.js';
import { stable } from './plan-context.js';
import { unknownAfterDrift } from './unknown-values.js';

export const DRIFT_FORMAT_VERSION = 1;

/** Calls, regenerations and credits: what reverting or accepting one drift costs. */
export interface DriftCost {
  calls: number;
  regenerations: number;
  credits: number;
}

/** One thing that moved outside scrapeform, named as state knew it and as the service shows it now. */
export type DriftChange =
  /** A field renamed by hand in a version step the service applied without regenerating. */
  | { change: 'rename'; from: string; to: string }
  /** A field state records that the live parser no longer has. */
  | { change: 'remove'; field: string }
  /** A field the live parser has and state does not record; `parent` when it holds children. */
  | { change: 'add'; field: string; parent: boolean }
  /** A project key whose live value is not the one last applied. */
  | { change: 'edit'; key: string; state: unknown; live: unknown };

/**
 * What kind of drift: fields moved; a version moved with the same field names (descriptions or selectors may have
 * changed, the service does not return them); a version made by hand that FAILED or is still generating; the
 * object deleted (parser) or archived (project); project keys edited.
 */
export type DriftKind = 'fields' | 'version' | 'failed' | 'generating' | 'deleted' | 'edited';

/** One call reverting drift would make (the key is never part of it). */
export interface DriftRequest {
  method: 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
}

export interface ObjectDrift {
  address: string;
  kind: 'Parser' | 'Project';
  name: string;
  id: string | number;
  drift: DriftKind;
  message: string;
  /** Parsers: the version state records and the live latest one. */
  state_version?: number | null;
  live_version?: number;
  changes: DriftChange[];
  /** Putting the live object back to what state records (what `apply` or `watch --heal` sends). */
  revert: DriftCost & { requests: DriftRequest[]; note?: string };
  /** Taking the live shape into state and the manifests (`drift --accept`): never a call. */
  accept: DriftCost & { possible: boolean; placeholders: string[]; note?: string };
  /** What `drift --accept` records: the new resource state, or null when the address leaves state. */
  accepted?: ResourceState | null;
}

export interface DriftSummary {
  /** Objects state manages (within --target). */
  objects: number;
  drifted: number;
  revert: DriftCost;
  accept: DriftCost;
}

export interface DriftReport {
  format_version: typeof DRIFT_FORMAT_VERSION;
  status: 'drift' | 'no_drift';
  summary: DriftSummary;
  drift: ObjectDrift[];
  warnings: string[];
}

export interface DriftInput {
  state: State;
  live: LiveSnapshot;
  /** Project keys a manifest ignores (`lifecycle.ignore_changes`), by address: never drift. */
  ignored?: Readonly<Record<string, readonly string[]>>;
  /** Only these addresses; all when empty. */
  targets?: readonly string[];
}

const FREE: DriftCost = { calls: 0, regenerations: 0, credits: 0 };

/**
 * The versions a parser's state explains: the one recorded, one scrapeform made and has not seen finish, one that
 * FAILED. Any other latest version was made outside scrapeform.
 */
function knownVersions(recorded: ParserState): number[] {
  return [recorded.version, recorded.pending?.version, recorded.failed?.version].filter(
    (v): v is number => v !== null && v !== undefined,
  );
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

/** Of the parsers whose latest details are read, those that moved one step: their recorded version is read too. */
export function previousVersionsNeeded(
  state: State,
  list: readonly LiveParserSummary[],
  detailIds: readonly string[],
): { id: string; version: number }[] {
  const byId = indexLive({ parsers: list, projects: [] }).parserById;
  const wanted = new Set(detailIds);
  const out: { id: string; version: number }[] = [];
  for (const resource of Object.values(state.resources)) {
    if (resource.kind !== 'Parser' || !wanted.has(resource.id) || resource.version === null) continue;
    const live = byId.get(resource.id);
    if (live !== undefined && live.version === resource.version + 1)
      out.push({ id: resource.id, version: resource.version });
  }
  return out;
}

/**
 * Whether the service answered the version step from `previous` to `latest` without regenerating: a rename or
 * remove is "applied immediately" (seed 1, states table), so the version was not generated after it was created,
 * or it kept the previous version's generation time. Unknown times mean "cannot tell": never a rename then.
 */
function appliedAtOnce(previous: LiveParserDetails, latest: LiveParserDetails): boolean {
  if (latest.version !== previous.version + 1) return false;
  if (previous.status !== 'FINISHED' || latest.status !== 'FINISHED') return false;
  if (latest.generatedAt === null) return false;
  if (latest.generatedAt === previous.generatedAt) return true;
  if (latest.createdAt === null) return false;
  const generated = Date.parse(latest.generatedAt);
  const created = Date.parse(latest.createdAt);
  return Number.isFinite(generated) && Number.isFinite(created) && generated <= created;
}

/**
 * Fields renamed outside scrapeform, as live name -> the name state records (children follow their parent). Only
 * in a single version step the service applied without regenerating: there, one field gone and one appeared under
 * the same parent with the same output type (and the same children) can only be a rename, since a rename-only step
 * cannot add a field. Anywhere else a rename cannot be told from a remove and an add.
 */
export function outOfBandRenames(
  recorded: readonly DesiredField[],
  previous: LiveParserDetails | undefined,
  latest: LiveParserDetails,
): Map<string, string> {
  const renames = new Map<string, string>();
  if (previous === undefined || !appliedAtOnce(previous, latest)) return renames;
  const known = new Set(recorded.map((f) => f.name));
  const before = new Map(previous.fields.map((f) => [f.name, f]));
  const after = new Map(latest.fields.map((f) => [f.name, f]));
  const gone = topMost([...before.keys()].filter((n) => !after.has(n) && known.has(n)));
  const appeared = topMost([...after.keys()].filter((n) => !before.has(n)));
  const matches = (from: string, to: string): boolean =>
    parentOf(from) === parentOf(to) &&
    before.get(from)?.type === after.get(to)?.type &&
    subtreeShape(previous.fields, from) === subtreeShape(latest.fields, to);
  for (const from of gone) {
    const candidates = appeared.filter((to) => matches(from, to));
    const [to] = candidates;
    if (to === undefined || candidates.length !== 1) continue;
    if (gone.filter((other) => matches(other, to)).length !== 1) continue;
    for (const field of latest.fields) {
      if (field.name === to || field.name.startsWith(`${to}.`))
        renames.set(field.name, from + field.name.slice(to.length));
    }
  }
  return renames;
}

/**
 * The live fields as definitions: names state knows keep their recorded definitions, renamed ones carry the
 * definition of the name they had, and new ones get an empty description (the service never returns one).
 */
export function reconcileLiveFields(
  recorded: readonly DesiredField[],
  latest: LiveParserDetails,
  renames: ReadonlyMap<string, string>,
  description = '',
): DesiredField[] {
  const known = new Map(recorded.map((f) => [f.name, f]));
  return latest.fields.map((field) => {
    const own = known.get(field.name);
    if (own !== undefined && !renames.has(field.name)) return own;
    const was = known.get(renames.get(field.name) ?? '');
    if (was !== undefined) return { ...was, name: field.name };
    return fieldFromLive(field, description);
  });
}

/**
 * A live field as a desired one, the one mapping of it: the service returns names and output types only, so the
 * description is unknown (empty, or the placeholder accepting drift writes) and only parent-ness (`array`) carries
 * over; its output types are never compared with input types.
 */
export function fieldFromLive(field: LiveField, description = ''): DesiredField {
  return { name: field.name, description, ...(field.type === 'array' ? { type: 'array' as const } : {}) };
}

/** Pure: what moved outside scrapeform, compared with state (not the manifests), and what going back or accepting costs. */
export function detectDrift(input: DriftInput): DriftReport {
  const index = indexLive(input.live);
  const warnings: string[] = [];
  const drift: ObjectDrift[] = [];
  const selected = (address: string): boolean =>
    input.targets === undefined || input.targets.length === 0 || input.targets.includes(address);
  const addresses = Object.keys(input.state.resources).filter(selected).sort();
  for (const address of addresses) {
    const recorded = input.state.resources[address];
    if (recorded === undefined) continue;
    const found =
      recorded.kind === 'Parser'
        ? parserDrift(address, recorded, input.live, index, warnings)
        : projectDrift(address, recorded, index, input.ignored?.[address] ?? []);
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

function parserDrift(
  address: string,
  recorded: ParserState,
  live: LiveSnapshot,
  index: LiveIndex,
  warnings: string[],
): ObjectDrift | undefined {
  // A replace under way is scrapeform's own change in flight: plan and apply finish it.
  if (recorded.replacing !== undefined) return undefined;
  const common = { address, kind: 'Parser' as const, name: recorded.name, id: recorded.id };
  const summary = index.parserById.get(recorded.id);
  if (summary === undefined) {
    const definition = recorded.definition ?? recorded.pending?.definition;
    return {
      ...common,
      drift: 'deleted',
      message: `parser ${recorded.id} was deleted outside scrapeform`,
      state_version: recorded.version,
      changes: [],
      revert: {
        calls: 1,
        regenerations: 1,
        credits: CREDITS_PER_GENERATION,
        requests: [
          {
            method: 'POST',
            path: PARSERS_PATH,
            ...(definition !== undefined ? { body: { name: recorded.name, urls: definition.urls } } : {}),
          },
        ],
        note: 'created again under a new id, from the definition state records',
      },
      accept: {
        ...FREE,
        possible: true,
        placeholders: [],
        note: 'dropped from state; its manifest document is removed',
      },
      accepted: null,
    };
  }
  if (knownVersions(recorded).includes(summary.version)) return undefined;
  const versions = { state_version: recorded.version, live_version: summary.version };
  const details = live.details[recorded.id];
  if (details === undefined || details.status === 'GENERATING' || summary.status === 'GENERATING') {
    if (details === undefined && summary.status !== 'GENERATING') {
      warnings.push(`${address}: the details of version ${summary.version} were not read`);
    }
    return {
      ...common,
      ...versions,
      drift: 'generating',
      message: `version ${summary.version} was made outside scrapeform and is still generating`,
      changes: [],
      revert: { ...FREE, requests: [], note: 'run drift again once it finishes to see what it changed' },
      accept: { ...FREE, possible: false, placeholders: [], note: 'wait until it finishes' },
    };
  }
  if (details.status === 'FAILED' || summary.status === 'FAILED') {
    const error = details.error ?? summary.error ?? 'no error given';
    return {
      ...common,
      ...versions,
      drift: 'failed',
      message: `version ${summary.version} was made outside scrapeform and FAILED: ${error}`,
      changes: [],
      revert: {
        ...FREE,
        requests: [],
        note: `plans keep building on version ${String(recorded.version)}; readers of the latest version get the failure until the next change`,
      },
      accept: { ...FREE, possible: true, placeholders: [], note: 'state records the failure' },
      accepted: { ...recorded, failed: { version: summary.version, error } },
    };
  }
  if (recorded.definition === null || recorded.version === null) return undefined;
  const recordedFields = recorded.definition.fields;
  const renames = outOfBandRenames(recordedFields, live.previous?.[recorded.id], details);
  const liveNames = new Set(details.fields.map((f) => f.name));
  const renamedFrom = new Set(renames.values());
  const changes: DriftChange[] = [];
  for (const [to, from] of renames) {
    if (!renames.has(parentOf(to))) changes.push({ change: 'rename', from, to });
  }
  for (const name of topMost(recordedFields.map((f) => f.name))) {
    if (!liveNames.has(name) && !renamedFrom.has(name)) changes.push({ change: 'remove', field: name });
  }
  const recordedNames = new Set(recordedFields.map((f) => f.name));
  for (const name of topMost(details.fields.map((f) => f.name).filter((n) => !recordedNames.has(n)))) {
    if (renames.has(name)) continue;
    const field = details.fields.find((f) => f.name === name);
    changes.push({ change: 'add', field: name, parent: field?.type === 'array' });
  }
  // What going back sends: from the live fields (known definitions carried over) to the recorded ones.
  const base = reconcileLiveFields(recordedFields, details, renames);
  const back = [...renames]
    .filter(([to]) => !renames.has(parentOf(to)))
    .map(([to, from]) => ({ from: to, to: from }));
  const diff = diffFields(base, recordedFields, back, { descriptionsKnown: true });
  const accepted = reconcileLiveFields(recordedFields, details, renames, PLACEHOLDER_DESCRIPTION);
  const placeholders = accepted
    .filter((f) => f.description === PLACEHOLDER_DESCRIPTION && !recordedNames.has(f.name))
    .map((f) => f.name);
  const { pending: _pending, failed: _failed, unknown: _unknown, ...kept } = recorded;
  // Fields added by hand were never seen beyond their names; marks of renamed fields follow them.
  const unknown = unknownAfterDrift(
    recorded.unknown,
    [...renames].map(([to, from]) => ({ from, to })),
    accepted,
    placeholders,
  );
  const acceptedState: ParserState = {
    ...kept,
    version: details.version,
    definition: { ...recorded.definition, fields: accepted },
    ...(unknown !== undefined ? { unknown } : {}),
  };
  if (changes.length === 0) {
    return {
      ...common,
      ...versions,
      drift: 'version',
      message: `version moved from ${recorded.version} to ${details.version} outside scrapeform with the same field names; descriptions or selectors may have changed (the service does not return them)`,
      changes,
      revert: {
        ...FREE,
        requests: [],
        note: `what changed cannot be seen; apply --reassert ${address} sends every declared definition once (1 regeneration)`,
      },
      accept: { ...FREE, possible: true, placeholders: [], note: `state records version ${details.version}` },
      accepted: acceptedState,
    };
  }
  return {
    ...common,
    ...versions,
    drift: 'fields',
    message: `version moved from ${recorded.version} to ${details.version} outside scrapeform: ${changes.map(describeChange).join('; ')}`,
    changes,
    revert: {
      calls: diff.requests.length,
      regenerations: diff.regenerates ? 1 : 0,
      credits: diff.regenerates ? CREDITS_PER_GENERATION : 0,
      requests: diff.requests.map((ops: FieldOperations, i) => ({
        method: 'PATCH',
        path: parserPath(recorded.id, details.version + i),
        body: fieldOperationsBody(ops),
      })),
    },
    accept: {
      ...FREE,
      possible: true,
      placeholders,
      ...(placeholders.length > 0
        ? {
            note: 'the service does not return descriptions: new fields get a placeholder validate warns about',
          }
        : {}),
    },
    accepted: acceptedState,
  };
}

function projectDrift(
  address: string,
  recorded: ProjectState,
  index: LiveIndex,
  ignored: readonly string[],
): ObjectDrift | undefined {
  const common = { address, kind: 'Project' as const, name: recorded.name, id: recorded.id };
  const live = index.projectById.get(recorded.id);
  if (live === undefined) {
    return {
      ...common,
      drift: 'deleted',
      message: `project ${recorded.id} was archived outside scrapeform`,
      changes: [],
      revert: {
        ...FREE,
        calls: 1,
        requests: [{ method: 'POST', path: PROJECTS_PATH, body: recorded.definition }],
        note: 'created again under a new id (an archive cannot be undone through the API)',
      },
      accept: {
        ...FREE,
        possible: true,
        placeholders: [],
        note: 'dropped from state; its manifest document is removed',
      },
      accepted: null,
    };
  }
  const changes: DriftChange[] = [];
  for (const [key, value] of Object.entries(recorded.definition)) {
    if (ignored.includes(key)) continue;
    const rule = projectFieldRule(key);
    if (rule === undefined || !rule.compared) continue;
    // A key the answer leaves out is a short answer, not a change (issue 13: absent is not a default).
    const reported = rule.read(live);
    if (reported === undefined) continue;
    if (stable(value) !== stable(reported))
      changes.push({ change: 'edit', key, state: value, live: reported });
  }
  // Scheduling turned on by hand where none was asked: the interval it runs at comes with it.
  if (
    changes.some((c) => c.change === 'edit' && c.key === 'schedulingEnabled' && c.live === true) &&
    !('scrapingInterval' in recorded.definition)
  ) {
    changes.push({
      change: 'edit',
      key: 'scrapingInterval',
      state: undefined,
      live: PROJECT_FIELDS.scrapingInterval.read(live),
    });
  }
  if (changes.length === 0) return undefined;
  const revertBody = Object.fromEntries(
    changes.flatMap((c) => (c.change === 'edit' ? [[c.key, c.state] as const] : [])),
  );
  const renamed = changes.some((c) => c.change === 'edit' && c.key === 'name');
  return {
    ...common,
    drift: 'edited',
    message: `edited outside scrapeform: ${changes.map((c) => (c.change === 'edit' ? c.key : '')).join(', ')}`,
    changes,
    revert: {
      ...FREE,
      calls: 1,
      requests: [{ method: 'PATCH', path: projectPath(recorded.id), body: revertBody }],
    },
    accept: {
      ...FREE,
      possible: !renamed,
      placeholders: [],
      ...(renamed ? { note: 'a new name is a new address: rename the manifest by hand' } : {}),
    },
    ...(renamed
      ? {}
      : {
          accepted: {
            ...recorded,
            definition: {
              ...recorded.definition,
              ...Object.fromEntries(
                changes.flatMap((c) => (c.change === 'edit' ? [[c.key, c.live] as const] : [])),
              ),
            },
          },
        }),
  };
}

export function describeChange(change: DriftChange): string {
  switch (change.change) {
    case 'rename':
      return `field ${change.from} renamed to ${change.to}`;
    case 'remove':
      return `field ${change.field} removed`;
    case 'add':
      return `field ${change.field} added`;
    case 'edit':
      return `${change.key} changed`;
  }
}

function topMost(names: readonly string[]): string[] {
  return names.filter((n) => !names.some((other) => n.startsWith(`${other}.`)));
}

/** A field's children with their output types, relative to it: two subtrees of one shape compare equal. */
function subtreeShape(fields: readonly LiveField[], root: string): string {
  return JSON.stringify(
    fields
      .filter((f) => f.name.startsWith(`${root}.`))
      .map((f) => [f.name.slice(root.length), f.type ?? null])
      .sort(),
  );
}
