import type { DesiredField, DesiredRename } from '../model/desired.js';
import type { FieldOperations } from '../model/wire.js';
import { descriptionKey, sameDescription } from './parser-spelling.js';

export type FieldChangeKind = 'add' | 'modify' | 'remove' | 'rename';

/** One field-level change, for people: what changes and whether consumers of the results notice. */
export interface FieldChange {
  change: FieldChangeKind;
  field: string;
  /** For renames: the old name. */
  from?: string;
  before?: Omit<DesiredField, 'name'>;
  after?: Omit<DesiredField, 'name'>;
  /** A rename scrapeform inferred from identical definitions, or one whose definition also changed. */
  note?: string;
  /** Downstream code reading the results sees a different shape (removed, renamed or retyped). */
  breaking: boolean;
}

export interface FieldDiff {
  /**
   * The requests, in order. Almost always one; more only when one request would depend on the order in which
   * the service applies its operations (chains, swaps, a rename onto a removed name), which no document settles.
   * Only the last one may add or modify, so a change regenerates at most once.
   */
  requests: FieldOperations[];
  changes: FieldChange[];
  regenerates: boolean;
}

export interface DiffFieldsOptions {
  /** False for adopted parsers: descriptions were never seen, so only names and parent-ness are compared. */
  descriptionsKnown: boolean;
  /** Send every declared definition once as modify_fields (`--reassert`). */
  reassert?: boolean;
}

const TEMP_SUFFIX = '__scrapeform_tmp';
/** A name segment ending in our temporary suffix (`title__scrapeform_tmp`, `title__scrapeform_tmp2`). */
const TEMP_SEGMENT = /__scrapeform_tmp\d*$/;

/**
 * The field a temporary name of ours stands for (a swap's first PATCH moves `a` to `a__scrapeform_tmp`), or
 * undefined when `name` holds no temporary segment. A parent's move carries its children: `r__scrapeform_tmp.x`
 * stands for `r.x`.
 */
export function fieldOfTemporary(name: string): string | undefined {
  const original = name
    .split('.')
    .map((segment) => segment.replace(TEMP_SEGMENT, ''))
    .join('.');
  return original === name ? undefined : original;
}

