import type { LiveParserDetails, LiveParserSummary, LiveProject } from '../api/live.js';
import { keptProtection } from '../state/model.js';
import type {
  CreateIntent,
  ParserCreateIntent,
  ParserDefinition,
  ParserState,
  ProjectCreateIntent,
  ResourceState,
  State,
} from '../state/model.js';
import { managedIds } from './plan-context.js';
import type { ManagedIds } from './plan-context.js';

export interface RecoveredIntents {
  /** State with every create that landed recorded as ours; the same object when there was nothing to recover. */
  state: State;
  /** What was recovered, or could not be told apart, per address: for the plan's warnings. */
  notes: string[];
  /**
   * Creates an earlier apply sent and gave up confirming (their intent says when) that no list shows yet, by
   * address: sending one again needs `--recreate` (build-plan.ts, approval.ts).
   */
  unconfirmed: Map<string, string>;
  /**
   * PATCHes an earlier apply sent (their intent says when) whose version neither the list nor the parser's details
   * show: sending one again needs `--recreate` for its address, as an unconfirmed create does (build-plan.ts).
   */
  unconfirmedPatches: Map<string, string>;
}

/**
 * Creates a killed run sent but never recorded (its intent is in state, its answer was lost): the one live object
 * of the intent's name that state does not manage and that was not there before the POST is the one it made, so
 * it is recorded with the definition that was sent, as apply would have recorded it (a parser with its version
 * pending, a replace with the old parser still to delete). Pure: the live lists are what the plan read.
 */
export function recoverIntents(
  state: State,
  live: {
    parsers: readonly LiveParserSummary[];
    projects: readonly LiveProject[];
    details?: Readonly<Record<string, LiveParserDetails>>;
  },
): RecoveredIntents {
  const unconfirmed = new Map<string, string>();
  const patched = recoverPatches(state, live.parsers, live.details ?? {});
  const intents = Object.entries(state.intents ?? {});
  if (intents.length === 0)
    return {
      state: patched.resources !== state.resources ? { ...state, resources: patched.resources } : state,
      notes: patched.notes,
      unconfirmed,
      unconfirmedPatches: patched.unconfirmed,
    };
  const resources = { ...patched.resources };
  const left: Record<string, CreateIntent> = {};
  const notes: string[] = [...patched.notes];
  let changed = patched.resources !== state.resources;
  for (const [address, intent] of intents) {
    const recorded = resources[address];
    // The resource moved on since (recorded by the run itself, or replaced again): the intent is spent.
    if (!stillIntended(intent, recorded)) {
      changed = true;
      continue;
    }
    const managed = managedIds({ ...state, resources });
    const landed =
      intent.kind === 'Parser'
        ? parserCandidates(intent, live.parsers, managed)
        : projectCandidates(intent, live.projects, managed);
    const [only] = landed;
    // A project shown without a name may be the one it made: none is taken, and sending it again needs --recreate.
    const nameless = intent.kind === 'Project' ? namelessCandidates(intent, live.projects, managed) : [];
    if (nameless.length > 0) {
      notes.push(
        `${address}: an interrupted apply sent a create of "${intent.name}", and the service shows ${nameless.length === 1 ? 'a project' : 'projects'} without a name that ${nameless.length === 1 ? 'is' : 'are'} not managed (${nameless.map((o) => String(o.id)).join(', ')}); scrapeform cannot tell whether one is the project it made and takes none`,
      );
    } else if (landed.length === 1 && only !== undefined) {
      // Protected as the run would have recorded it: as the intent says, or (an intent written before it said so)
      // as the object state still records there was, which a replace keeps.
      const protection = keptProtection(intent.preventDestroy === true ? intent : recorded);
      resources[address] =
        intent.kind === 'Parser'
          ? { ...recoveredParser(intent, only as LiveParserSummary), ...protection }
          : {
              kind: 'Project',
              id: (only as LiveProject).id,
              name: intent.name,
              definition: intent.definition,
              ...protection,
            };
      changed = true;
      notes.push(
        `${address}: recovered ${intent.kind === 'Parser' ? 'parser' : 'project'} ${String(only.id)}, created by an apply that was interrupted before it recorded it (found by name; the definition sent was recorded before the POST)`,
      );
      continue;
    } else if (landed.length > 1) {
      notes.push(
        `${address}: an interrupted apply sent a create of "${intent.name}", and ${landed.length} live ${intent.kind === 'Parser' ? 'parsers' : 'projects'} of that name are not managed (${landed.map((o) => String(o.id)).join(', ')}); scrapeform cannot tell which it made and takes none: delete the extra ones`,
      );
    }
    // None landed (or the list does not show it yet): the intent stays until a later create replaces it. One whose
    // POST went out (apply gave up confirming it, or a run was killed after sending it) may have landed: sending it
    // again needs --recreate.
    const sentAt = intent.unconfirmed ?? intent.sent;
    if ((landed.length === 0 || nameless.length > 0) && sentAt !== undefined)
      unconfirmed.set(address, sentAt);
    left[address] = intent;
  }
  if (!changed) return { state, notes, unconfirmed, unconfirmedPatches: patched.unconfirmed };
  const { intents: _intents, ...rest } = state;
  return {
    state: { ...rest, resources, ...(Object.keys(left).length > 0 ? { intents: left } : {}) },
    notes,
    unconfirmed,
    unconfirmedPatches: patched.unconfirmed,
  };
}

/**
 * An intent is still open while state records nothing at its address (a create), still the object deleted outside
 * scrapeform that it creates again, or still the old parser (a replace).
 */
