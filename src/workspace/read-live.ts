import { unlessGone, unlessStatus } from '../api/unless-status.js';
import type { ApiClients } from '../api/create-clients.js';
import type { KnownParser } from '../api/parsers-client.js';
import type { LiveParserDetails, LiveProject } from '../api/live.js';
import type { DesiredParser, DesiredProject } from '../model/desired.js';
import { READ_CONCURRENCY } from '../model/vocabulary.js';
import { detailsNeeded } from '../plan/build-plan.js';
import { previousVersionsNeeded } from '../plan/drift.js';
import type { LiveSnapshot } from '../plan/model.js';
import { latestVersions, summaryOf } from '../plan/latest-versions.js';
import { expectedPatchVersion } from '../plan/recover-intents.js';
import { projectsToReadAgain, withoutNulls } from '../plan/listed-nulls.js';
import type { ParserState, ProjectState, State } from '../state/model.js';
import { forEachLimited } from '../worker-pool.js';
import { objectKey, readOrNote, readOrWhy } from './read-or-why.js';
import type { UnreadObjects } from './read-or-why.js';

/** What a workspace declares: which services it uses follows from it (and from state). */
export interface DeclaredObjects {
  parsers: readonly DesiredParser[];
  projects: readonly DesiredProject[];
}

/** The services a workspace uses: those it declares objects of, or state records objects (or creates) of (issue 13). */
export function servicesUsed(
  declared: DeclaredObjects,
  state: State,
): { parsers: boolean; projects: boolean } {
  // Intents too: a create a killed run sent is recovered from the list even once no manifest declares its kind.
  const recorded = [...Object.values(state.resources), ...Object.values(state.intents ?? {})];
  // And parsers being deleted: only a list (and a 404 by id) says their delete is done (plan/deleting.ts).
  const deleting = Object.keys(state.deleting ?? {}).length > 0;
  return {
    parsers: deleting || declared.parsers.length > 0 || recorded.some((r) => r.kind === 'Parser'),
    projects: declared.projects.length > 0 || recorded.some((r) => r.kind === 'Project'),
  };
}

/**
 * Reads the live services with the fewest calls: one list per service the workspace uses (a workspace with only
 * parsers never lists projects, so a key without DataPipeline access still works), then a parser's details only
 * where the planner needs them (adoption, or a version that moved), and a project by id where its list item says
 * null for a value that would plan a change (readNullsAgain). An unchanged workspace of any size is two calls, but
 * for those projects.
 *
 * A list is not proof of absence (issue 13: lists may lag behind a create, or page): a recorded object the list
 * lacks is looked up by id, and only a 404 (or, for a project, a record marked archived: ProjectsClient.find)
 * leaves it out of the snapshot, which the planner reads as gone (drift). One found by id joins the snapshot as if
 * listed. With `unread` (status), a lookup by id that fails otherwise than with a 404 is noted there and the object
 * left out; without it (plan, drift), it ends the read: an object not read is never taken as gone.
 */