/** DESIGN section 3: from the fields last applied (or live) and the desired ones to the fewest operations. */
export function diffFields(
  previous: readonly DesiredField[],
  desired: readonly DesiredField[],
  renames: readonly DesiredRename[],
  options: DiffFieldsOptions,
): FieldDiff {
  const prevByName = new Map(previous.map((f) => [f.name, f]));
  const desiredByName = new Map(desired.map((f) => [f.name, f]));

  // 1. Where each previous field ends up: explicit hints first (parents before children; children follow a parent).
  const target = new Map(previous.map((f) => [f.name, f.name]));
  const renameSubtree = (from: string, to: string): void => {
    for (const name of target.keys()) {
      if (name === from || name.startsWith(`${from}.`)) target.set(name, to + name.slice(from.length));
    }
  };
  for (const hint of [...renames].sort((a, b) => depth(a.from) - depth(b.from))) {
    // A hint is satisfied once the field at the new name already has the desired definition (a swap stays
    // written in the manifest after it is applied).
    const satisfied =
      prevByName.has(hint.to) && sameDefinition(prevByName.get(hint.to), desiredByName.get(hint.to));
    // A swap interrupted between its two PATCHes left the field under our temporary name: the rename goes on
    // from there (free), rather than a remove and an add (a regeneration).
    const from = prevByName.has(hint.from)
      ? hint.from
      : (temporaryIn(prevByName, desiredByName, hint.from) ?? hint.from);
    if (prevByName.has(from) && from !== hint.to && !satisfied) renameSubtree(from, hint.to);
  }
  // A field that stays put while another is renamed onto its name is replaced: it is removed.
  const claimed = new Set([...target].filter(([from, to]) => from !== to).map(([, to]) => to));
  for (const [from, to] of target) if (from === to && claimed.has(from)) target.set(from, '');

  // 2. Inferred renames: a removed and an added field with identical definitions under the same parent.
  const inferred = new Set<string>();
  if (options.descriptionsKnown) {
    const landed = new Set(target.values());
    const removedTops = topMost([...target].filter(([, to]) => !desiredByName.has(to)).map(([from]) => from));
    const addedTops = topMost(desired.filter((f) => !landed.has(f.name)).map((f) => f.name));
    for (const from of removedTops) {
      const parent = parentOf(target.get(from) ?? from);
      const matches = addedTops.filter(
        (to) =>
          parentOf(to) === parent &&
          sameDefinition(prevByName.get(from), desiredByName.get(to)) &&
          sameChildren(previous, from, desired, to),
      );
      const rivals = removedTops.filter(
        (other) =>
          other !== from &&
          matches.some(
            (to) =>
              sameDefinition(prevByName.get(other), desiredByName.get(to)) &&
              parentOf(target.get(other) ?? other) === parent,
          ),
      );
      const [to] = matches;
      if (matches.length === 1 && rivals.length === 0 && to !== undefined) {
        renameSubtree(from, to);
        inferred.add(to);
        addedTops.splice(addedTops.indexOf(to), 1);
      }
    }
  }

  // 3. Classify.
  const changes: FieldChange[] = [];
  const removes: string[] = [];
  const renameOps: { name: string; new_name: string }[] = [];
  const modifies: DesiredField[] = [];
  const adds: DesiredField[] = [];
  const replacedSubtrees: string[] = [];
  const isUnder = (name: string, roots: readonly string[]): boolean =>
    roots.some((r) => name === r || name.startsWith(`${r}.`));

  // When descriptions were never seen (adoption), only a parent (a field with fields under it) on one side against
  // a plain leaf (no fields under it, not `array`) on the other is a change. Types are not compared: the service
  // reports output types (a list of values, `type: array` in a manifest, may come back as `text`) and the two
  // vocabularies never are (API-NOTES); an `array` with no fields under it may be a parent or a list.
  const previousParents = parentNames(previous);
  const desiredParents = parentNames(desired);
  for (const field of previous) {
    const to = target.get(field.name) ?? field.name;
    const wanted = desiredByName.get(to);
    if (wanted === undefined || isUnder(field.name, replacedSubtrees)) continue;
    const renamed = to !== field.name;
    const changed = options.descriptionsKnown
      ? !sameDefinition(field, wanted)
      : (previousParents.has(field.name) && plainLeaf(wanted, desiredParents)) ||
        (desiredParents.has(to) && plainLeaf(field, previousParents));
    if (renamed && changed) {
      // A renamed field whose definition also changed: remove + add in the same request; it regenerates anyway.
      replacedSubtrees.push(field.name);
      continue;
    }
    if (renamed) {
      const parent = parentOf(field.name);
      const implied = parent === '' ? field.name : `${target.get(parent) ?? parent}.${leafOf(field.name)}`;
      if (implied !== to) renameOps.push({ name: implied, new_name: to });
      if (implied !== to || parent === '' || target.get(parent) === parent) {
        changes.push({
          change: 'rename',
          field: to,
          from: field.name,
          breaking: true,
          ...(inferred.has(to) ? { note: 'inferred: same description, type and selector' } : {}),
        });
      }
      continue;
    }
    if (changed || options.reassert === true) {
      modifies.push(wanted);
      changes.push({
        change: 'modify',
        field: to,
        ...(options.descriptionsKnown ? { before: definitionOf(field) } : {}),
        after: definitionOf(wanted),
        breaking: options.descriptionsKnown && field.type !== wanted.type,
        ...(!changed ? { note: 'reasserted: the service never returned its description' } : {}),
      });
    }
  }
  for (const root of replacedSubtrees) {
    const to = target.get(root) ?? root;
    changes.push({
      change: 'remove',
      field: root,
      breaking: true,
      note: `renamed to ${to} with a new definition: removed and added`,
    });
  }

  const landed = new Set(
    [...target].filter(([from]) => !isUnder(from, replacedSubtrees)).map(([, to]) => to),
  );
  for (const field of previous) {
    const to = target.get(field.name) ?? field.name;
    if (desiredByName.has(to) && !isUnder(field.name, replacedSubtrees)) continue;
    if (isUnder(field.name, replacedSubtrees)) {
      if (replacedSubtrees.includes(field.name)) removes.push(field.name);
      continue;
    }
    const parent = parentOf(field.name);
    if (parent !== '' && !desiredByName.has(target.get(parent) ?? parent)) continue; // goes with its parent
    const current = parent === '' ? field.name : `${target.get(parent) ?? parent}.${leafOf(field.name)}`;
    removes.push(current);
    changes.push({ change: 'remove', field: current, before: definitionOf(field), breaking: true });
  }
  for (const field of desired) {
    if (landed.has(field.name)) continue;
    adds.push(field);
    changes.push({ change: 'add', field: field.name, after: definitionOf(field), breaking: false });
  }

  return {
    requests: orderIntoRequests(
      previous.map((f) => f.name),
      removes,
      renameOps,
      modifies,
      adds,
    ),
    changes,
    regenerates: modifies.length + adds.length > 0,
  };
}

/**
 * Splits the operations into the fewest requests whose operations do not depend on each other's order: in each,
 * every name an operation reads exists before the request and every name it creates is free before it, and no two
 * operations touch the same name. Renames that form a cycle (a swap) go through a temporary name. Adds and
 * modifies go in the last request.
 */