function stillIntended(intent: CreateIntent, recorded: ResourceState | undefined): boolean {
  if (intent.recreates !== undefined)
    return recorded?.kind === intent.kind && recorded.id === intent.recreates;
  if (intent.kind === 'Project' || intent.replaces === undefined) return recorded === undefined;
  // State still at the parser it replaces: the new one was not recorded. (That parser may itself be the new one
  // of an interrupted replace, which state records with `replacing`: the intent of its retry.)
  return recorded?.kind === 'Parser' && recorded.id === intent.replaces;
}

function parserCandidates(
  intent: ParserCreateIntent,
  parsers: readonly LiveParserSummary[],
  managed: ManagedIds,
): LiveParserSummary[] {
  const before = new Set(intent.before ?? []);
  return parsers.filter(
    (p) =>
      p.name === intent.name && !managed.parsers.has(p.id) && !before.has(p.id) && p.id !== intent.replaces,
  );
}

function projectCandidates(
  intent: ProjectCreateIntent,
  projects: readonly LiveProject[],
  managed: ManagedIds,
): LiveProject[] {
  const before = new Set(intent.before ?? []);
  return projects.filter((p) => p.name === intent.name && !managed.projects.has(p.id) && !before.has(p.id));
}

/** Unmanaged projects, not there before the POST, shown without a name: any of them may be the one it made. */
function namelessCandidates(
  intent: ProjectCreateIntent,
  projects: readonly LiveProject[],
  managed: ManagedIds,
): LiveProject[] {
  const before = new Set(intent.before ?? []);
  return projects.filter((p) => p.name === undefined && !managed.projects.has(p.id) && !before.has(p.id));
}

/** As apply records a parser it just created: no version known FINISHED yet, the one generating pending. */
function recoveredParser(intent: ParserCreateIntent, live: LiveParserSummary): ResourceState {
  return {
    kind: 'Parser',
    id: live.id,
    name: intent.name,
    version: null,
    definition: null,
    descriptionsKnown: true,
    pending: { version: live.version, definition: intent.definition },
    ...(intent.replaces !== undefined
      ? {
          replacing: {
            oldId: intent.replaces,
            ...(intent.alsoReplaces !== undefined ? { also: intent.alsoReplaces } : {}),
          },
        }
      : {}),
  };
}

/**
 * PATCHes a run sent (or was about to send) and never saw answered (ParserState.patching). The version after the one
 * it was based on is the one it made when its details show the fields it was sent to make: it is then pending with
 * the definition sent, as apply would have recorded it. Details with other fields mean someone else made that
 * version (the PATCH was never sent, or was overtaken): the intent goes, and the plan reads the version as made
 * outside scrapeform. Until the details of the next version are read (detailsNeeded asks for them) or show any
 * field, and while the lists lack the parser, the intent stays.
 *
 * A list still at `from` is no proof that the PATCH did not land (a list may lag behind a change as behind a
 * create): the intent stays until the parser's details, read by id, say so too. They still at `from` (or before), a
 * PATCH never sent (written ahead with the plan, the run stopped before it: no `sent`) goes and is planned again; one
 * whose PATCH went out (`sent`) may still have landed where the details lag too, so it stays, and is returned as
 * unconfirmed: the plan's update then needs `--recreate` (build-plan.ts, approval.ts), as an unconfirmed create does.
 */
function recoverPatches(
  state: State,
  parsers: readonly LiveParserSummary[],
  details: Readonly<Record<string, LiveParserDetails>>,
): { resources: State['resources']; notes: string[]; unconfirmed: Map<string, string> } {
  const notes: string[] = [];
  const unconfirmed = new Map<string, string>();
  let resources = state.resources;
  for (const [address, resource] of Object.entries(state.resources)) {
    if (resource.kind !== 'Parser' || resource.patching === undefined) continue;
    const live = parsers.find((p) => p.id === resource.id);
    if (live === undefined) continue;
    const { patching, ...rest } = resource;
    const expected = expectedPatchVersion(resource) ?? patching.from + 1;
    const read = details[resource.id];
    // The latest version any answer showed: the list's, or the details' when they are newer (latest-versions.ts).
    const latest = Math.max(live.version, read?.version ?? -1);
    let next: ResourceState = rest;
    if (latest === expected) {
      if (read?.version !== latest || read.fields.length === 0) continue;
      if (sameFieldNames(read.fields, patching.definition)) {
        next = { ...rest, pending: { version: latest, definition: patching.definition } };
        notes.push(
          `${address}: version ${latest} was made by an apply whose PATCH got no answer; it is taken as that PATCH's, with the definition sent (its fields are the ones sent; not a change made outside scrapeform)`,
        );
      }
    } else if (latest < expected) {
      // Not confirmed absent until the details are read by id too.
      if (read === undefined) continue;
      if (patching.sent !== undefined) {
        unconfirmed.set(address, patching.sent);
        continue;
      }
    }
    if (resources === state.resources) resources = { ...state.resources };
    resources[address] = next;
  }
  return { resources, notes, unconfirmed };
}

/** Whether a version's fields are, by name, the ones a definition declares (output types are not input types). */
function sameFieldNames(fields: readonly { name: string }[], definition: ParserDefinition): boolean {
  const declared = new Set(definition.fields.map((f) => f.name));
  return fields.length === declared.size && fields.every((f) => declared.has(f.name));
}

/**
 * The version a PATCH recorded in `patching` makes: one past the highest the service had, which is `from` or a
 * version state knows came after it (a FAILED one a retry is based past, or one still pending).
 */
export function expectedPatchVersion(resource: ParserState): number | undefined {
  if (resource.patching === undefined) return undefined;
  return (
    Math.max(resource.patching.from, resource.failed?.version ?? -1, resource.pending?.version ?? -1) + 1
  );
}
