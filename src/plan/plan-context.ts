import type { KeyRedacted, LiveParserSummary, LiveProject } from '../api/live.js';
import type { DesiredField, DesiredParser, DesiredProject } from '../model/desired.js';
import { projectFieldRule } from '../model/project-fields.js';
import type { ResourceState, State } from '../state/model.js';
import type { DriftEntry, LiveSnapshot, ResourceChange } from './model.js';
import { stable } from './stable-json.js';

export { sortKeys, stable } from './stable-json.js';

/** What planning one object may read and add to: errors, drift, warnings, fingerprints. */
export interface Context {
  errors: string[];
  drift: DriftEntry[];
  warnings: string[];
  fingerprint: Record<string, string>;
  live: LiveSnapshot;
  /** The live lists by id and by name, built once per plan. */
  index: LiveIndex;
  state: State;
  /** Ids of the objects state manages, by kind. */
  managed: ManagedIds;
  reassert: readonly string[];
  /** `--accept-unknown`: parsers whose never-seen values the manifest holds as they are live. */
  acceptUnknown: readonly string[];
}

/** The live lists looked up by id and by name. */
export interface LiveIndex {
  parserById: Map<string, LiveParserSummary>;
  parsersByName: Map<string, LiveParserSummary[]>;
  projectById: Map<number, LiveProject>;
  projectsByName: Map<string, LiveProject[]>;
  /**
   * Live projects with no name (ProjectsClient.list reads a nameless listed one by id for its name; a snapshot
   * built otherwise may still hold one): no project may be adopted or created by name while one is unmanaged.
   */
  namelessProjects: LiveProject[];
  /** The live lists by their names as looseName reads them, for nearlyNamed. */
  parsersByLooseName: Map<string, LiveParserSummary[]>;
  projectsByLooseName: Map<string, LiveProject[]>;
}

export function indexLive(live: {
  parsers: readonly LiveParserSummary[];
  projects: readonly LiveProject[];
}): LiveIndex {
  const byName = <T>(list: readonly T[], nameOf: (item: T) => string | undefined): Map<string, T[]> => {
    const out = new Map<string, T[]>();
    for (const item of list) {
      const name = nameOf(item);
      if (name === undefined) continue;
      const same = out.get(name);
      if (same === undefined) out.set(name, [item]);
      else same.push(item);
    }
    return out;
  };
  // The first of a duplicated id wins, as a search through the list would find it.
  const byId = <K, T>(list: readonly T[], idOf: (item: T) => K): Map<K, T> => {
    const out = new Map<K, T>();
    for (const item of list) if (!out.has(idOf(item))) out.set(idOf(item), item);
    return out;
  };
  return {
    parserById: byId(live.parsers, (p) => p.id),
    parsersByName: byName(live.parsers, (p) => p.name),
    projectById: byId(live.projects, (p) => p.id),
    projectsByName: byName(live.projects, (p) => p.name),
    namelessProjects: live.projects.filter((p) => p.name === undefined),
    parsersByLooseName: byName(live.parsers, (p) => looseName(p.name)),
    projectsByLooseName: byName(live.projects, (p) => (p.name === undefined ? undefined : looseName(p.name))),
  };
}

/** A name with its case, its spaces (around it, and runs of them inside) and its Unicode normalisation left out. */
export function looseName(name: string): string {
  return name.normalize('NFC').replace(/\s+/gu, ' ').trim().toLowerCase();
}

/**
 * The unmanaged live objects whose name differs from `name` only in case, spaces or Unicode normalisation (a name
 * saved as NFD, a service that trims or normalises what it stores), as the plan error about them says it: with no
 * object of the exact name, planned as absent, a create would be sent beside one of them (a paid generation for a
 * parser, a second scheduled run for a project). Undefined when there is none.
 */
export function nearlyNamed(
  ctx: Pick<Context, 'index' | 'managed'>,
  kind: 'parser' | 'project',
  address: string,
  name: string,
): string | undefined {
  const key = looseName(name);
  const near: { id: string | number; name?: string | undefined }[] =
    kind === 'parser'
      ? (ctx.index.parsersByLooseName.get(key) ?? []).filter((p) => !ctx.managed.parsers.has(p.id))
      : (ctx.index.projectsByLooseName.get(key) ?? []).filter((p) => !ctx.managed.projects.has(p.id));
  const others = near.filter((o) => o.name !== name);
  if (others.length === 0) return undefined;
  const listed = others.map((o) => `${kind} ${o.id} is named ${JSON.stringify(o.name)}`).join(', ');
  return `${address}: no live ${kind} is named ${JSON.stringify(name)}, but ${listed}, which differs from it only in case, spaces or Unicode normalisation: the service may hold it under that spelling, so it is neither adopted nor created (nothing is sent); to adopt it, write its name in the manifest as the service shows it, or give the manifest a name that differs otherwise; the plan as a whole stops here: to apply the rest meanwhile, plan with --exclude ${address}`;
}

/**
 * Ids state manages, parsers apart from projects: a parser id is an opaque string that may be digits, a project id
 * a number, so a parser "522" and a project 522 are two objects, and one managed must not hide the other (it was
 * then created again beside it, or never imported).
 */
export interface ManagedIds {
  parsers: ReadonlySet<string>;
  projects: ReadonlySet<number>;
}

