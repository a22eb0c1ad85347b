import type { LiveField, LiveParserDetails } from '../api/live.js';
import type { DesiredField } from '../model/desired.js';
import { parentOf } from './diff-fields.js';

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

export function topMost(names: readonly string[]): string[] {
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
