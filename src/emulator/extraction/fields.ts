import { parseSelector } from './page.js';
import type { Locator, Match, Page } from './page.js';

/** A field definition as the service keeps it (seed 1, "Field definition"). */
export interface FieldSpec {
  name: string;
  description: string;
  type?: 'string' | 'number' | 'array';
  selector?: string;
}

/** A field with the locator generation settled on; children for array parents. Plain data, stored per version. */
export interface CompiledField {
  /** The key in results: the last segment of the dot name. */
  key: string;
  name: string;
  type?: FieldSpec['type'];
  /** Absent when generation found the field on no example page: it is then left out of results. */
  locator?: Locator;
  children?: CompiledField[];
}

/** Turns flat dot-notation fields into a tree; a child whose parent is not listed is an error for the caller. */
export function fieldTree(specs: readonly FieldSpec[]): {
  roots: FieldSpec[];
  children: Map<string, FieldSpec[]>;
} {
  const names = new Set(specs.map((s) => s.name));
  const roots: FieldSpec[] = [];
  const children = new Map<string, FieldSpec[]>();
  for (const spec of specs) {
    const cut = spec.name.lastIndexOf('.');
    if (cut < 0) {
      roots.push(spec);
      continue;
    }
    const parent = spec.name.slice(0, cut);
    if (!names.has(parent)) throw new Error(`field ${spec.name} has no parent field ${parent}`);
    children.set(parent, [...(children.get(parent) ?? []), spec]);
  }
  return { roots, children };
}

/** Generation: settles a locator for every field against the example pages. */
export function compileFields(specs: readonly FieldSpec[], pages: readonly Page[]): CompiledField[] {
  const { roots, children } = fieldTree(specs);
  const compile = (spec: FieldSpec, scope: readonly Page[]): CompiledField => {
    const key = spec.name.slice(spec.name.lastIndexOf('.') + 1);
    const kids = children.get(spec.name);
    if (kids !== undefined) {
      const locator = spec.selector !== undefined ? parseSelector(spec.selector) : findItems(scope, key);
      const items = locator === undefined ? [] : scope.flatMap((page) => itemPages(page, locator));
      return {
        key,
        name: spec.name,
        type: 'array',
        ...(locator !== undefined ? { locator } : {}),
        children: kids.map((kid) => compile(kid, items)),
      };
    }
    const locator = spec.selector !== undefined ? parseSelector(spec.selector) : findLeaf(scope, spec);
    return {
      key,
      name: spec.name,
      ...(spec.type !== undefined ? { type: spec.type } : {}),
      ...(locator !== undefined ? { locator } : {}),
    };
  };
  return roots.map((root) => compile(root, pages));
}

/** Applies compiled fields to a page: a located field missing on this page is null; an unlocated one is left out. */
export function extractResult(page: Page, fields: readonly CompiledField[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const field of fields) {
    if (field.locator === undefined) continue;
    const value = valueOf(page, field);
    result[field.key] = value === undefined ? null : value;
  }
  return result;
}

/** Whether a field was found on at least one example page. */
export function located(fields: readonly CompiledField[]): boolean {
  return fields.some((f) => f.locator !== undefined);
}

function valueOf(page: Page, field: CompiledField): unknown {
  const locator = field.locator;
  if (locator === undefined) return undefined;
  if (field.children !== undefined) {
    return itemPages(page, locator).map((item) => {
      const record: Record<string, unknown> = {};
      for (const child of field.children ?? []) {
        // Inside an item a missing key is left out: "a key can be absent from some items" (seed 1, Parse result).
        const value = valueOf(item, child);
        if (value !== undefined) record[child.key] = value;
      }
      return record;
    });
  }
  return convert(page.select(locator), field.type);
}

function itemPages(page: Page, locator: Locator): Page[] {
  return page
    .select(locator)
    .filter((m): m is Match & { html: string } => m.html !== undefined)
    .map((m) => page.item(m.html));
}

function convert(matches: readonly Match[], type: FieldSpec['type']): unknown {
  const values = matches.map((m) => m.value).filter((v) => v !== '');
  if (type === 'array') return values.length > 0 ? values : undefined;
  const first = values[0];
  if (first === undefined) return undefined;
  if (type === 'number') return parseNumber(first);
  return first;
}

/** The first number in a text: `£51.77` -> 51.77, `1,299.00 USD` -> 1299, `4 stars` -> 4. */
export function parseNumber(text: string): number | undefined {
  const match = /-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?/.exec(text);
  return match === null ? undefined : Number(match[0].replace(/,/g, ''));
}

const STOP_WORDS = new Set(
  'the and with from this that shown under over into about each when where which what their there these those such than then also only more most some any all per its for are was were been has have had not but can may page pages value values text number numbers name names list field fields'.split(
    ' ',
  ),
);

function words(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= 3);
}

function variants(name: string): string[] {
  const parts = words(name);
  const lower = name.toLowerCase();
  const camel = parts.map((p, i) => (i === 0 ? p : p[0]?.toUpperCase() + p.slice(1))).join('');
  return [
    ...new Set([lower, parts.join('_'), parts.join('-'), parts.join(''), camel].filter((v) => v !== '')),
  ];
}

