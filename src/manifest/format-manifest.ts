import { isDeepStrictEqual } from 'node:util';
import { isAlias, isCollection, isMap, isScalar, parseAllDocuments, visit } from 'yaml';
import type { Alias, Document, Node, YAMLMap } from 'yaml';
import { PROJECT_DIFFABLE_KEYS } from '../model/vocabulary.js';
import { readLineEndings, writeLineEndings } from './line-endings.js';
import { keepScalarSource, SOURCE_TAG } from './scalar-source.js';

/** The order keys are written in: as DESIGN section 1 shows them; keys not listed keep their place after these. */
const PARSER_KEYS = [
  'apiVersion',
  'kind',
  'name',
  'extends',
  'for_each',
  '<<',
  'urls',
  'scraper_params',
  'fields',
  'lifecycle',
  'expect',
];
const PROJECT_KEYS = [
  'apiVersion',
  'kind',
  'name',
  'extends',
  'for_each',
  '<<',
  ...PROJECT_DIFFABLE_KEYS,
  'lifecycle',
];
const FORMATTED_KINDS = ['Parser', 'Project', 'ParserTemplate', 'ProjectTemplate'];
const FIELD_KEYS = ['description', 'type', 'selector', 'renamed_from', 'fields'];
const INPUT_KEYS = ['type', 'list', 'file', 'url'];
const LIFECYCLE_KEYS = ['prevent_destroy', 'ignore_changes'];
const EXPECT_KEYS = ['url', 'result'];

/**
 * A manifest file in canonical form (`scrapeform fmt`): keys in the documented order, two-space indentation, no
 * line wrapping. Comments, flow style, quoting, anchors and each scalar's text stay as written (scalar-source.ts);
 * only order and indentation change, so the meaning never does (a document whose sorting would put an alias before
 * its anchor keeps its key order). Returns the text unchanged when it does not parse (validate reports why).
 *
 * A UTF-8 byte order mark and CRLF line endings are kept as found (the ending of the first line, for a file that
 * mixes both): a Windows checkout was rewritten whole to LF, and `--check` failed on every formatted file.
 */
export function formatManifestText(text: string): string {
  const { endings, body } = readLineEndings(text);
  const formatted = formatLfText(body, true);
  // A file left as it is (it does not parse, or holds no manifest) is left byte for byte, mixed endings included.
  if (formatted === body) return text;
  return writeLineEndings(endings, formatted);
}

/**
 * With `keepSource`, every scalar is written as it was (scalar-source.ts), and the result is kept only when it reads
 * back as the same values, else the text is formatted again the library's way (a scalar whose lines could not be
 * indented anew): the meaning never changes, whatever is written.
 */
function formatLfText(text: string, keepSource = false): string {
  const options = keepSource ? { keepSourceTokens: true, customTags: [SOURCE_TAG] } : {};
  const documents = parseAllDocuments(text, options);
  if (!Array.isArray(documents) || documents.some((d) => d.errors.length > 0)) return text;
  const kindOf = (root: unknown): unknown => {
    if (!isMap(root)) return undefined;
    const kind = root.get('kind', true);
    return isScalar(kind) ? kind.value : undefined;
  };
  // Files that hold no scrapeform manifest (a workflow, a compose file) are never rewritten.
  if (!documents.some((d) => FORMATTED_KINDS.includes(String(kindOf(d.contents))))) return text;
  const targetsOf = documents.map(aliasTargets);
  // An alias naming no anchor before it cannot be written (the library throws): such a file is left as it is, as
  // one that does not parse (validate says where).
  if (targetsOf.some((targets) => [...targets.values()].includes(undefined))) return text;
  // The documents as written, parsed again only when one of them has to keep its key order.
  let asWritten: Document[] | undefined;
  const out = documents.map((doc, index) => {
    const root = doc.contents;
    const kind = kindOf(root);
    const targets = targetsOf[index] ?? aliasTargets(doc);
    if (isMap(root) && (kind === 'Parser' || kind === 'ParserTemplate')) formatParser(root);
    else if (isMap(root) && (kind === 'Project' || kind === 'ProjectTemplate')) formatProject(root);
    // A key moved ahead of the anchor its alias names (`urls: [*u]` sorted before `expect: [{ url: &u ... }]`)
    // cannot be written, or names another anchor of that name: that document keeps its key order.
    const written = aliasesKept(doc, targets)
      ? doc
      : (asWritten ??= parseAllDocuments(text, options) as Document[])[index];
    if (keepSource) keepScalarSource(written ?? doc);
    return (written ?? doc).toString({ indent: 2, lineWidth: 0 });
  });
  const formatted = out.join('');
  if (!keepSource || formatted === text || sameValues(text, formatted)) return formatted;
  return formatLfText(text);
}

