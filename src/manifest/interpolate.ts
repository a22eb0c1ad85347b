import type { Diagnostic } from './diagnostic.js';
import { keyPathOf, positionOf, yamlLibrary } from './yaml-document.js';
import type { SourceDocument } from './yaml-document.js';

export type Environment = Readonly<Record<string, string | undefined>>;

/** A parsed string value: literal text and `${NAME}` / `${NAME:-default}` references, defaults parsed alike. */
type Piece = string | Reference;
interface Reference {
  name: string;
  fallback?: Piece[];
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
/** Defaults inside defaults (`${A:-${B:-x}}`) beyond this are refused rather than followed. */
const MAX_DEFAULT_NESTING = 8;

/**
 * Replaces environment references in every string value of the document, in place, and reports unset variables
 * at their own position. A default may itself hold references (`${A:-${B:-x}}`), expanded by the same rules and
 * only when needed; nothing unexpanded is ever passed through as a value. A plain (unquoted) scalar that is one
 * whole reference takes the type its value reads as in YAML, so `render: ${RENDER:-false}` is a boolean; quoted
 * scalars stay strings. Keys are never interpolated.
 */
export function interpolateDocument(source: SourceDocument, env: Environment): Diagnostic[] {
  const { Scalar, parse: parseYamlValue, visit } = yamlLibrary();
  const diagnostics: Diagnostic[] = [];
  visit(source.doc, {
    Scalar(key, node, ancestors) {
      if (key === 'key' || typeof node.value !== 'string' || !node.value.includes('${')) return;
      const original = node.value;
      const pos = positionOf(source, node);
      const base = { severity: 'error' as const, file: source.file, line: pos.line, column: pos.column };
      const path = keyPathOf([...ancestors, node]);
      const pieces = parsePieces(original, 0, 0);
      if (pieces === undefined) {
        diagnostics.push({
          ...base,
          code: 'manifest.env-syntax',
          path,
          message: `malformed variable reference in "${original}"`,
          hint: 'write ${NAME} or ${NAME:-default} (a default may hold references); write $${ for a literal ${',
        });
        return;
      }
      const missing: string[] = [];
      const replaced = expandPieces(pieces.pieces, env, missing);
      for (const name of new Set(missing)) {
        diagnostics.push({
          ...base,
          code: 'manifest.env-unset',
          path,
          message: `environment variable ${name} is not set`,
          hint: `export ${name}, or give a default: \${${name}:-value}`,
        });
      }
      if (missing.length > 0) return;
      const whole = pieces.pieces.length === 1 && typeof pieces.pieces[0] !== 'string';
      if (node.type === Scalar.PLAIN && whole) {
        const typed: unknown = parseYamlValue(replaced);
        node.value = typed === null || typeof typed === 'object' ? replaced : typed;
      } else {
        node.value = replaced;
      }
    },
  });
  return diagnostics;
}

/**
 * Parses text from `start`; inside a default (`depth > 0`) it stops at the `}` that closes it. Undefined when a
 * `${` is not a valid reference or a default is not closed.
 */
function parsePieces(
  text: string,
  start: number,
  depth: number,
): { pieces: Piece[]; end: number } | undefined {
  const pieces: Piece[] = [];
  let literal = '';
  let i = start;
  while (i < text.length) {
    if (text.startsWith('$${', i)) {
      literal += '${';
      i += 3;
    } else if (text.startsWith('${', i)) {
      const name = VARIABLE_NAME.exec(text.slice(i + 2))?.[0];
      if (name === undefined) return undefined;
      let j = i + 2 + name.length;
      const reference: Reference = { name };
      if (text.startsWith(':-', j)) {
        if (depth >= MAX_DEFAULT_NESTING) return undefined;
        const inner = parsePieces(text, j + 2, depth + 1);
        if (inner === undefined) return undefined;
        reference.fallback = inner.pieces;
        j = inner.end;
      }
      if (text[j] !== '}') return undefined;
      if (literal !== '') pieces.push(literal);
      literal = '';
      pieces.push(reference);
      i = j + 1;
    } else if (depth > 0 && text[i] === '}') {
      if (literal !== '') pieces.push(literal);
      return { pieces, end: i };
    } else {
      literal += text[i];
      i++;
    }
  }
  if (depth > 0) return undefined;
  if (literal !== '') pieces.push(literal);
  return { pieces, end: i };
}

/** An unset or empty variable takes its default; without one its name goes to `missing`. */
function expandPieces(pieces: readonly Piece[], env: Environment, missing: string[]): string {
  let out = '';
  for (const piece of pieces) {
    if (typeof piece === 'string') {
      out += piece;
      continue;
    }
    const value = env[piece.name];
    if (value !== undefined && value !== '') out += value;
    else if (piece.fallback !== undefined) out += expandPieces(piece.fallback, env, missing);
    else missing.push(piece.name);
  }
  return out;
}
