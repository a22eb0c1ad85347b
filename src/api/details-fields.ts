import type { LiveField } from './live.js';
import { isRecord } from '../is-record.js';

/** A `fields` entry of a details answer as read: children may come nested under their parent. */
export interface DetailsFieldEntry {
  name: string;
  type?: string | undefined;
  fields?: readonly DetailsFieldEntry[] | null | undefined;
  children?: readonly DetailsFieldEntry[] | null | undefined;
  /** Any other key the answer gave (the schema is loose): read only by findMiscasedChildren. */
  readonly [key: string]: unknown;
}

/**
 * The fields of a details answer as the seed lists them: one entry per field, children named in dot notation after
 * their parent, each parent listed with type `array` (seed 1, "Parser details"). The real service may answer in
 * another shape (API-NOTES: only the seed shows one): children nested under their parent (`fields` or `children`,
 * named by their own name or in full), or a parent only implied by its children's names. Read as it came, a child
 * or a parent would be missing, and the plan would send it again as add_fields: a regeneration (30,000 credits)
 * for a field the parser has. So each is read as the seed's entry; a name given twice is kept once.
 */
export function flattenDetailsFields(entries: readonly DetailsFieldEntry[]): LiveField[] {
  const out: LiveField[] = [];
  const seen = new Set<string>();
  const add = (name: string, type: string | undefined): void => {
    if (seen.has(name)) return;
    // A parent its children imply, before them, as the seed lists it.
    const cut = name.lastIndexOf('.');
    if (cut > 0) add(name.slice(0, cut), 'array');
    seen.add(name);
    out.push({ name, ...(type !== undefined ? { type } : {}) });
  };
  const walk = (list: readonly DetailsFieldEntry[], parent: string): void => {
    for (const entry of list) {
      const name =
        parent === '' || entry.name.startsWith(`${parent}.`) ? entry.name : `${parent}.${entry.name}`;
      add(name, entry.type);
      for (const children of [entry.fields, entry.children]) if (children) walk(children, name);
    }
  };
  walk(entries, '');
  return out;
}

/** Where a details answer lists children under a key it does not read: the path from `fields`, and the key. */
export interface MiscasedChildren {
  path: string;
  key: string;
}

/**
 * The first child list under a key spelled as `fields` or `children` in another case (`Fields`, `CHILDREN`), or under
 * any other key that holds a list of named entries (`subfields`, `properties`, `items`), with its path as the answer
 * nests it (`fields.1.Fields`). flattenDetailsFields reads only the two keys as written, so
 * those children would be dropped without a word, and planned as new fields: add_fields on a drift read, a
 * regeneration on adoption. ParsersClient.get refuses such an answer, as a FINISHED one whose top-level `fields`
 * is spelled so (it reads as having none). An empty list, or any value but a list, drops nothing and is let pass.
 */
export function findMiscasedChildren(
  entries: readonly DetailsFieldEntry[],
  path = 'fields',
): MiscasedChildren | undefined {
  for (const [at, entry] of entries.entries()) {
    const here = `${path}.${at}`;
    for (const [key, value] of Object.entries(entry)) {
      if (key === 'fields' || key === 'children') continue;
      // Only a list holds children: a count (`Children: 2`) or any other value drops none, and is read as it is.
      if (!Array.isArray(value) || value.length === 0) continue;
      const spelled = key.toLowerCase() === 'fields' || key.toLowerCase() === 'children';
      // A list of named entries under another key (`subfields`, `properties`, `items`) is children too.
      if (spelled || value.every(isNamedEntry)) return { path: `${here}.${key}`, key };
    }
    for (const key of ['fields', 'children'] as const) {
      const children = entry[key];
      const found = children ? findMiscasedChildren(children, `${here}.${key}`) : undefined;
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function isNamedEntry(value: unknown): boolean {
  return isRecord(value) && typeof value['name'] === 'string';
}

/** What is wrong with an answer findMiscasedChildren found children in: the one sentence plan and doctor say. */
export function miscasedProblem({ path, key }: MiscasedChildren): string {
  return `field ${path}: children listed under ${JSON.stringify(key)} are not read (only "fields" and "children" are): read without them, they would be planned as new fields, a paid regeneration`;
}
