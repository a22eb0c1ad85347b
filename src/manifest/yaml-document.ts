import { yaml } from './yaml-library.js';
import type { Document, LineCounter, Node, Pair } from 'yaml';
import { formatKeyPath } from './diagnostic.js';
import type { Diagnostic, SourcePosition } from './diagnostic.js';

/** One YAML document of a file, with what is needed to map a key path back to a line and column. */
export interface SourceDocument {
  file: string;
  /** 0-based index of the document in its file. */
  index: number;
  doc: Document.Parsed;
  lineCounter: LineCounter;
}

/** Aliases allowed per document before it counts as an alias bomb (yaml's own guard, made explicit). */
const MAX_ALIAS_COUNT = 100;

/** Maps and lists nested deeper than this are refused; a real manifest needs a dozen levels at most. */
export const MAX_NESTING_DEPTH = 64;

/** Why a document nesting more than MAX_NESTING_DEPTH maps and lists is refused. */
export const TOO_DEEP_MESSAGE = `the document is nested too deep (more than ${MAX_NESTING_DEPTH} levels of maps and lists)`;

/** Tags of plain YAML data; any other (`!!binary`, `!!set`, `!custom`) would change what a value is. */
const PLAIN_TAGS = new Set(
  ['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((name) => `tag:yaml.org,2002:${name}`),
);

export interface ParsedFile {
  documents: SourceDocument[];
  diagnostics: Diagnostic[];
}

/** Splits a file into YAML documents; syntax errors and duplicate keys become diagnostics with their position. */
export function parseYamlFile(file: string, text: string): ParsedFile {
  const lineCounter = new (yaml().LineCounter)();
  // `merge: true` reads `<<: *base` as a merge key (YAML 1.1), the docker-compose way of reusing an anchor.
  const docs = yaml().parseAllDocuments(text, {
    lineCounter,
    prettyErrors: false,
    uniqueKeys: sameKey,
    merge: true,
  });
  const documents: SourceDocument[] = [];
  const diagnostics: Diagnostic[] = [];
  // An empty stream (empty file, only comments) yields no documents: allowed.
  const list = Array.isArray(docs) ? docs : [];
  list.forEach((doc, index) => {
    // Only the first syntax error of a document: the ones after it are nearly always its echoes.
    for (const error of doc.errors.slice(0, 1)) {
      const pos = lineCounter.linePos(error.pos[0]);
      const place = { severity: 'error' as const, file, line: pos.line, column: pos.col, path: '' };
      if (error.code === 'DUPLICATE_KEY') {
        diagnostics.push({
          ...place,
          code: 'manifest.duplicate-key',
          message: 'duplicate key: a key may appear once per map',
          hint: 'remove or merge the repeated key',
        });
      } else if (error.code === 'RESOURCE_EXHAUSTION') {
        // yaml reports a blown call stack this way; the cause is always nesting, so say that. Where the stack
        // ran out depends on the machine, so the place reported is the start of the document.
        const start = lineCounter.linePos(doc.range[0]);
        diagnostics.push(tooDeep({ ...place, line: start.line, column: start.col }));
      } else {
        diagnostics.push({
          ...place,
          code: 'manifest.yaml-syntax',
          message: `YAML syntax: ${firstLine(error.message)}`,
        });
      }
    }
    if (doc.errors.length > 0) return;
    const source = { file, index, doc, lineCounter };
    const keys = keyProblems(source);
    diagnostics.push(...keys);
    if (keys.length === 0) documents.push(source);
  });
  return { documents, diagnostics };
}

/**
 * Whether two keys of one map are the same key once the map is data: a JavaScript object stores `1`, `'1'` and
 * `1.0` (or `true` and `'true'`, `~` and `''`) under one property, so the last would silently win. yaml's own
 * check compares values, so such keys got past it. Merge keys (`<<`) may repeat.
 */
function sameKey(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!yaml().isScalar(a) || !yaml().isScalar(b)) return false;
  const x = a.value;
  const y = b.value;
  if (typeof x === 'string' && typeof y === 'string') return x === y;
  if (typeof x === 'symbol' || typeof y === 'symbol') return false;
  return propertyName(x) === propertyName(y);
}

/** The property a scalar key becomes in yaml's toJS: null is '', anything else its string form. */
function propertyName(value: unknown): string {
  return value === null ? '' : String(value);
}

/**
 * A list or a map written as a key (`? [a, b]`, `{x: 1}: …`, or an alias of one): a JavaScript object stores it
 * under a made-up name (`[ a, b ]`; js-yaml in the fast path makes `a,b`), so it is refused at the key.
 */