const SEMANTIC: { words: string[]; candidates: string[] }[] = [
  {
    words: ['title', 'headline', 'heading', 'name'],
    candidates: ['h1', 'meta[property="og:title"]', 'title'],
  },
  {
    words: ['image', 'img', 'photo', 'picture', 'thumbnail'],
    candidates: ['meta[property="og:image"]', 'img@src'],
  },
  { words: ['description', 'summary'], candidates: ['meta[name="description"]', '[itemprop="description"]'] },
  { words: ['link', 'links', 'url', 'urls', 'href'], candidates: ['a@href'] },
  { words: ['date', 'published', 'time'], candidates: ['time@datetime'] },
  { words: ['author', 'byline'], candidates: ['[rel="author"]', 'meta[name="author"]'] },
];

/**
 * The heuristic locator for a field without a selector: its name, then the words of its description, looked for
 * in itemprop, JSON-LD, meta tags, ids and classes, then headings and other elements that usually hold such data.
 */
function findLeaf(pages: readonly Page[], spec: FieldSpec): Locator | undefined {
  if (pages.length === 0) return undefined;
  const nameWords = words(spec.name.slice(spec.name.lastIndexOf('.') + 1));
  const descriptionWords = words(spec.description).filter((w) => !STOP_WORDS.has(w) && w.length >= 4);
  const all = new Set([...nameWords, ...descriptionWords]);
  const wantsLink = ['link', 'links', 'url', 'urls', 'href', 'address', 'page'].some((w) => all.has(w));
  const wantsImage = ['image', 'img', 'photo', 'picture', 'src', 'thumbnail'].some((w) => all.has(w));
  const wantsDate = ['date', 'time', 'published', 'datetime'].some((w) => all.has(w));
  const leaf = spec.name.slice(spec.name.lastIndexOf('.') + 1);
  const byLength = (list: string[]): string[] => [...new Set(list)].sort((a, b) => b.length - a.length);
  const candidates: Locator[] = [];
  const css = (selector: string): void => void candidates.push(parseSelector(selector));
  for (const v of variants(leaf)) css(`[itemprop="${v}"]`);
  for (const v of [...variants(leaf), ...byLength(nameWords)]) candidates.push({ kind: 'jsonld', key: v });
  for (const v of variants(leaf)) {
    css(`meta[property="og:${v}"]`);
    css(`meta[name="${v}"]`);
  }
  for (const v of variants(leaf)) css(`#${cssIdent(v)}`);
  for (const v of variants(leaf)) css(`.${cssIdent(v)}`);
  for (const w of byLength(nameWords)) {
    css(`[id*="${w}"]`);
    css(`[class*="${w}"]`);
  }
  for (const entry of SEMANTIC)
    if (entry.words.some((w) => nameWords.includes(w))) entry.candidates.forEach(css);
  for (const w of byLength(descriptionWords)) css(`[class*="${w}"]`);
  for (const entry of SEMANTIC)
    if (entry.words.some((w) => descriptionWords.includes(w))) entry.candidates.forEach(css);

  for (const candidate of candidates) {
    const found = pages.flatMap((page) => page.select(candidate)).filter((m) => m.value !== '');
    const first = found[0];
    if (first === undefined) continue;
    if (spec.type === 'number' && !found.some((m) => parseNumber(m.value) !== undefined)) continue;
    if (candidate.kind === 'css' && candidate.attr === undefined) {
      if (first.tag === 'a' && wantsLink) return { ...candidate, attr: 'href' };
      if (first.tag === 'img' && (wantsImage || wantsLink)) return { ...candidate, attr: 'src' };
      if (first.tag === 'time' && wantsDate) return { ...candidate, attr: 'datetime' };
    }
    return candidate;
  }
  return undefined;
}

/** The heuristic locator of an array parent's items: repeated elements named like it (singular or plural). */
function findItems(pages: readonly Page[], name: string): Locator | undefined {
  const plural = name.toLowerCase();
  const singular = plural.endsWith('ies') ? `${plural.slice(0, -3)}y` : plural.replace(/s$/, '');
  const candidates = [
    `[itemprop="${singular}"]`,
    `[itemprop="${plural}"] > *`,
    `.${cssIdent(singular)}`,
    `.${cssIdent(plural)} > *`,
    ...(/^[a-z]+$/.test(singular) && singular !== plural ? [singular] : []),
    `[class*="${singular}"]`,
  ];
  for (const selector of candidates) {
    const locator: Locator = { kind: 'css', selector };
    if (pages.some((page) => page.select(locator).length > 0)) return locator;
  }
  return undefined;
}

function cssIdent(value: string): string {
  return value.replace(/[^A-Za-z0-9_-]/g, (c) => `\\${c}`);
}

/** The output type the details endpoint reports for a compiled field (seed 1: array, text, attribute). */
export function outputType(field: CompiledField): 'array' | 'text' | 'attribute' {
  if (field.children !== undefined) return 'array';
  const locator = field.locator;
  if (locator?.kind === 'css' && locator.attr !== undefined) return 'attribute';
  if (locator?.kind === 'xpath' && /\/@[\w:-]+\s*$/.test(locator.expr)) return 'attribute';
  return 'text';
}

/** Flattens a compiled tree back to dot-notation names, parents first (the details endpoint's `fields`). */
export function flattenCompiled(fields: readonly CompiledField[]): CompiledField[] {
  return fields.flatMap((f) => [f, ...flattenCompiled(f.children ?? [])]);
}
