import { byCodeUnit } from '../code-unit-order.js';

// Apart from plan-context.ts, which re-exports both: the comparison keys of parser-spelling.ts use them, and
// plan-context.ts reads the plan's model, whose field changes read those keys (no circle of modules).

/** JSON with its keys sorted by code unit (the same on every machine): two spellings of one value compare equal. */
export function stable(value: unknown): string {
  // A plain value has no keys to sort (most of what apply compares per call): no replacer walk.
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  const sorted = (_key: string, v: unknown): unknown =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? sortKeys(v as Record<string, unknown>) : v;
  return JSON.stringify(value, sorted) ?? 'undefined';
}

export function sortKeys(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => byCodeUnit(a, b)));
}
