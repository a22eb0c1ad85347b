import type { Diagnostic } from '../manifest/diagnostic.js';
import type { Colors } from './colors.js';

export interface RenderDiagnosticsOptions {
  colors: Colors;
  /** File texts for code frames; frames are shown only for files given here (the CLI gives them on a terminal). */
  sources?: ReadonlyMap<string, string>;
}

/** One diagnostic as `file:LINE:COL key.path: message`, then its hint and, when the text is given, a code frame. */
export function renderDiagnostic(diagnostic: Diagnostic, options: RenderDiagnosticsOptions): string {
  const { colors } = options;
  const place =
    diagnostic.line > 0 ? `${diagnostic.file}:${diagnostic.line}:${diagnostic.column}` : diagnostic.file;
  const subject = diagnostic.path !== '' ? ` ${diagnostic.path}:` : ':';
  const label = diagnostic.severity === 'warning' ? colors.yellow('warning: ') : '';
  const lines = [`${colors.bold(place)}${subject} ${label}${diagnostic.message}`];
  const text = options.sources?.get(diagnostic.file);
  if (text !== undefined && diagnostic.line > 0)
    lines.push(...codeFrame(text, diagnostic.line, diagnostic.column, colors));
  if (diagnostic.hint !== undefined) lines.push(`  ${colors.cyan('hint:')} ${diagnostic.hint}`);
  return lines.join('\n');
}

function codeFrame(text: string, line: number, column: number, colors: Colors): string[] {
  const all = text.split(/\r?\n/);
  const first = Math.max(1, line - 1);
  const last = Math.min(all.length, line + 1);
  const width = String(last).length;
  const out: string[] = [];
  for (let n = first; n <= last; n++) {
    const gutter = `${String(n).padStart(width)} | `;
    out.push(`  ${n === line ? colors.red('>') : ' '} ${colors.dim(gutter)}${all[n - 1] ?? ''}`);
    if (n === line)
      out.push(
        `    ${' '.repeat(width)} ${colors.dim('|')} ${' '.repeat(Math.max(0, column - 1))}${colors.red('^')}`,
      );
  }
  return out;
}

export function renderDiagnostics(
  diagnostics: readonly Diagnostic[],
  options: RenderDiagnosticsOptions,
): string {
  return diagnostics.map((d) => renderDiagnostic(d, options)).join('\n');
}

/** `2 errors, 1 warning` or an empty string. */
export function countDiagnostics(diagnostics: readonly Diagnostic[]): string {
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.length - errors;
  const parts: string[] = [];
  if (errors > 0) parts.push(`${errors} ${errors === 1 ? 'error' : 'errors'}`);
  if (warnings > 0) parts.push(`${warnings} ${warnings === 1 ? 'warning' : 'warnings'}`);
  return parts.join(', ');
}
