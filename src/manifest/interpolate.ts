import { yaml } from './yaml-library.js';
import { keyReferenceProblem } from './check-key-values.js';
import type { Node } from 'yaml';
import type { Diagnostic } from './diagnostic.js';
import { suggestNearest } from './suggest.js';
import { keyPathOf, positionOf } from './yaml-document.js';
import type { SourceDocument } from './yaml-document.js';

export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * What the `${…}` references of one document can name: environment variables (`${NAME}`), the declared
 * variables of scrapeform.yaml (`${var.NAME}`) and, in a manifest with `for_each`, the keys of the element being
 * expanded (`${each.KEY}`).
 */
export interface ReferenceScope {
  env: Environment;
  /** Declared variables and their values; without it no `${var.…}` is declared. */
  variables?: ReadonlyMap<string, unknown>;
  /** The for_each element; absent outside for_each. */
  each?: Readonly<Record<string, unknown>>;
  /** Where variables are declared, for the hint about an undeclared one. */
  variablesHint?: string;
  /**
   * Environment variables that hold an API key (check-key-values.ts, keyVariables): a reference to one is
   * refused where it is written, whether or not the variable is set, and never expanded.
   */
  keyVariables?: ReadonlySet<string>;
}

type Namespace = 'env' | 'var' | 'each';

/** A parsed string value: literal text and references, defaults parsed alike. */
type Piece = string | Reference;
interface Reference {
  namespace: Namespace;
  name: string;
  fallback?: Piece[];
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const NAMESPACED = /^(var|each)\.([A-Za-z_][A-Za-z0-9_]*)/;
/** Defaults inside defaults (`${A:-${B:-x}}`) beyond this are refused rather than followed. */
const MAX_DEFAULT_NESTING = 8;

/**
 * A text written into a manifest so that reading it gives back exactly this text: every `${` is written `$${`,
 * which the reader takes as a literal `${` (a live value holding `${HOME}` must never be expanded on the next load).
 */
// A function replacement: in a replacement string, `$$` would be read as one `$`.
export function literalText(text: string): string {
  return text.replaceAll('${', () => '$${');
}

/** A value to write into a manifest, every string in it (at any depth) written with literalText. */
export function literalValue(value: unknown): unknown {
  if (typeof value === 'string') return literalText(value);
  if (Array.isArray(value)) return value.map(literalValue);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, literalValue(v)]));
  return value;
}

/** Whether a text holds a `${var.…}` or `${each.…}` reference: such a document is read once per use. */
export function hasScopedReference(text: string): boolean {
  return text.includes('${var.') || text.includes('${each.');
}

/**
 * Replaces references in every string value of the document, in place, and reports each one that cannot be
 * expanded at its own position. A default may itself hold references (`${A:-${B:-x}}`), expanded by the same rules
 * and only when needed; nothing unexpanded is ever passed through as a value. A plain (unquoted) scalar that is one
 * whole reference takes the type of its value: an environment variable's text as YAML reads it (`render:
 * ${RENDER:-false}` is a boolean), a variable or for_each value as it is (a number, a list, a map); quoted scalars
 * stay strings. Keys are never interpolated: a key holding `${` (or `$${`) is an error at the key.
 */
export function interpolateDocument(source: SourceDocument, scope: ReferenceScope): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  yaml().visit(source.doc, {
    Scalar(key, node, ancestors) {
      if (typeof node.value !== 'string' || !node.value.includes('${')) return undefined;
      const original = node.value;
      const pos = positionOf(source, node);
      const base = { severity: 'error' as const, file: source.file, line: pos.line, column: pos.column };
      const path = keyPathOf([...ancestors, node]);
      if (key === 'key') {
        // Kept as written it would be sent under a name holding the reference's text; expanded, a key could
        // collide with another one after duplicate keys were checked.
        diagnostics.push({
          ...base,
          code: 'manifest.key-reference',
          path,
          message: `the key "${original}" holds \${: references are not expanded in keys`,
          hint: 'write the key out in full; ${…} is expanded in values only',
        });
        return undefined;
      }
      const pieces = parsePieces(original, 0, 0);
      if (pieces === undefined) {
        diagnostics.push({
          ...base,
          code: 'manifest.env-syntax',
          path,
          message: `malformed variable reference in "${original}"`,
          hint: 'write ${NAME} or ${NAME:-default} (a default may hold references), ${var.NAME} or ${each.KEY}; write $${ for a literal ${',
        });
        return undefined;
      }
      const problems: Problem[] = [];
      const whole = pieces.pieces.length === 1 && typeof pieces.pieces[0] !== 'string';
      const typedWhole = whole && node.type === yaml().Scalar.PLAIN;
      const value = typedWhole
        ? expandWhole(pieces.pieces[0] as Reference, scope, problems)
        : expandPieces(pieces.pieces, scope, problems);
      const seen = new Set<string>();
      for (const problem of problems) {
        const message = problemMessage(problem, scope);
        if (seen.has(message.message)) continue;
        seen.add(message.message);
        diagnostics.push({ ...base, path, ...message });
      }
      if (problems.length > 0) return undefined;
      if (typeof value === 'string' || value === null || typeof value !== 'object') {
        node.value = value;
        return undefined;
      }
      // A list or a map takes the scalar's place; its nodes keep the reference's position for diagnostics. It is
      // put in place here, not returned: yaml visits a returned node, which would expand the value's text a second
      // time (a var file's `$${HOME}`, already the literal `${HOME}`, would become the value of HOME).
      const created = source.doc.createNode(value);
      placeAt(created, node.range);
      replaceNode(ancestors.at(-1), key, created);
      return yaml().visit.SKIP;
    },
  });
  return diagnostics;
}