/** The live parsers, or projects, named `name` that no state manages: the ones a declared object may adopt. */
export function unmanagedParsersNamed(
  index: LiveIndex,
  managed: ManagedIds,
  name: string,
): LiveParserSummary[] {
  return (index.parsersByName.get(name) ?? []).filter((p) => !managed.parsers.has(p.id));
}

export function unmanagedProjectsNamed(index: LiveIndex, managed: ManagedIds, name: string): LiveProject[] {
  return (index.projectsByName.get(name) ?? []).filter((p) => !managed.projects.has(p.id));
}

/** Ids state manages, with the old parser of a replace under way (it is deleted once the new one finishes). */
export function managedIds(state: State): ManagedIds {
  const parsers = new Set<string>();
  const projects = new Set<number>();
  for (const r of Object.values(state.resources)) {
    if (r.kind === 'Project') projects.add(r.id);
    else
      for (const id of [r.id, r.replacing?.oldId, ...(r.replacing?.also ?? [])])
        if (id !== undefined) parsers.add(id);
  }
  // A parser whose delete the service accepted is no longer managed, yet it is ours: never adopted, never counted
  // as a name sharer or an unmanaged object, never deleted again (plan/deleting.ts).
  for (const id of Object.keys(state.deleting ?? {})) parsers.add(id);
  return { parsers, projects };
}

/**
 * Whether `lifecycle.prevent_destroy` forbids deleting or replacing the object (the error is added). A declared
 * object says it itself; one whose manifest is gone keeps the protection state recorded when it was last applied,
 * so deleting a file never lifts it.
 */
export function isPrevented(
  ctx: Context,
  address: string,
  desired: DesiredParser | DesiredProject | undefined,
  recorded?: ResourceState,
): boolean {
  if (desired !== undefined) {
    if (!desired.preventDestroy) return false;
    ctx.errors.push(`${address}: lifecycle.prevent_destroy is set, and this plan would delete or replace it`);
    return true;
  }
  if (recorded?.preventDestroy !== true) return false;
  ctx.errors.push(
    `${address}: no manifest declares it any more, but it was applied with lifecycle.prevent_destroy, so it is not ${recorded.kind === 'Project' ? 'archived' : 'deleted'}; to remove it, declare it again with lifecycle.prevent_destroy: false, apply, then delete its manifest`,
  );
  return true;
}

type ChangeDefaults = 'regenerates' | 'destructive' | 'field_changes' | 'breaking';

/** A change's payload; regenerates, destructive, field changes and breaking may be left out. */
export type ChangeOptions<C extends ResourceChange> = Omit<C, ChangeDefaults> &
  Partial<Pick<C, ChangeDefaults>>;

/**
 * A change of one kind and action (`change<ParserCreate>({...})`): no regeneration and nothing destroyed unless said.
 */
export function change<C extends ResourceChange>(
  options: ChangeOptions<C>,
): Omit<C, ChangeDefaults> & Pick<ResourceChange, ChangeDefaults> {
  return { regenerates: false, destructive: false, field_changes: [], breaking: [], ...options };
}

/**
 * Said of an object whose live values held the API key (a webhook URL written by hand, say): the clients show it
 * as `***` everywhere, and a declared value of that field replaces it.
 */
export function noteKeyRedacted(ctx: Context, address: string, live: KeyRedacted): void {
  if (live.keyRedacted !== true) return;
  ctx.warnings.push(
    `${address}: a value the service holds for it contains the API key, shown as *** (never printed, planned or written to state); apply replaces it where the manifest declares that field, else take it out in the service`,
  );
}

export function withoutName(field: DesiredField): Omit<DesiredField, 'name'> {
  const { name: _name, ...rest } = field;
  return rest;
}

/** Whether two values of a project field are one to the service: by the field's rule (`same`), else sameJson. */
export function sameFieldValue(key: string, a: unknown, b: unknown): boolean {
  const same = projectFieldRule(key)?.same;
  return same !== undefined ? same(a, b) : sameJson(a, b);
}

/**
 * Whether two values read the same as `stable` JSON, compared in place: no strings are built and no keys sorted
 * (apply compares every field of every answer, and plan every field of every project). For values read from JSON
 * or YAML, as these are; a sparse array or a boxed number is not one of them.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (
    a === null ||
    b === null ||
    typeof a !== 'object' ||
    typeof b !== 'object' ||
    hasToJson(a) ||
    hasToJson(b)
  )
    return stable(a) === stable(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    // In an array, what JSON cannot hold is written as null.
    return a.every((item, i) => sameJson(inArray(item), inArray(b[i])));
  }
  const left = jsonEntries(a as Record<string, unknown>);
  const right = b as Record<string, unknown>;
  if (left.length !== jsonEntries(right).length) return false;
  return left.every(([key, value]) => Object.hasOwn(right, key) && sameJson(value, right[key]));
}

/** What JSON.stringify writes of an object: its own keys whose values it can hold. */
function jsonEntries(value: Record<string, unknown>): [string, unknown][] {
  return Object.entries(value).filter(([, v]) => !omitted(v));
}

function omitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

function inArray(value: unknown): unknown {
  return omitted(value) ? null : value;
}

function hasToJson(value: object): boolean {
  return typeof (value as { toJSON?: unknown }).toJSON === 'function';
}
