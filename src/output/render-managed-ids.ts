import type { State } from '../state/model.js';
import { renderTable } from './render-table.js';
import { byCodeUnit } from '../code-unit-order.js';
import { renderJson } from './render-json.js';

/** `scrapeform output`: ids and versions of what state manages, keyed by name, for consumers. */
export interface ManagedIds {
  parsers: Record<string, { address: string; id: string; version: number | null }>;
  projects: Record<string, { address: string; id: number }>;
}

export function managedIds(state: State): ManagedIds {
  const ids: ManagedIds = { parsers: {}, projects: {} };
  // Sorted by address, so the output does not depend on the order apply happened to finish in.
  for (const [address, r] of Object.entries(state.resources).sort(([a], [b]) => byCodeUnit(a, b))) {
    if (r.kind === 'Parser') ids.parsers[r.name] = { address, id: r.id, version: r.version };
    else ids.projects[r.name] = { address, id: r.id };
  }
  return ids;
}

export function renderManagedIdsHuman(ids: ManagedIds): string {
  const rows = [
    ...Object.values(ids.parsers).map((p) => [p.address, p.id, p.version === null ? '-' : String(p.version)]),
    ...Object.values(ids.projects).map((p) => [p.address, String(p.id), '']),
  ];
  return rows.length === 0 ? 'Nothing is managed yet.' : renderTable(['address', 'id', 'version'], rows);
}

export function renderManagedIdsJson(ids: ManagedIds): string {
  return renderJson(ids);
}