type Problem =
  | { kind: 'env-unset'; name: string }
  | { kind: 'key-reference'; name: string }
  | { kind: 'var-undeclared'; name: string }
  | { kind: 'each-outside'; name: string }
  | { kind: 'each-missing'; name: string }
  | { kind: 'not-text'; reference: string; got: string };

function problemMessage(
  problem: Problem,
  scope: ReferenceScope,
): { code: string; message: string; hint?: string } {
  switch (problem.kind) {
    case 'key-reference':
      return keyReferenceProblem(problem.name);
    case 'env-unset':
      return {
        code: 'manifest.env-unset',
        message: `environment variable ${problem.name} is not set`,
        hint: `export ${problem.name}, or give a default: \${${problem.name}:-value}`,
      };
    case 'var-undeclared': {
      const known = [...(scope.variables?.keys() ?? [])];
      const near = suggestNearest(problem.name, known);
      return {
        code: 'manifest.var-undeclared',
        message: `\${var.${problem.name}}: no variable "${problem.name}" is declared`,
        hint:
          near !== undefined
            ? `did you mean "${near}"?`
            : (scope.variablesHint ?? 'declare it under variables: in scrapeform.yaml'),
      };
    }
    case 'each-outside':
      return {
        code: 'manifest.each-outside',
        message: `\${each.${problem.name}} is used outside for_each`,
        hint: '${each.KEY} names a key of the for_each element: only a manifest with for_each, and the templates it extends, can use it',
      };
    case 'each-missing': {
      const keys = Object.keys(scope.each ?? {});
      const near = suggestNearest(problem.name, keys);
      return {
        code: 'manifest.each-missing',
        message: `\${each.${problem.name}}: the for_each element has no key "${problem.name}"`,
        hint:
          near !== undefined
            ? `did you mean "${near}"?`
            : `its keys: ${keys.join(', ') || '(none)'}; or give a default: \${each.${problem.name}:-value}`,
      };
    }
    case 'not-text':
      return {
        code: 'manifest.reference-type',
        message: `${problem.reference} is ${problem.got}: it can stand only alone, unquoted, as a whole value`,
        hint: 'write the reference as the whole value (key: ${…}) to insert a list or a map',
      };
  }
}

/** Puts `node` where the visited value at `key` of `parent` was (yaml's own replacement, which then visits it). */
function replaceNode(parent: unknown, key: number | 'key' | 'value' | null, node: Node): void {
  if (yaml().isSeq(parent) && typeof key === 'number') parent.items[key] = node;
  else if (yaml().isPair(parent) && key === 'value') parent.value = node;
  else if (yaml().isDocument(parent) && key === null) parent.contents = node;
  else throw new Error(`interpolateDocument: cannot replace a value at ${String(key)}`);
}