export async function readLive(
  clients: ApiClients,
  declared: DeclaredObjects,
  state: State,
  signal?: AbortSignal,
  unread?: UnreadObjects,
): Promise<LiveSnapshot> {
  const used = servicesUsed(declared, state);
  const fieldless = fieldlessOf(state, declared.parsers);
  const [parserList, projectList] = await Promise.all([
    used.parsers ? clients.parsers.list(signal) : Promise.resolve([]),
    used.projects ? clients.projects.list(signal) : Promise.resolve([]),
  ]);
  const details: Record<string, LiveParserDetails> = {};
  const parsers = [...parserList];
  const projects = [...projectList];

  const listedParsers = new Set(parserList.map((p) => p.id));
  // Recorded parsers the list lacks, with what state knows of them: details of the latest version; if the answer
  // names no version, the one state last saw is the best guess.
  const unlisted = new Map<string, KnownParser>();
  for (const recorded of recordedOf<ParserState>(state, 'Parser')) {
    if (listedParsers.has(recorded.id)) continue;
    const version = recorded.pending?.version ?? recorded.version ?? undefined;
    unlisted.set(recorded.id, {
      name: recorded.name,
      fieldless: fieldless(recorded.id, recorded.name),
      ...(version !== undefined ? { version } : {}),
    });
  }
  // The parsers a half-done replace still has to delete are not in state as resources of their own, and a failed
  // new parser of an earlier attempt is as recent as any create: looked up by id too, never taken as gone unread.
  for (const id of replacedIds(state))
    if (!listedParsers.has(id) && !unlisted.has(id)) unlisted.set(id, { fieldless: fieldless(id) });
  await forEachLimited([...unlisted], READ_CONCURRENCY, async ([id, known]) => {
    const found = await readOrNote(unread, objectKey('Parser', id), () =>
      unlessGone(() => clients.parsers.get(id, undefined, signal, known)),
    );
    if (found === undefined) return;
    details[found.id] = found;
    parsers.push(summaryOf(found));
  });
  // A parser whose delete the service accepted: one the list lacks is gone only once a read by id answers 404 (or
  // 410 Gone) too. Nothing is planned from it, so its fields go unread and only a summary joins the snapshot; a read
  // that fails otherwise keeps it recorded as being deleted (with why, said by the plan) and stops nothing.
  const beingDeleted = Object.entries(state.deleting ?? {}).filter(
    ([id]) => !listedParsers.has(id) && !unlisted.has(id),
  );
  const deletingUnread: Record<string, string> = {};
  await forEachLimited(beingDeleted, READ_CONCURRENCY, async ([id, { name }]) => {
    const got = await readOrWhy(() =>
      unlessGone(() => clients.parsers.get(id, undefined, signal, { name, version: 0, fieldsUnread: true })),
    );
    if ('why' in got) {
      deletingUnread[id] = got.why;
      unread?.set(objectKey('Parser', id), got.why);
    } else if (got.value !== undefined) parsers.push(summaryOf(got.value));
  });

  // Before the projects read by id join: those are no list's record.
  await readNullsAgain(clients, projects, declared.projects, state, signal, unread);
  const listedProjects = new Set(projectList.map((p) => p.id));
  const unlistedProjects = recordedOf<ProjectState>(state, 'Project').filter(
    (r) => !listedProjects.has(r.id),
  );
  await forEachLimited(unlistedProjects, READ_CONCURRENCY, async (recorded) => {
    const found = await readOrNote(unread, objectKey('Project', recorded.id), () =>
      clients.projects.find(recorded.id, signal),
    );
    if (found !== undefined) projects.push(found);
  });
  const listed = new Map(parsers.map((p) => [p.id, p]));
  // A parser found by id already has the details of its latest version.
  const ids = detailsNeeded(declared.parsers, state, parsers).filter((id) => details[id] === undefined);
  const seen = versionsSeen(state);
  await forEachLimited(ids, READ_CONCURRENCY, async (id) => {
    // What the list said is the fallback for details that leave out their version or name (API-NOTES).
    const summary = listed.get(id);
    const read = await clients.parsers.get(id, undefined, signal, {
      fieldless: fieldless(id, summary?.name),
      ...(summary !== undefined ? { version: summary.version, name: summary.name } : {}),
    });
    // Versions only go up. Details below a version this state saw or made took the list's version for want of
    // their own (a list lagging behind it): that version is read by its number, so the plan neither reports the
    // parser moved back nor bases a PATCH on an older version (which would drop the change made since). A 404
    // for it keeps what the latest read said: a replica lagging behind, which the planner, drift and status read
    // as such (plan/lagging-version.ts), sending nothing for the parser until the service shows that version.
    // The version a lost PATCH answer may have made is looked for first; it may not exist, so a 400 for it (a
    // service that answers an unknown version so) is read as a 404. Then the one state surely saw or was told of,
    // then the one the list shows (details behind it hold the parser back: plan/lagging-version.ts, detailsBehind).
    const { known, maybe } = seen.get(id) ?? {};
    for (const [floor, absent] of [
      [maybe, [400, 404]],
      [known, [404]],
      [summary?.version, [404]],
    ] as const) {
      if (floor === undefined || read.version >= floor) continue;
      const atFloor = await unlessStatus(absent, () =>
        clients.parsers.get(id, floor, signal, { name: read.name, fieldless: fieldless(id, read.name) }),
      );
      if (atFloor !== undefined) {
        details[id] = atFloor;
        return;
      }
    }
    details[id] = read;
  });
  // Where a version moved one step outside scrapeform, the recorded version too: it tells a rename made by hand.
  // Details newer than a list lagging behind a PATCH say where the parser is (plan/latest-versions.ts).
  const latest = latestVersions({ parsers, details, projects }).parsers;
  const previous: Record<string, LiveParserDetails> = {};
  await forEachLimited(
    previousVersionsNeeded(state, latest, Object.keys(details)),
    READ_CONCURRENCY,
    async (ref) => {
      // Only a hint: a service that no longer answers for an old version leaves the rename untold, as before.
      const read = await clients.parsers
        .get(ref.id, ref.version, signal, { fieldless: fieldless(ref.id) })
        .catch(() => undefined);
      if (read !== undefined) previous[ref.id] = read;
    },
  );
  return {
    parsers,
    details,
    projects,
    ...(Object.keys(previous).length > 0 ? { previous } : {}),
    ...(Object.keys(deletingUnread).length > 0 ? { deletingUnread } : {}),
  };
}