function orderIntoRequests(
  existing: readonly string[],
  removes: readonly string[],
  renames: readonly { name: string; new_name: string }[],
  modifies: readonly DesiredField[],
  adds: readonly DesiredField[],
): FieldOperations[] {
  const current = new Set(existing);
  const exists = (name: string): boolean => current.has(name);
  const subtree = (name: string): string[] =>
    [...current].filter((n) => n === name || n.startsWith(`${name}.`));
  let pendingRemoves = [...removes];
  let pendingRenames = renames.map((r) => ({ ...r }));
  const requests: FieldOperations[] = [];

  while (pendingRemoves.length + pendingRenames.length > 0) {
    const touched: string[] = [];
    const overlaps = (name: string): boolean =>
      touched.some((t) => t === name || t.startsWith(`${name}.`) || name.startsWith(`${t}.`));
    const wave: FieldOperations = {};
    const doneRemoves: string[] = [];
    for (const name of pendingRemoves) {
      if (!exists(name) || overlaps(name)) continue;
      touched.push(name);
      doneRemoves.push(name);
    }
    const doneRenames: typeof pendingRenames = [];
    for (const op of pendingRenames) {
      if (!exists(op.name) || exists(op.new_name) || overlaps(op.name) || overlaps(op.new_name)) continue;
      touched.push(op.name, op.new_name);
      doneRenames.push(op);
    }
    if (doneRemoves.length + doneRenames.length === 0) {
      // Only cycles are left (swaps): every source moves to a free temporary name, then on to its target,
      // two requests whatever the length of the cycle.
      if (pendingRenames.length === 0) break;
      const moves = pendingRenames.map((op) => {
        let temporary = `${op.name}${TEMP_SUFFIX}`;
        for (let n = 2; exists(temporary); n++) temporary = `${op.name}${TEMP_SUFFIX}${n}`;
        return { op, temporary };
      });
      pendingRenames = [
        ...moves.map(({ op, temporary }) => ({ name: op.name, new_name: temporary })),
        ...moves.map(({ op, temporary }) => ({ name: temporary, new_name: op.new_name })),
      ];
      continue;
    }
    for (const name of doneRemoves) for (const n of subtree(name)) current.delete(n);
    for (const op of doneRenames) {
      for (const n of subtree(op.name)) {
        current.delete(n);
        current.add(op.new_name + n.slice(op.name.length));
      }
    }
    if (doneRemoves.length > 0) wave.remove_fields = doneRemoves;
    if (doneRenames.length > 0)
      wave.rename_fields = doneRenames.map((r) => ({ name: r.name, new_name: r.new_name }));
    requests.push(wave);
    pendingRemoves = pendingRemoves.filter((n) => !doneRemoves.includes(n));
    pendingRenames = pendingRenames.filter((r) => !doneRenames.includes(r));
  }

  if (modifies.length + adds.length > 0) {
    const last = requests[requests.length - 1];
    // Adds and modifies join the last rename/remove request when nothing in it touches their names.
    const lastNames =
      last === undefined
        ? []
        : [...(last.remove_fields ?? []), ...(last.rename_fields ?? []).flatMap((r) => [r.name, r.new_name])];
    const clash = [...modifies, ...adds].some((f) =>
      lastNames.some((n) => n === f.name || f.name.startsWith(`${n}.`) || n.startsWith(`${f.name}.`)),
    );
    const wave: FieldOperations = last !== undefined && !clash ? last : {};
    if (modifies.length > 0) wave.modify_fields = [...modifies];
    if (adds.length > 0) wave.add_fields = [...adds];
    if (wave !== last) requests.push(wave);
  }
  return requests;
}

/** The one temporary name of ours that `previous` holds for `name` (and no manifest declares), if any. */
function temporaryIn(
  previous: ReadonlyMap<string, DesiredField>,
  desired: ReadonlyMap<string, DesiredField>,
  name: string,
): string | undefined {
  const found = [...previous.keys()].filter(
    (n) => !desired.has(n) && depth(n) === depth(name) && fieldOfTemporary(n) === name,
  );
  return found.length === 1 ? found[0] : undefined;
}

export function sameDefinition(a: DesiredField | undefined, b: DesiredField | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  // A description respelled (Unicode form, white space) is no change to send: a modify regenerates.
  return sameDescription(a.description, b.description) && a.type === b.type && a.selector === b.selector;
}

function sameChildren(
  previous: readonly DesiredField[],
  from: string,
  desired: readonly DesiredField[],
  to: string,
): boolean {
  const kids = (fields: readonly DesiredField[], root: string): string[] =>
    fields
      .filter((f) => f.name.startsWith(`${root}.`))
      .map((f) =>
        JSON.stringify([
          f.name.slice(root.length),
          descriptionKey(f.description),
          f.type ?? null,
          f.selector ?? null,
        ]),
      )
      .sort();
  return JSON.stringify(kids(previous, from)) === JSON.stringify(kids(desired, to));
}

function definitionOf(field: DesiredField): Omit<DesiredField, 'name'> {
  const { name: _name, ...rest } = field;
  return rest;
}

/** A field with no fields under it whose type is not `array`: neither a parent nor a list of values. */
function plainLeaf(field: DesiredField, parents: ReadonlySet<string>): boolean {
  return !parents.has(field.name) && field.type !== 'array';
}

/** The names that have a field under them (`reviews` for `reviews.author`). */
function parentNames(fields: readonly DesiredField[]): Set<string> {
  return new Set(fields.map((f) => parentOf(f.name)).filter((name) => name !== ''));
}

function topMost(names: readonly string[]): string[] {
  return names.filter((n) => !names.some((other) => n.startsWith(`${other}.`)));
}

export function parentOf(name: string): string {
  const cut = name.lastIndexOf('.');
  return cut < 0 ? '' : name.slice(0, cut);
}

function leafOf(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

function depth(name: string): number {
  return name.split('.').length;
}
