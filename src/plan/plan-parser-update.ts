import type { DesiredParser } from '../model/desired.js';
import type { UnknownValues } from '../state/model.js';
import type { FieldChange, FieldDiff } from './diff-fields.js';
import type { ParserUpdate } from './model.js';
import { definitionOf } from './parser-definition.js';
import { change } from './plan-context.js';

/* The parser keeps its id: its fields are changed in place, in the waves the field diff orders. */

export function updateParser(
  address: string,
  desired: DesiredParser,
  name: string,
  id: string,
  baseVersion: number,
  diff: FieldDiff,
  reasons: string[],
  descriptionsKnown: boolean,
  unknown?: UnknownValues,
): ParserUpdate {
  return change<ParserUpdate>({
    address,
    kind: 'Parser',
    name,
    id,
    action: 'update',
    reasons: [...reasons, summariseFieldChanges(diff)],
    baseVersion,
    waves: diff.requests,
    definition: definitionOf(desired),
    descriptionsKnown: descriptionsKnown || diff.regenerates,
    ...(unknown !== undefined ? { unknown } : {}),
    regenerates: diff.regenerates,
    field_changes: diff.changes,
    breaking: breakingOf(diff.changes),
  });
}

function summariseFieldChanges(diff: FieldDiff): string {
  const n = (kind: string): number => diff.changes.filter((c) => c.change === kind).length;
  const parts = [
    n('add') > 0 ? `${n('add')} to add` : '',
    n('modify') > 0 ? `${n('modify')} to modify` : '',
    n('rename') > 0 ? `${n('rename')} to rename` : '',
    n('remove') > 0 ? `${n('remove')} to remove` : '',
  ].filter((p) => p !== '');
  return `fields: ${parts.join(', ')}`;
}

/** What consumers of the results notice of a field diff: removed, renamed and retyped fields. */
export function breakingOf(changes: readonly FieldChange[]): string[] {
  return changes
    .filter((f) => f.breaking)
    .map((fc) =>
      fc.change === 'rename'
        ? `renames ${fc.from ?? '?'} to ${fc.field}`
        : fc.change === 'remove'
          ? `removes ${fc.field}`
          : `retypes ${fc.field}`,
    );
}
