import { printable } from './escape-text.js';

/**
 * A plain text table, columns padded to their widest cell. Cells hold live values (statuses, job ids, names), so
 * each is printable (escape-text.ts): a value cannot clear the screen or forge a row.
 */
export function renderTable(header: readonly string[], cellsOf: readonly (readonly string[])[]): string {
  const rows = cellsOf.map((r) => r.map(printable));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