/**
 * Whether two texts parse without errors into the same documents with the same values: a text written with each
 * scalar's source (scalar-source.ts) is kept only when it reads back as the library's form of it does.
 */
export function sameValues(before: string, after: string): boolean {
  const read = (text: string): unknown[] | undefined => {
    const docs = parseAllDocuments(text);
    if (!Array.isArray(docs) || docs.some((d) => d.errors.length > 0)) return undefined;
    // Maps as Map: a key that is a list is compared as one, with no warning. Aliases expanded past the library's
    // limit (a billion laughs) throw: formatted the library's way then.
    try {
      return docs.map((d) => d.toJS({ mapAsMap: true }));
    } catch {
      return undefined;
    }
  };
  const values = read(after);
  return values !== undefined && isDeepStrictEqual(read(before), values);
}

/** Each alias of a document and the node it names, as the document is written. */
function aliasTargets(doc: Document): Map<Alias, unknown> {
  const targets = new Map<Alias, unknown>();
  visit(doc, {
    Alias: (_, alias) => {
      targets.set(alias, alias.resolve(doc));
    },
  });
  return targets;
}

/** Whether every alias still comes after the anchor it named before keys were sorted. */
function aliasesKept(doc: Document, targets: Map<Alias, unknown>): boolean {
  const anchors = new Map<string, unknown>();
  let kept = true;
  visit(doc, (_, node) => {
    if (isAlias(node)) {
      if (anchors.get(node.source) === targets.get(node)) return undefined;
      kept = false;
      return visit.BREAK;
    }
    if ((isScalar(node) || isCollection(node)) && node.anchor !== undefined) anchors.set(node.anchor, node);
    return undefined;
  });
  return kept;
}

function formatParser(root: YAMLMap): void {
  sortKeys(root, PARSER_KEYS);
  formatFields(root.get('fields', true));
  sortChild(root, 'lifecycle', LIFECYCLE_KEYS);
  const expect = root.get('expect', true);
  if (expect !== undefined && 'items' in expect && Array.isArray(expect.items)) {
    for (const item of expect.items) if (isMap(item)) sortKeys(item, EXPECT_KEYS);
  }
}

function formatProject(root: YAMLMap): void {
  sortKeys(root, PROJECT_KEYS);
  sortChild(root, 'projectInput', INPUT_KEYS);
  sortChild(root, 'lifecycle', LIFECYCLE_KEYS);
}

/** Field maps keep the order the user chose for fields (it is the order of results); each field's keys are sorted. */
function formatFields(fields: unknown): void {
  if (!isMap(fields)) return;
  for (const pair of fields.items) {
    if (!isMap(pair.value)) continue;
    sortKeys(pair.value, FIELD_KEYS);
    formatFields(pair.value.get('fields', true));
  }
}

function sortChild(root: YAMLMap, key: string, order: readonly string[]): void {
  const child = root.get(key, true) as Node | undefined;
  if (isMap(child)) sortKeys(child, order);
}

function sortKeys(map: YAMLMap, order: readonly string[]): void {
  const rank = (key: unknown): number => {
    const value: unknown = isScalar(key) ? key.value : key;
    const name = typeof value === 'symbol' ? (value.description ?? '') : String(value);
    // `x-` keys come first: they hold the anchors the rest of the document aliases.
    if (name.startsWith('x-')) return -1;
    const at = order.indexOf(name);
    return at === -1 ? order.length : at;
  };
  // A stable sort: keys not in the order keep their relative place after the known ones.
  map.items = map.items
    .map((pair, index) => ({ pair, index }))
    .sort((a, b) => rank(a.pair.key) - rank(b.pair.key) || a.index - b.index)
    .map(({ pair }) => pair);
}
