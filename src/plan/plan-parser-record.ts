import type { DesiredParser } from '../model/desired.js';
import type { UnknownValues } from '../state/model.js';
import type { ParserRecord } from './model.js';
import { definitionOf } from './parser-definition.js';
import { change } from './plan-context.js';
import { summariseUnknowns } from './unknown-values.js';
import type { ResolvedUnknowns } from './unknown-values.js';

/** Values never seen, confirmed live: recorded in state with no call (`--accept-unknown`). */
export function recordParser(
  address: string,
  desired: DesiredParser,
  name: string,
  id: string,
  version: number,
  resolved: ResolvedUnknowns,
  unknown: UnknownValues | undefined,
): ParserRecord {
  return change<ParserRecord>({
    address,
    kind: 'Parser',
    name,
    id,
    action: 'record',
    reasons: [
      ...recordedReasons(resolved),
      ...(unknown !== undefined
        ? [`still never seen (declare them, then --accept-unknown again): ${summariseUnknowns(unknown)}`]
        : []),
    ],
    version,
    definition: definitionOf(desired),
    ...(unknown !== undefined ? { unknown } : {}),
  });
}

/** The values `--accept-unknown` records, as reasons of the change that records them. */
export function recordedReasons(resolved: ResolvedUnknowns): string[] {
  if (resolved.recorded.length === 0) return [];
  return [
    'values never seen (imported) confirmed live with --accept-unknown: recorded in state, no call for them',
    ...resolved.recorded.map((r) => `records ${r}`),
  ];
}
