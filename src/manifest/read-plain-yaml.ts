import { loadAll, Schema, Type } from 'js-yaml';
import type { SourcePosition } from './diagnostic.js';

/**
 * The fast way to read a manifest file: js-yaml straight to data, with no document nodes and no positions but
 * the two a valid object needs (where its document starts, where its name is written). It reads only what it
 * can read exactly as the YAML document model does (`yaml-document.ts`, the reference) and declines the rest,
 * which is then read again with positions. Measured (BENCHMARKS.md, scale): YAML was 55% of the CPU of a plan
 * of 20,000 objects on the document model.
 */

/** One document of a plain file: its data, where it starts, and where its top-level `name` value is written. */
export interface PlainDocument {
  data: Record<string, unknown>;
  start: SourcePosition;
  /** The top-level `name: value` line found in the text; checked against `data.name` before it is used. */
  name?: { position: SourcePosition; text: string };
}

/**
 * A `?` that starts an explicit key: first on its line (after indentation and `- `), or after `{`, `[` or `,` in a
 * flow collection, followed by a space or the line's end. A `?` inside text (`?page=2`, `what?`) is not one; a
 * false match only sends the file to the document model.
 */
const EXPLICIT_KEY = /(?:^[ \t]*(?:-[ \t]+)*|[,[{][ \t]*)\?(?:[ \t\r]|$)/m;

/** Collections nested deeper than this are left to the document model, which reports anything past 64. */
const MAX_PLAIN_DEPTH = 60;

/**
 * yaml's YAML 1.2 core schema (yaml/dist/schema/core), for plain scalars: the same patterns, in the same order,
 * giving the same values. js-yaml's own schema differs (timestamps, `1_000`, merge keys). The tags are private
 * names, so an explicit tag in the text (`!!int "1"`, `!!binary`) is unknown here and the file is declined.
 * `first` holds every character a match can start with (`''` also matches the empty scalar): js-yaml tries every
 * type on every plain scalar, and most (names, URLs, words) start with a letter none of these patterns takes, so
 * the one-character look spares them eight regular expressions: 1,000 small files read in 58 ms against 73 ms
 * (the first read of a process, as a command makes it).
 */
const CORE_SCALARS: readonly {
  name: string;
  first: string;
  test: RegExp;
  value: (text: string) => unknown;
}[] = [
  { name: 'null', first: '~nN', test: /^(?:~|[Nn]ull|NULL)?$/, value: () => null },
  {
    name: 'bool',
    first: 'tTfF',
    test: /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/,
    value: (s) => s[0] === 't' || s[0] === 'T',
  },
  { name: 'int-oct', first: '0', test: /^0o[0-7]+$/, value: (s) => parseInt(s.substring(2), 8) },
  { name: 'int', first: '-+0123456789', test: /^[-+]?[0-9]+$/, value: (s) => parseInt(s, 10) },
  { name: 'int-hex', first: '0', test: /^0x[0-9a-fA-F]+$/, value: (s) => parseInt(s.substring(2), 16) },
  {
    name: 'float-nan',
    first: '-+.',
    test: /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
    value: (s) =>
      s.slice(-3).toLowerCase() === 'nan'
        ? NaN
        : s[0] === '-'
          ? Number.NEGATIVE_INFINITY
          : Number.POSITIVE_INFINITY,
  },
  {
    name: 'float-exp',
    first: '-+.0123456789',
    test: /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/,
    value: parseFloat,
  },
  { name: 'float', first: '-+.0123456789', test: /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/, value: parseFloat },
];

const PLAIN_SCHEMA = new Schema({
  implicit: CORE_SCALARS.map(
    (scalar) =>
      new Type(`tag:scrapeform,plain:${scalar.name}`, {
        kind: 'scalar',
        resolve: (data: unknown) =>
          typeof data === 'string' &&
          (data === '' || scalar.first.includes(data.charAt(0))) &&
          scalar.test.test(data),
        construct: (data: string) => scalar.value(data),
      }),
  ),
  explicit: [],
});

/**
 * A file's documents as data, or undefined when the file needs the document model: it holds a directive, an
 * explicit end of document, an anchor, alias, tag or merge key, a `${…}` reference, a key JavaScript or yaml
 * would read differently (`null`, `__proto__`), deep nesting, a document that is not a map, or anything js-yaml
 * refuses (a syntax error, a duplicate key: js-yaml compares keys by their string form, so `1` and `'1'` are one
 * key, as for the document model). Errors are never reported from here: the document model reads the file again
 * and reports them at their place.
 */
export function readPlainYaml(text: string): PlainDocument[] | undefined {
  // References are expanded on the document's nodes (their YAML type and place); directives change the schema.
  if (text.includes('${') || /^(?:%|\.\.\.(?:\s|$))/m.test(text)) return undefined;
  // An explicit key (`? …`) may be a list or a map, which js-yaml turns into other text than yaml (`a,b`).
  if (EXPLICIT_KEY.test(text)) return undefined;
  const segments = splitDocuments(text);
  if (segments === undefined) return undefined;
  let declined = false;
  const starts: number[] = [];
  let values: unknown[];
  try {
    values = loadAll(text, undefined, {
      schema: PLAIN_SCHEMA,
      listener(event, state) {
        if (event === 'open') {
          starts.push(state.position);
          return;
        }
        const start = starts.pop() ?? 0;
        const node = state as unknown as NodeState;
        if (node.anchor != null || needsPositions(text, start, node)) declined = true;
      },
    });
  } catch {
    return undefined;
  }
  if (declined || values.length !== segments.length || values.length === 0) return undefined;
  const out: PlainDocument[] = [];
  for (const [i, value] of values.entries()) {
    const segment = segments[i] as Segment;
    if (!isPlainMap(value) || !isPlainData(value, 1)) return undefined;
    out.push({
      data: value,
      start: segment.start,
      ...(segment.name !== undefined ? { name: segment.name } : {}),
    });
  }
  return out;
}

/** What js-yaml's loader state holds when a node closes (its typings leave these out). */
interface NodeState {
  anchor: string | null;
  tag: string | null;
  kind: string | null;
  position: number;
}

/**
 * Whether a node needs the document model. A quoted scalar or a flow collection (`[…]`, `{…}`) written over
 * several lines: js-yaml takes their continuation lines at any indentation; the document model requires them
 * indented under their key and reports the rest as errors. A flow collection written as a key (`[a, b]: x`,
 * `{[a]: x}`, the `:` after it on its line): js-yaml makes it `a,b` or `[object Object]`; the document model
 * refuses it at its place.
 */
function needsPositions(text: string, start: number, node: NodeState): boolean {
  const quotedOrBlock = node.kind === 'scalar' && node.tag === null;
  const collection = node.kind === 'mapping' || node.kind === 'sequence';
  if (!quotedOrBlock && !collection) return false;
  const at = contentStart(text, start);
  const first = text[at];
  const flow = first === '[' || first === '{';
  if (!flow && first !== '"' && first !== "'") return false;
  const lineEnd = text.indexOf('\n', at);
  if (lineEnd !== -1 && lineEnd < node.position) return true;
  if (!flow) return false;
  let after = node.position;
  while (text[after] === ' ' || text[after] === '\t') after++;
  return text[after] === ':';
}

/** Where a node's own text starts: after the spaces, line breaks and comments that separate it. */
function contentStart(text: string, start: number): number {
  let at = start;
  for (;;) {
    const c = text.charCodeAt(at);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) at++;
    else if (c === 0x23) {
      const end = text.indexOf('\n', at);
      if (end === -1) return text.length;
      at = end;
    } else return at;
  }
}

/** Whether a value is a map as yaml's toJS makes it (an object, not a list). */
function isPlainMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Keys both readers turn into the same text, and nesting the document model accepts. A null key is `''` for
 * yaml and `'null'` for js-yaml; `<<` is a merge key for yaml; `__proto__` is refused with a message there.
 */
function isPlainData(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (depth > MAX_PLAIN_DEPTH) return false;
  if (Array.isArray(value)) return value.every((item) => isPlainData(item, depth + 1));
  for (const key of Object.keys(value)) {
    if (key === '<<' || key === 'null' || key === '__proto__') return false;
    if (!isPlainData((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

/** yaml refuses an implicit key whose `:` is more than this many characters after the key starts; js-yaml does not. */
const MAX_KEY_SPAN = 1024;

/**
 * Whether a long line may hold a key that yaml refuses for its length: its first `:` indicator is far from where
 * its content starts (after `- ` markers), or the content starts with a quote or a bracket, whose text may hold
 * a `: ` before the real indicator. A line with no indicator (a long value's continuation) holds no key.
 */
function mayHoldLongKey(line: string, indent: number): boolean {
  const content = indent + (/^(?:-[ \t]+)*/.exec(line.slice(indent))?.[0].length ?? 0);
  if ('"\'[{'.includes(line[content] ?? '')) return true;
  const indicator = line.slice(content).search(/:(?:[ \t]|$)/);
  return indicator > MAX_KEY_SPAN - 1;
}

interface Segment {
  start: SourcePosition;
  name?: { position: SourcePosition; text: string };
}

/**
 * The documents of a file as the lines say: where each one's content starts (the first line that is not blank
 * or a comment) and its one `name:` line at the indentation of that first line. Undefined when a document
 * marker carries content or a document has none (the document model reads those).
 */
function splitDocuments(text: string): Segment[] | undefined {
  const segments: Segment[] = [];
  let current: { start?: SourcePosition; indent: number; names: Segment['name'][] } | undefined;
  const close = (): boolean => {
    if (current === undefined) return true;
    if (current.start === undefined) return false;
    const name = current.names.length === 1 ? current.names[0] : undefined;
    segments.push({ start: current.start, ...(name !== undefined ? { name } : {}) });
    return true;
  };
  const lines = text.split('\n');
  for (const [index, raw] of lines.entries()) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.startsWith('---')) {
      if (!/^---[ \t]*(?:#.*)?$/.test(line)) return undefined;
      if (!close()) return undefined;
      current = { indent: 0, names: [] };
      continue;
    }
    const indent = line.length - line.trimStart().length;
    const first = line[indent];
    if (first === undefined || first === '#') continue;
    if (line.length > MAX_KEY_SPAN && mayHoldLongKey(line, indent)) return undefined;
    current ??= { indent: 0, names: [] };
    if (current.start === undefined) {
      current.start = { line: index + 1, column: indent + 1 };
      current.indent = indent;
    }
    if (indent === current.indent && line.startsWith('name:', indent)) {
      const rest = line.slice(indent + 'name:'.length);
      const gap = rest.length - rest.trimStart().length;
      if (gap > 0) {
        current.names.push({
          position: { line: index + 1, column: indent + 'name:'.length + gap + 1 },
          text: rest.trimStart(),
        });
      }
    }
  }
  if (!close()) return undefined;
  return segments;
}

/**
 * Where the name of a plain document is written, when the line found holds exactly the name read: a plain
 * value (a comment may follow) or a quoted one without escapes.
 */
export function plainNamePosition(document: PlainDocument): SourcePosition | undefined {
  const name = document.data.name;
  const found = document.name;
  if (typeof name !== 'string' || found === undefined || name === '') return undefined;
  const plain = found.text.replace(/[ \t]+#.*$/, '').trimEnd();
  if (plain === name) return found.position;
  const quoted = /^(["'])([^"'\\]*)\1[ \t]*(?:#.*)?$/.exec(found.text);
  return quoted !== null && quoted[2] === name ? found.position : undefined;
}
