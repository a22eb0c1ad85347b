import { isMap, isScalar, parseAllDocuments } from 'yaml';
import type { Node, YAMLMap } from 'yaml';
import { PROJECT_DIFFABLE_KEYS } from '../model/vocabulary.js';

/** The order keys are written in: as DESIGN section 1 shows them; keys not listed keep their place after these. */
const PARSER_KEYS = ['apiVersion', 'kind', 'name', 'urls', 'scraper_params', 'fields', 'lifecycle', 'expect'];
const PROJECT_KEYS = ['apiVersion', 'kind', 'name', ...PROJECT_DIFFABLE_KEYS, 'lifecycle'];
const FIELD_KEYS = ['description', 'type', 'selector', 'renamed_from', 'fields'];
const INPUT_KEYS = ['type', 'list', 'file', 'url'];
const LIFECYCLE_KEYS = ['prevent_destroy', 'ignore_changes'];
const EXPECT_KEYS = ['url', 'result'];

/**
 * A manifest file in canonical form (`scrapeform fmt`): keys in the documented order, two-space indentation, no
 * line wrapping. Comments, flow style, quoting and anchors stay as written; only order and indentation change, so
 * the meaning never does. Returns the text unchanged when it does not parse (validate reports why).
 */
export function formatManifestText(text: string): string {
  const documents = parseAllDocuments(text);
  if (!Array.isArray(documents) || documents.some((d) => d.errors.length > 0)) return text;
  const kindOf = (root: unknown): unknown => {
    if (!isMap(root)) return undefined;
    const kind = root.get('kind', true);
    return isScalar(kind) ? kind.value : undefined;
  };
  // Files that hold no scrapeform manifest (a workflow, a compose file) are never rewritten.
  if (!documents.some((d) => ['Parser', 'Project'].includes(String(kindOf(d.contents))))) return text;
  const out = documents.map((doc) => {
    const root = doc.contents;
    const kind = kindOf(root);
    if (isMap(root) && kind === 'Parser') formatParser(root);
    else if (isMap(root) && kind === 'Project') formatProject(root);
    return doc.toString({ indent: 2, lineWidth: 0 });
  });
  return out.join('');
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
    const name = isScalar(key) ? String(key.value) : String(key);
    const at = order.indexOf(name);
    return at === -1 ? order.length : at;
  };
  // A stable sort: keys not in the order keep their relative place after the known ones.
  map.items = map.items
    .map((pair, index) => ({ pair, index }))
    .sort((a, b) => rank(a.pair.key) - rank(b.pair.key) || a.index - b.index)
    .map(({ pair }) => pair);
}
