import type { Colors } from './colors.js';
import { printable } from './escape-text.js';
import { renderResultChanges } from './render-result-changes.js';
import type { ResultChange } from './render-result-changes.js';

/** What one regeneration did to a parser's example results (`apply`'s data report). */
export interface ResultDiff {
  address: string;
  from: { id: string; version: number };
  to: { id: string; version: number };
  changes: ResultChange[];
  /** Fields that had a value in some example before and have none in any example now: a likely regression. */
  missing: string[];
}

/** For people: per parser, the example_result diff (as `diff-results` prints it) and the likely regressions. */
export function renderResultDiffsHuman(diffs: readonly ResultDiff[], colors: Colors): string {
  const lines: string[] = [];
  for (const d of diffs) {
    const where = d.from.id === d.to.id ? '' : ` (new parser ${printable(d.to.id)})`;
    lines.push(`${colors.bold(printable(d.address))}${where}`);
    lines.push(
      ...renderResultChanges(d.changes, d.from.version, d.to.version)
        .split('\n')
        .map((l) => `  ${l}`),
    );
    for (const field of d.missing) {
      lines.push(
        `  ${colors.red('likely regression:')} ${printable(field)} had a value before and is missing from every example now`,
      );
    }
  }
  return lines.join('\n');
}
