import { byCodeUnit } from '../code-unit-order.js';

/** A problem found in a manifest, reported with its place; manifest problems are data, never thrown one by one. */
export interface Diagnostic {
  severity: 'error' | 'warning';
  /** Stable code, such as `manifest.unknown-key`; documented in docs/troubleshooting.md. */
  code: string;
  /** Path of the file as the user gave it (relative when they gave a relative path). */
  file: string;
  /** 1-based line and column; 0 when the problem belongs to no place in a file. */
  line: number;
  column: number;
  /** Key path inside the document, such as `fields.price.type` or `urls[3]`; empty for the document itself. */
  path: string;
  message: string;
  hint?: string;
}

export interface SourcePosition {
  line: number;
  column: number;
}

/** Formats a key path the way users read it: `fields.reviews.fields.rating`, `urls[3]`. */
export function formatKeyPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? String(segment) : `.${String(segment)}`;
  }
  return out;
}

/** Errors first, then by file, line and column, so output is stable whatever order files were read in. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort(
    (a, b) =>
      byCodeUnit(a.file, b.file) || a.line - b.line || a.column - b.column || byCodeUnit(a.path, b.path),
  );
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}
