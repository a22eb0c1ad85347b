import type { DesiredField, DesiredParser, DesiredProject } from '../model/desired.js';
import type { State } from '../state/model.js';
import type { DriftEntry, LiveSnapshot, PlannedRequest, ResourceChange } from './model.js';

/** What planning one object may read and add to: errors, drift, warnings, fingerprints. */
export interface Context {
  errors: string[];
  drift: DriftEntry[];
  warnings: string[];
  fingerprint: Record<string, string>;
  live: LiveSnapshot;
  state: State;
  reassert: readonly string[];
}

export function managedIds(state: State): Set<string> {
  return new Set(Object.values(state.resources).map((r) => String(r.id)));
}

export function isPrevented(
  ctx: Context,
  address: string,
  desired: DesiredParser | DesiredProject | undefined,
): boolean {
  const prevent = desired?.preventDestroy ?? false;
  if (!prevent) return false;
  ctx.errors.push(`${address}: lifecycle.prevent_destroy is set, and this plan would delete or replace it`);
  return true;
}

export function change(
  address: string,
  kind: 'Parser' | 'Project',
  name: string,
  id: string | number | null,
  action: ResourceChange['action'],
  reasons: string[],
  requests: PlannedRequest[],
  record: ResourceChange['record'],
): ResourceChange {
  return {
    address,
    kind,
    name,
    id,
    action,
    reasons,
    regenerates: false,
    destructive: false,
    requests,
    field_changes: [],
    breaking: [],
    record,
  };
}

export function withoutName(field: DesiredField): Omit<DesiredField, 'name'> {
  const { name: _name, ...rest } = field;
  return rest;
}

/** JSON with sorted keys: two spellings of one value compare equal. */
export function stable(value: unknown): string {
  const sorted = (_key: string, v: unknown): unknown =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? sortKeys(v as Record<string, unknown>) : v;
  return JSON.stringify(value, sorted) ?? 'undefined';
}

export function sortKeys(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)));
}