function keyProblems(source: SourceDocument): Diagnostic[] {
  const out: Diagnostic[] = [];
  yaml().visit(source.doc, {
    Pair(_key, pair, ancestors) {
      const key = yaml().isAlias(pair.key) ? pair.key.resolve(source.doc) : pair.key;
      if (!yaml().isCollection(key)) return undefined;
      const pos = positionOf(source, pair.key as Node);
      const what = yaml().isSeq(key) ? 'a list' : 'a map';
      out.push({
        severity: 'error',
        code: 'manifest.key-type',
        file: source.file,
        line: pos.line,
        column: pos.column,
        path: keyPathOf([...ancestors, pair]),
        message: `${what} as a key is not supported: a key is text, a number or a boolean`,
        hint: 'write the key as text; quote it if it holds brackets or braces',
      });
      return undefined;
    },
  });
  return out;
}

function tooDeep(place: Omit<Diagnostic, 'code' | 'message'>): Diagnostic {
  return {
    ...place,
    code: 'manifest.too-deep',
    message: TOO_DEEP_MESSAGE,
    hint: 'a manifest needs a few levels; check for a runaway indentation or bracket',
  };
}

/**
 * Checks what must hold before a document is turned into data: every alias names an anchor written before it,
 * no value carries a tag other than plain YAML's, nesting stays within bounds, and no key is `__proto__` (which
 * a JavaScript object would silently drop). Reports each at its own place.
 */
export function inspectDocument(source: SourceDocument): Diagnostic[] {
  const out: Diagnostic[] = [];
  const anchors = new Set<string>();
  yaml().visit(source.doc, {
    Node(_key, node, ancestors) {
      const chain = [...ancestors, node];
      const place = (): Omit<Diagnostic, 'code' | 'message'> => {
        const pos = positionOf(source, node);
        return {
          severity: 'error',
          file: source.file,
          line: pos.line,
          column: pos.column,
          path: keyPathOf(chain),
        };
      };
      if (yaml().isAlias(node)) {
        if (!anchors.has(node.source)) {
          out.push({
            ...place(),
            code: 'manifest.yaml-alias',
            message: `alias *${node.source} refers to no anchor: &${node.source} is not defined before it`,
            hint: `write &${node.source} on the value to reuse, above this alias, or write the value out`,
          });
        }
        return undefined;
      }
      if (node.anchor !== undefined) anchors.add(node.anchor);
      if (node.tag !== undefined && !PLAIN_TAGS.has(node.tag)) {
        const tag = node.tag.replace(/^tag:yaml\.org,2002:/, '!!');
        out.push({
          ...place(),
          code: 'manifest.yaml-tag',
          message: `the tag ${tag} is not supported: manifests hold plain strings, numbers, booleans, lists and maps`,
          hint: 'remove the tag; quote the value if it must stay a string',
        });
      }
      if (
        yaml().isCollection(node) &&
        ancestors.filter((a) => yaml().isCollection(a)).length >= MAX_NESTING_DEPTH
      ) {
        out.push(tooDeep(place()));
        return yaml().visit.BREAK;
      }
      return undefined;
    },
    Pair(_key, pair, ancestors) {
      if (isMergeKey(pair.key)) {
        const problem = mergeSourceProblem(source, pair.value);
        if (problem !== undefined) {
          const pos = positionOf(source, problem.node);
          out.push({
            severity: 'error',
            code: 'manifest.yaml-merge',
            file: source.file,
            line: pos.line,
            column: pos.column,
            path: keyPathOf([...ancestors, pair]),
            message: `the merge key << takes a map or a list of maps, got ${problem.got}`,
            hint: 'write <<: *anchor where &anchor is on a map (such as one under an x- key), or <<: [*a, *b]',
          });
        }
        return;
      }
      if (yaml().isScalar(pair.key) && pair.key.value === '__proto__') {
        const pos = positionOf(source, pair.key);
        out.push({
          severity: 'error',
          code: 'manifest.reserved-key',
          file: source.file,
          line: pos.line,
          column: pos.column,
          path: keyPathOf([...ancestors, pair]),
          message: 'the key "__proto__" is not allowed: JavaScript objects cannot hold it as a plain key',
          hint: 'rename it',
        });
      }
    },
  });
  return out;
}

/** A `<<` key read as a merge key (a plain `<<`; a quoted one is an ordinary key). */
export function isMergeKey(key: unknown): boolean {
  return yaml().isScalar(key) && typeof key.value === 'symbol' && key.value.description === '<<';
}

/** What a merge key's value holds that is not a map: the offending node and how to name it, if anything. */
function mergeSourceProblem(
  source: SourceDocument,
  value: unknown,
): { node: Node | null; got: string } | undefined {
  const resolve = (node: unknown): unknown => (yaml().isAlias(node) ? node.resolve(source.doc) : node);
  const describe = (node: unknown): string => {
    if (yaml().isSeq(node)) return 'a list';
    if (yaml().isScalar(node))
      return node.value === null ? 'null' : `the ${typeof node.value} ${String(node.value)}`;
    return 'nothing';
  };
  const target = resolve(value);
  if (yaml().isMap(target)) return undefined;
  if (yaml().isSeq(target)) {
    for (const item of target.items) {
      const resolved = resolve(item);
      if (!yaml().isMap(resolved)) return { node: item as Node, got: `a list holding ${describe(resolved)}` };
    }
    return undefined;
  }
  return { node: (value as Node | null) ?? null, got: describe(target) };
}

