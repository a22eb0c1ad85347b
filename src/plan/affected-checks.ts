import type { DesiredParser } from '../model/desired.js';
import type { ResourceChange } from './model.js';

/**
 * Pure: the `expect` checks of a parser that a planned change could break, as plan warnings: a field an
 * expectation names (by its top-level key or a dotted path under it) that the change renames, removes or retypes.
 * Description-only edits are not listed: they may change values, but not the field's name or type.
 */
export function affectedExpectChecks(change: ResourceChange, desired: DesiredParser | undefined): string[] {
  if (desired === undefined || desired.expect.length === 0 || change.kind !== 'Parser') return [];
  const warnings: string[] = [];
  for (const fc of change.field_changes) {
    const why =
      fc.change === 'rename'
        ? `renames ${fc.from ?? '?'} to ${fc.field}`
        : fc.change === 'remove'
          ? `removes ${fc.field}`
          : fc.change === 'modify' && (fc.before?.type ?? 'string') !== (fc.after?.type ?? 'string')
            ? `retypes ${fc.field} (${fc.before?.type ?? 'string'} -> ${fc.after?.type ?? 'string'})`
            : undefined;
    if (why === undefined) continue;
    const name = fc.change === 'rename' ? (fc.from ?? fc.field) : fc.field;
    for (const check of desired.expect) {
      const named = Object.keys(check.result).some(
        (key) => key === name || name.startsWith(`${key}.`) || key.startsWith(`${name}.`),
      );
      if (named)
        warnings.push(
          `${change.address}: the expect check of ${check.url} names ${name}, and this plan ${why}`,
        );
    }
  }
  return warnings;
}