/**
 * A null in a project's list item that would plan a change, or show drift, is looked at again by id
 * (listed-nulls.ts), the record replaced in `projects`. What the read says wins, and the list's other values fill what
 * it leaves out; a read that finds the project gone keeps the list's record: one read does not outweigh the list,
 * and nothing is created from it.
 */
export async function readNullsAgain(
  clients: ApiClients,
  projects: LiveProject[],
  declared: readonly DesiredProject[],
  state: State,
  signal?: AbortSignal,
  unread?: UnreadObjects,
  ignored?: Readonly<Record<string, readonly string[]>>,
): Promise<void> {
  const again = new Set(projectsToReadAgain(projects, declared, state, ignored));
  if (again.size === 0) return;
  const at = [...projects.keys()].filter((i) => again.has((projects[i] as LiveProject).id));
  await forEachLimited(at, READ_CONCURRENCY, async (i) => {
    const listed = projects[i] as LiveProject;
    const found = await readOrNote(unread, objectKey('Project', listed.id), () =>
      clients.projects.find(listed.id, signal),
    );
    if (found !== undefined) projects[i] = { ...withoutNulls(listed), ...found };
  });
}

/**
 * For each recorded parser, the highest version this state saw or was told of (`known`: the one last seen FINISHED,
 * one seen FAILED, the one the service announced for a change), and the one a PATCH whose answer was lost would
 * make (`maybe`: it may not exist). The parser has at least `known`.
 */
function versionsSeen(state: State): Map<string, { known?: number; maybe?: number }> {
  const out = new Map<string, { known?: number; maybe?: number }>();
  for (const recorded of recordedOf<ParserState>(state, 'Parser')) {
    const known = Math.max(
      recorded.version ?? -1,
      recorded.failed?.version ?? -1,
      recorded.pending?.version ?? -1,
    );
    const maybe = expectedPatchVersion(recorded);
    out.set(recorded.id, {
      ...(known >= 0 ? { known } : {}),
      ...(maybe !== undefined && maybe > known ? { maybe } : {}),
    });
  }
  return out;
}

/**
 * Every parser a half-done replace recorded in state still has to delete: its old one, and any of an attempt before.
 */
function replacedIds(state: State): string[] {
  const ids = new Set<string>();
  for (const resource of Object.values(state.resources)) {
    if (resource.kind !== 'Parser' || resource.replacing === undefined) continue;
    for (const id of [resource.replacing.oldId, ...(resource.replacing.also ?? [])]) ids.add(id);
  }
  return [...ids];
}

function recordedOf<R extends ParserState | ProjectState>(state: State, kind: R['kind']): R[] {
  const seen = new Set<string>();
  const out: R[] = [];
  for (const resource of Object.values(state.resources)) {
    if (resource.kind !== kind || seen.has(String(resource.id))) continue;
    seen.add(String(resource.id));
    out.push(resource as R);
  }
  return out;
}

/** A parser found by id, as the list would have shown it (the planner reads details newer than a list the same way). */
export { summaryOf };

/**
 * Whether a parser's versions may rightly list no fields (KnownParser.fieldless): state records one with none (a
 * manifest declaring none, applied as a PATCH removing them all: finished, pending or being sent), or a manifest
 * declares none under its name (an adoption). For any other, a FINISHED version listing none is an answer that
 * left them out.
 */
export function fieldlessOf(
  state: State,
  declared: readonly DesiredParser[] = [],
): (id: string, name?: string) => boolean {
  const ids = new Set<string>();
  for (const recorded of recordedOf<ParserState>(state, 'Parser')) {
    const definitions = [recorded.definition, recorded.pending?.definition, recorded.patching?.definition];
    if (definitions.some((d) => d !== null && d !== undefined && d.fields.length === 0)) ids.add(recorded.id);
  }
  const names = new Set(declared.filter((p) => p.fields.length === 0).map((p) => p.name));
  return (id, name) => ids.has(id) || (name !== undefined && names.has(name));
}