/** The key path of a node from the chain of its ancestors that yaml's visitor hands over. */
export function keyPathOf(chain: readonly unknown[]): string {
  const segments: PropertyKey[] = [];
  chain.forEach((item, i) => {
    if (yaml().isPair(item) && yaml().isScalar(item.key))
      segments.push(isMergeKey(item.key) ? '<<' : String(item.key.value));
    else if (yaml().isSeq(item)) {
      const index = item.items.indexOf(chain[i + 1] as never);
      if (index >= 0) segments.push(index);
    }
  });
  return formatKeyPath(segments);
}

function firstLine(message: string): string {
  return message.split('\n')[0]?.trim() ?? message;
}

/** The document converted to plain data, or a diagnostic when it hides an alias bomb. */
export function documentToData(source: SourceDocument): { data: unknown } | { diagnostic: Diagnostic } {
  try {
    return { data: source.doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) };
  } catch (error) {
    const pos = positionOf(source, source.doc.contents);
    return {
      diagnostic: {
        severity: 'error',
        code: 'manifest.alias-bomb',
        file: source.file,
        line: pos.line,
        column: pos.column,
        path: '',
        message: `too many YAML alias expansions (more than ${MAX_ALIAS_COUNT}): ${(error as Error).message}`,
        hint: 'write the values out instead of nesting anchors and aliases',
      },
    };
  }
}

export function positionOf(source: SourceDocument, node: Node | null | undefined): SourcePosition {
  const offset = node?.range?.[0] ?? 0;
  const pos = source.lineCounter.linePos(offset);
  return { line: pos.line, column: pos.col };
}

/**
 * The pair of a key in a map; a key the map does not write itself is looked up in what its merge keys bring in
 * (`<<: *base`), so a problem in a merged value is reported where the anchor's map writes it.
 */
function pairOf(
  source: SourceDocument,
  node: unknown,
  key: PropertyKey,
  depth = 0,
): Pair<Node, Node> | undefined {
  if (!yaml().isMap(node) || depth > MAX_NESTING_DEPTH) return undefined;
  const merges: unknown[] = [];
  for (const item of node.items) {
    if (!yaml().isPair(item) || !yaml().isScalar(item.key)) continue;
    if (isMergeKey(item.key)) merges.push(item.value);
    else if (String(item.key.value) === String(key)) return item as Pair<Node, Node>;
  }
  for (const merge of merges) {
    const target = yaml().isAlias(merge) ? merge.resolve(source.doc) : merge;
    const candidates = yaml().isSeq(target) ? target.items : [target];
    for (const candidate of candidates) {
      const map = yaml().isAlias(candidate) ? candidate.resolve(source.doc) : candidate;
      const found = pairOf(source, map, key, depth + 1);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * Where a key path points in the document. `at: 'key'` gives the key of the last segment (for unknown keys);
 * otherwise its value. A path that does not exist (a missing required key) points at the key of its deepest
 * existing ancestor, which reads naturally: `title:` is where `fields.title.description` is missing.
 */
export function locate(
  source: SourceDocument,
  path: readonly PropertyKey[],
  at: 'value' | 'key' = 'value',
): SourcePosition {
  let node: unknown = source.doc.contents;
  let lastKeyNode: Node | undefined;
  let consumed = 0;
  for (const [i, segment] of path.entries()) {
    const isLast = i === path.length - 1;
    // A value written as an alias is reported where its anchor writes it.
    if (yaml().isAlias(node)) node = node.resolve(source.doc);
    if (yaml().isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment];
      if (item === undefined) break;
      node = item;
      consumed++;
      continue;
    }
    const pair = pairOf(source, node, segment);
    if (pair === undefined) break;
    if (isLast && at === 'key') return positionOf(source, pair.key);
    lastKeyNode = pair.key;
    if (pair.value === null) return positionOf(source, pair.key);
    node = pair.value;
    consumed++;
  }
  if (consumed === path.length) return positionOf(source, node as Node);
  if (lastKeyNode !== undefined) return positionOf(source, lastKeyNode);
  return positionOf(source, source.doc.contents);
}

/**
 * A copy of a document to expand on its own (one per for_each element, or per object for a template that reads
 * its variables); its nodes keep their ranges, so every place found in it is the place in the file.
 */
export function copyDocument(source: SourceDocument): SourceDocument {
  // Only the nodes are copied: the schema, directives and errors are shared, never changed by expansion, and
  // copying them tripled the time of a for_each of 1,000 elements (bench/validate, templates variant).
  // Property descriptors, not Object.assign: yaml marks a document with a non-enumerable symbol.
  const doc = Object.create(
    Object.getPrototypeOf(source.doc) as object,
    Object.getOwnPropertyDescriptors(source.doc),
  ) as Document.Parsed;
  const contents = source.doc.contents;
  doc.contents = contents === null ? null : (contents.clone(source.doc.schema) as typeof contents);
  return { ...source, doc };
}
