import type { ExpectCheckResult } from '../apply/run-expect-checks.js';
import type { Colors } from './colors.js';
import { printable, printableJson } from './escape-text.js';

/**
 * Expect checks, a line each (addresses, URLs, paths and values printable: escape-text.ts), with a field-by-field diff
 * of expected against actual on failure.
 */
export function renderChecks(results: readonly ExpectCheckResult[], colors: Colors): string {
  const lines: string[] = [];
  for (const r of results) {
    const mark = r.ok ? colors.green('✓') : colors.red('✗');
    lines.push(
      `${mark} ${printable(r.address)} ${printable(r.url)}${r.version !== undefined ? colors.dim(` (version ${r.version})`) : ''}`,
    );
    if (r.error !== undefined) lines.push(`    ${colors.red(printable(r.error))}`);
    for (const m of r.mismatches) {
      const got = m.reason === 'missing' ? 'missing' : (printableJson(m.actual) ?? 'undefined');
      lines.push(
        `    ${printable(m.path) || '(result)'}: expected ${printableJson(m.expected) ?? 'undefined'}${m.reason === 'no match' ? ' (pattern)' : ''}, got ${got}`,
      );
    }
  }
  const failed = results.filter((r) => !r.ok).length;
  lines.push(
    failed === 0
      ? `${results.length} ${results.length === 1 ? 'check' : 'checks'} passed`
      : `${failed} of ${results.length} checks failed`,
  );
  return lines.join('\n');
}
