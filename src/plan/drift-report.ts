import type { ResourceState } from '../state/model.js';

/* The drift report: what moved outside scrapeform, and what reverting or accepting it costs. */

export const DRIFT_FORMAT_VERSION = 1;

/** Calls, regenerations and credits: what reverting or accepting one drift costs. */
export interface DriftCost {
  calls: number;
  regenerations: number;
  credits: number;
}

/** One thing that moved outside scrapeform, named as state knew it and as the service shows it now. */
export type DriftChange =
  /** A field renamed by hand in a version step the service applied without regenerating. */
  | { change: 'rename'; from: string; to: string }
  /** A field state records that the live parser no longer has. */
  | { change: 'remove'; field: string }
  /** A field the live parser has and state does not record; `parent` when it holds children. */
  | { change: 'add'; field: string; parent: boolean }
  /** A project key whose live value is not the one last applied. */
  | { change: 'edit'; key: string; state: unknown; live: unknown };

/**
 * What kind of drift: fields moved; a version moved with the same field names (descriptions or selectors may have
 * changed, the service does not return them); a version made by hand that FAILED or is still generating; the
 * object deleted (parser) or archived (project); project keys edited.
 */
export type DriftKind = 'fields' | 'version' | 'failed' | 'generating' | 'deleted' | 'edited';

/** One call reverting drift would make (the key is never part of it). */
export interface DriftRequest {
  method: 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
}

export interface ObjectDrift {
  address: string;
  kind: 'Parser' | 'Project';
  name: string;
  id: string | number;
  drift: DriftKind;
  message: string;
  /** Parsers: the version state records and the live latest one. */
  state_version?: number | null;
  live_version?: number;
  changes: DriftChange[];
  /** Putting the live object back to what state records (what `apply` or `watch --heal` sends). */
  revert: DriftCost & { requests: DriftRequest[]; note?: string };
  /** Taking the live shape into state and the manifests (`drift --accept`): never a call. */
  accept: DriftCost & { possible: boolean; placeholders: string[]; note?: string };
  /** What `drift --accept` records: the new resource state, or null when the address leaves state. */
  accepted?: ResourceState | null;
}

export interface DriftSummary {
  /** Objects state manages (within --target). */
  objects: number;
  drifted: number;
  revert: DriftCost;
  accept: DriftCost;
}

export interface DriftReport {
  format_version: typeof DRIFT_FORMAT_VERSION;
  status: 'drift' | 'no_drift';
  summary: DriftSummary;
  drift: ObjectDrift[];
  warnings: string[];
}

/** Nothing to call, regenerate or pay. */
export const FREE: DriftCost = { calls: 0, regenerations: 0, credits: 0 };

export function describeChange(change: DriftChange): string {
  switch (change.change) {
    case 'rename':
      return `field ${change.from} renamed to ${change.to}`;
    case 'remove':
      return `field ${change.field} removed`;
    case 'add':
      return `field ${change.field} added`;
    case 'edit':
      return `${change.key} changed`;
  }
}
