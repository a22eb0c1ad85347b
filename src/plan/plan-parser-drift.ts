import type { LiveParserDetails } from '../api/live.js';
import type { DesiredRename } from '../model/desired.js';
import type { ParserDefinition, ParserState } from '../state/model.js';
import { fieldOfTemporary, parentOf } from './diff-fields.js';
import { outOfBandRenames, reconcileLiveFields } from './live-fields.js';
import type { Context } from './plan-context.js';

/**
 * The live fields as the base of a diff after an out-of-band change: names the state knows keep their definitions,
 * and a field renamed by hand in a step the service applied without regenerating carries its old definition, with
 * the rename back as a hint (free, immediate: rename_fields, never remove + add).
 */
export function reconcileDrift(
  ctx: Context,
  address: string,
  recorded: ParserState,
  details: LiveParserDetails,
): { definition: ParserDefinition; renames: DesiredRename[] } {
  const recordedFields = recorded.definition?.fields ?? [];
  const known = new Map(recordedFields.map((f) => [f.name, f]));
  const liveNames = details.fields.map((f) => f.name);
  // Our own temporary names (a swap whose first PATCH landed but was never recorded) hold fields state knows:
  // they keep their definitions, and are neither drift nor a reason to regenerate.
  const temporaries = new Map(
    liveNames.flatMap((n) => {
      const original = known.has(n) ? undefined : fieldOfTemporary(n);
      return original !== undefined && known.has(original) && !liveNames.includes(original)
        ? [[n, original] as const]
        : [];
    }),
  );
  const renamed = new Map(
    [...outOfBandRenames(recordedFields, ctx.live.previous?.[details.id], details)].filter(
      ([to]) => !temporaries.has(to),
    ),
  );
  const renamedFrom = new Set([...renamed.values(), ...temporaries.values()]);
  const added = liveNames.filter((n) => !known.has(n) && !renamed.has(n) && !temporaries.has(n));
  const removed = [...known.keys()].filter((n) => !liveNames.includes(n) && !renamedFrom.has(n));
  const tops = [...renamed].filter(([to]) => !renamed.has(parentOf(to)));
  if (temporaries.size > 0) {
    ctx.warnings.push(
      `${address}: an interrupted apply left temporary field names (${[...temporaries.keys()].join(', ')}) at version ${details.version}; the renames are finished (no regeneration)`,
    );
  }
  if (temporaries.size === 0 || added.length + removed.length + tops.length > 0) {
    ctx.drift.push({
      address,
      kind: 'Parser',
      message: `version moved from ${String(recorded.version)} to ${details.version} outside scrapeform${tops.length > 0 ? `; fields renamed: ${tops.map(([to, from]) => `${from} -> ${to}`).join(', ')}` : ''}${added.length > 0 ? `; fields added: ${added.join(', ')}` : ''}${removed.length > 0 ? `; fields removed: ${removed.join(', ')}` : ''}`,
    });
    ctx.warnings.push(
      `${address}: descriptions or selectors changed outside scrapeform cannot be seen; the plan reconciles field names and types only`,
    );
  }
  return {
    definition: {
      urls: recorded.definition?.urls ?? [],
      scraperParams: recorded.definition?.scraperParams ?? {},
      fields: reconcileLiveFields(recordedFields, details, new Map([...renamed, ...temporaries])),
    },
    renames: tops.map(([to, from]) => ({ from: to, to: from })),
  };
}
