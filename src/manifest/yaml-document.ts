import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import type { Document, LineCounter, Node, Pair } from 'yaml';
import { CORE_SCHEMA, loadAll as loadAllYaml } from 'js-yaml';
import { formatKeyPath } from './diagnostic.js';
import type { Diagnostic, SourcePosition } from './diagnostic.js';

/**
 * yaml's document model, loaded by the first file that needs it: a file of plain YAML is read by js-yaml
 * (readPlainYaml), so `validate` of such files never loads yaml's seventy-odd modules. `require` keeps the
 * reading synchronous; yaml ships a CommonJS build.
 */
let library: typeof Yaml | undefined;
export function yamlLibrary(): typeof Yaml {
  library ??= createRequire(import.meta.url)('yaml') as typeof Yaml;
  return library;
}

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
  const { LineCounter, parseAllDocuments } = yamlLibrary();
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
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
    if (doc.errors.length === 0) documents.push({ file, index, doc, lineCounter });
  });
  return { documents, diagnostics };
}

function tooDeep(place: Omit<Diagnostic, 'code' | 'message'>): Diagnostic {
  return {
    ...place,
    code: 'manifest.too-deep',
    message: `the document is nested too deep (more than ${MAX_NESTING_DEPTH} levels of maps and lists)`,
    hint: 'a manifest needs a few levels; check for a runaway indentation or bracket',
  };
}

/**
 * Checks what must hold before a document is turned into data: every alias names an anchor written before it,
 * no value carries a tag other than plain YAML's, nesting stays within bounds, and no key is `__proto__` (which
 * a JavaScript object would silently drop). Reports each at its own place.
 */
