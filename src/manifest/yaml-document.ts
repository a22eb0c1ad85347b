import { isMap, isPair, isScalar, isSeq, LineCounter, parseAllDocuments } from 'yaml';
import type { Document, Node, Pair } from 'yaml';
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

export interface ParsedFile {
  documents: SourceDocument[];
  diagnostics: Diagnostic[];
}

/** Splits a file into YAML documents; syntax errors and duplicate keys become diagnostics with their position. */
export function parseYamlFile(file: string, text: string): ParsedFile {
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
      const duplicate = error.code === 'DUPLICATE_KEY';
      diagnostics.push({
        severity: 'error',
        code: duplicate ? 'manifest.duplicate-key' : 'manifest.yaml-syntax',
        file,
        line: pos.line,
        column: pos.col,
        path: '',
        message: duplicate
          ? 'duplicate key: a key may appear once per map'
          : `YAML syntax: ${firstLine(error.message)}`,
        ...(duplicate ? { hint: 'remove or merge the repeated key' } : {}),
      });
    }
    if (doc.errors.length === 0) documents.push({ file, index, doc, lineCounter });
  });
  return { documents, diagnostics };
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
