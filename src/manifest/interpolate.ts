import { isPair, isScalar, isSeq, parse as parseYamlValue, Scalar, visit } from 'yaml';
import { formatKeyPath } from './diagnostic.js';
import type { Diagnostic } from './diagnostic.js';
import { positionOf } from './yaml-document.js';
import type { SourceDocument } from './yaml-document.js';

/** `${NAME}`, `${NAME:-default}`, or `$${` for a literal `${`. */
const REFERENCE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
const WHOLE_REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}$/;

export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * Replaces environment references in every string value of the document, in place, and reports unset variables
 * at their own position. A plain (unquoted) scalar that is one whole reference takes the type its value reads as
 * in YAML, so `render: ${RENDER:-false}` is a boolean; quoted scalars stay strings. Keys are never interpolated.
 */
export function interpolateDocument(source: SourceDocument, env: Environment): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  visit(source.doc, {
    Scalar(key, node, ancestors) {
      if (key === 'key' || typeof node.value !== 'string' || !node.value.includes('${')) return;
      const original = node.value;
      const missing: string[] = [];
      const replaced = original.replace(
        REFERENCE,
        (match, name: string | undefined, fallback: string | undefined) => {
          if (match === '$${') return '${';
          const value = env[name as string];
          if (value !== undefined && value !== '') return value;
          if (fallback !== undefined) return fallback;
          missing.push(name as string);
          return match;
        },
      );
      const leftover = replaced.replace(/\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}/g, '').includes('${')
        ? original
        : undefined;
      const pos = positionOf(source, node);
      const path = keyPathOf([...ancestors, node]);
      for (const name of missing) {
        diagnostics.push({
          severity: 'error',
          code: 'manifest.env-unset',
          file: source.file,
          line: pos.line,
          column: pos.column,
          path,
          message: `environment variable ${name} is not set`,
          hint: `export ${name}, or give a default: \${${name}:-value}`,
        });
      }
      if (leftover !== undefined && missing.length === 0) {
        diagnostics.push({
          severity: 'error',
          code: 'manifest.env-syntax',
          file: source.file,
          line: pos.line,
          column: pos.column,
          path,
          message: `malformed variable reference in "${original}"`,
          hint: 'write ${NAME} or ${NAME:-default}; write $${ for a literal ${',
        });
      }
      if (missing.length > 0) return;
      if (node.type === Scalar.PLAIN && WHOLE_REFERENCE.test(original)) {
        const typed: unknown = parseYamlValue(replaced);
        node.value = typed === null || typeof typed === 'object' ? replaced : typed;
      } else {
        node.value = replaced;
      }
    },
  });
  return diagnostics;
}

/** The key path of a node from the chain of its ancestors that yaml's visitor hands over. */
function keyPathOf(chain: readonly unknown[]): string {
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