export function inspectDocument(source: SourceDocument): Diagnostic[] {
  const { isAlias, isCollection, isScalar, visit } = yamlLibrary();
  const out: Diagnostic[] = [];
  const anchors = new Set<string>();
  visit(source.doc, {
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
      if (isAlias(node)) {
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
      if (isCollection(node) && ancestors.filter((a) => isCollection(a)).length >= MAX_NESTING_DEPTH) {
        out.push(tooDeep(place()));
        return visit.BREAK;
      }
      return undefined;
    },
    Pair(_key, pair, ancestors) {
      if (isScalar(pair.key) && pair.key.value === '__proto__') {
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

/** The key path of a node from the chain of its ancestors that yaml's visitor hands over. */
export function keyPathOf(chain: readonly unknown[]): string {
  const { isPair, isScalar, isSeq } = yamlLibrary();
  const segments: PropertyKey[] = [];
  chain.forEach((item, i) => {
    if (isPair(item) && isScalar(item.key)) segments.push(String(item.key.value));
    else if (isSeq(item)) {
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

function pairOf(node: unknown, key: PropertyKey): Pair<Node, Node> | undefined {
  const { isMap, isPair, isScalar } = yamlLibrary();
  if (!isMap(node)) return undefined;
  for (const item of node.items) {
    if (isPair(item) && isScalar(item.key) && String(item.key.value) === String(key)) {
      return item as Pair<Node, Node>;
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
  const { isSeq } = yamlLibrary();
  let node: unknown = source.doc.contents;
  let lastKeyNode: Node | undefined;
  let consumed = 0;
  for (const [i, segment] of path.entries()) {
    const isLast = i === path.length - 1;
    if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment];
      if (item === undefined) break;
      node = item;
      consumed++;
      continue;
    }
    const pair = pairOf(node, segment);
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

/** One document read by the fast path: its data, and where the document and its `name` value start. */
export interface PlainDocument {
  index: number;
  data: unknown;
  origin: SourcePosition;
  namePosition: SourcePosition | undefined;
}

/** Any of these may make the two parsers disagree or need a check on the YAML itself: such files go the full way. */
const NEEDS_FULL_PARSE = [
  /\$\{/, // interpolation works on the YAML nodes (a plain scalar that is one reference takes its YAML type)
  /__proto__/, // refused at its own position
  /(^|[\s[{,:-])!/, // a tag
  /\d_+\d|(^|[\s[{,:-])[-+]?0[bB]/, // 1_000 and 0b1: numbers to js-yaml, strings to YAML 1.2
  /^[ \t]*%/m, // a directive
  /^\.\.\.([ \t]|$)/m, // an explicit document end
  /\t/, // tabs: the two parsers report them differently
];

/**
 * The fast path of manifest reading: js-yaml (about ten times faster than yaml's document model) reads a file
 * that uses plain YAML only — no anchor, alias, tag, directive or interpolation — as data, and positions of the
 * document start and `name` value are taken from the text. Undefined whenever it cannot vouch for the result
 * being what the full parse gives: the caller then reads the file with yaml's document model, which reports
 * every problem at its exact line and column. A file that has any problem (or warning) is read that way too.
 */
export function readPlainYaml(text: string): PlainDocument[] | undefined {
  if (NEEDS_FULL_PARSE.some((pattern) => pattern.test(text))) return undefined;
  let anchored = false;
  let docs: unknown[];
  try {
    docs = loadAllYaml(text, undefined, {
      schema: CORE_SCHEMA,
      listener(event, state) {
        if (event === 'close' && (state as unknown as { anchor: string | null }).anchor !== null)
          anchored = true;
      },
    });
  } catch {
    return undefined;
  }
  if (anchored) return undefined;
  const starts = documentStarts(text);
  if (starts === undefined || starts.length !== docs.length) return undefined;
  const out: PlainDocument[] = [];
  for (const [index, data] of docs.entries()) {
    const start = starts[index];
    if (start === undefined || depthOf(data) > MAX_NESTING_DEPTH) return undefined;
    const name = start.name;
    if (name !== undefined && typeof data === 'object' && data !== null) {
      const value = (data as Record<string, unknown>).name;
      // The text found must be the value read: a plain `name: x` line, checked against the data.
      if (!name.quoted && String(value) !== name.text) return undefined;
    }
    out.push({ index, data, origin: start.origin, namePosition: name?.position });
  }
  return out;
}

interface DocumentStart {
  origin: SourcePosition;
  name: { position: SourcePosition; text: string; quoted: boolean } | undefined;
}

/**
 * Where each document's top-level block map starts (its first key, at column 1) and where its `name:` value is,
 * read from the lines; undefined for a layout this does not cover (a document that is not a block map at column
 * 1, content on a `---` line, a name that is not on its key's line).
 */
function documentStarts(text: string): DocumentStart[] | undefined {
  const lines = text.split('\n');
  const out: DocumentStart[] = [];
  let current: DocumentStart | undefined;
  let separated = false;
  for (const [i, raw] of lines.entries()) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (/^---([ \t]|$)/.test(line)) {
      if (!/^---[ \t]*(#.*)?$/.test(line)) return undefined;
      current = undefined;
      separated = true;
      continue;
    }
    if (/^[ \t]*(#.*)?$/.test(line)) continue;
    if (current === undefined) {
      if (!/^[A-Za-z_]/.test(line)) return undefined;
      current = { origin: { line: i + 1, column: 1 }, name: undefined };
      out.push(current);
      separated = false;
    }
    const name = /^name:[ \t]+/.exec(line);
    if (name !== null) {
      if (current.name !== undefined) return undefined;
      const rest = line.slice(name[0].length);
      const quoted = rest.startsWith('"') || rest.startsWith("'");
      current.name = {
        position: { line: i + 1, column: name[0].length + 1 },
        text: rest.replace(/[ \t]+#.*$/, '').trimEnd(),
        quoted,
      };
    } else if (/^name:/.test(line)) {
      return undefined;
    }
  }
  // A `---` with nothing after it is an empty document to both parsers: not covered here.
  if (separated) return undefined;
  return out;
}

function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 0;
  for (const item of Object.values(value)) deepest = Math.max(deepest, depthOf(item));
  return deepest + 1;
}