/** Sets the range of a created node and everything in it to the place of the reference it replaces. */
function placeAt(node: unknown, range: Node['range']): void {
  if (!yaml().isNode(node)) return;
  node.range = range;
  if (yaml().isCollection(node)) {
    for (const item of node.items) {
      if (yaml().isPair(item)) {
        placeAt(item.key, range);
        placeAt(item.value, range);
      } else placeAt(item, range);
    }
  }
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
      const rest = text.slice(i + 2);
      const namespaced = NAMESPACED.exec(rest);
      const reference: Reference | undefined =
        namespaced !== null
          ? { namespace: namespaced[1] as Namespace, name: namespaced[2] as string }
          : NAME.test(rest)
            ? { namespace: 'env', name: NAME.exec(rest)?.[0] as string }
            : undefined;
      if (reference === undefined) return undefined;
      let j = i + 2 + (namespaced?.[0].length ?? reference.name.length);
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

/**
 * A key variable a reference names, itself or in its default at any depth: refused whether or not the default is
 * taken, so a manifest does not pass where the variable is set and fail where it is not.
 */
function keyVariableIn(reference: Reference, names: ReadonlySet<string>): string | undefined {
  if (reference.namespace === 'env' && names.has(reference.name)) return reference.name;
  for (const piece of reference.fallback ?? []) {
    if (typeof piece === 'string') continue;
    const found = keyVariableIn(piece, names);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The value a reference names, or undefined (with the problem noted) when it names none and has no default. */
function lookUp(reference: Reference, scope: ReferenceScope, problems: Problem[]): unknown {
  const key = scope.keyVariables !== undefined ? keyVariableIn(reference, scope.keyVariables) : undefined;
  if (key !== undefined) {
    problems.push({ kind: 'key-reference', name: key });
    return undefined;
  }
  switch (reference.namespace) {
    case 'env': {
      const value = scope.env[reference.name];
      if (value !== undefined && value !== '') return value;
      if (reference.fallback === undefined) problems.push({ kind: 'env-unset', name: reference.name });
      return undefined;
    }
    case 'var': {
      // A typo is an error even with a default: the default would hide it.
      if (scope.variables?.has(reference.name) !== true) {
        problems.push({ kind: 'var-undeclared', name: reference.name });
        return undefined;
      }
      // An empty value takes the default when one is written; without one it is the empty text it is (in a
      // whole reference too: undefined there would drop the key).
      const value = scope.variables.get(reference.name) ?? '';
      return value === '' && reference.fallback !== undefined ? undefined : value;
    }
    case 'each': {
      const element = scope.each;
      if (element === undefined || !Object.hasOwn(element, reference.name)) {
        if (reference.fallback === undefined) {
          problems.push({
            kind: element === undefined ? 'each-outside' : 'each-missing',
            name: reference.name,
          });
        }
        return undefined;
      }
      // As a variable's: an empty (or null) value takes the default when one is written; without one it is the
      // empty text it is. It was reported as a key the element lacks ("did you mean" that very key).
      const value = element[reference.name] ?? '';
      return value === '' && reference.fallback !== undefined ? undefined : value;
    }
  }
}

function describeReference(reference: Reference): string {
  return reference.namespace === 'env'
    ? `\${${reference.name}}`
    : `\${${reference.namespace}.${reference.name}}`;
}

/** One whole unquoted reference: the value itself, typed. */
function expandWhole(reference: Reference, scope: ReferenceScope, problems: Problem[]): unknown {
  const value = lookUp(reference, scope, problems);
  if (value === undefined) {
    if (reference.fallback === undefined) return undefined;
    return readAsPlainValue(expandPieces(reference.fallback, scope, problems));
  }
  if (reference.namespace !== 'env') return value;
  return readAsPlainValue(value as string);
}

/**
 * Text in the place of an unquoted value is read as YAML reads a scalar there, as it always was: `false` and `8`
 * take their type, a quoted default (`${X:-"h1"}`) loses its quotes, surrounding spaces go. Text that reads as a
 * list, a map or null stays the text (`[a, b]`, `Note: this`, `~`), as before. Text YAML cannot read (`*`,
 * `@handle`, `"oops`, `[a`: yaml's `parse` threw) stays the text as written, and so does text YAML would cut short
 * at a comment (`a #b`) or turn into something else by a tag (`!!binary …`): the user meant that text.
 */
function readAsPlainValue(text: string): unknown {
  const doc = yaml().parseDocument(text);
  if (doc.errors.length > 0 || doc.warnings.length > 0) return text;
  const contents = doc.contents;
  const commented =
    (doc.comment ?? '') !== '' ||
    (doc.commentBefore ?? '') !== '' ||
    (yaml().isNode(contents) && ((contents.comment ?? '') !== '' || (contents.commentBefore ?? '') !== ''));
  if (commented) return text.trim();
  if (yaml().isNode(contents) && contents.tag !== undefined) return text.trim();
  const value: unknown = doc.toJS();
  // Text that reads as a list, a map or null (`[a, b]`, `Note: this`, `~`) stays text, as it always did.
  return value === null || typeof value === 'object' ? text : value;
}

/** An unset or empty value takes its default; lists and maps cannot become text. */
function expandPieces(pieces: readonly Piece[], scope: ReferenceScope, problems: Problem[]): string {
  let out = '';
  for (const piece of pieces) {
    if (typeof piece === 'string') {
      out += piece;
      continue;
    }
    const value = lookUp(piece, scope, problems);
    if (value === undefined) {
      if (piece.fallback !== undefined) out += expandPieces(piece.fallback, scope, problems);
    } else if (value !== null && typeof value === 'object') {
      problems.push({
        kind: 'not-text',
        reference: describeReference(piece),
        got: Array.isArray(value) ? 'a list' : 'a map',
      });
    } else {
      out += String(value);
    }
  }
  return out;
}
