import type { LiveParserDetails, LiveParserSummary, LiveProject } from '../api/live.js';
import type { ParserDefinition, ProjectDefinition } from '../state/model.js';
import type { FieldChange } from './diff-fields.js';

export const PLAN_FORMAT_VERSION = 1;

export { CREDITS_PER_GENERATION } from '../model/vocabulary.js';

/** What the live services look like, read with the fewest calls: two lists, and details only where needed. */
export interface LiveSnapshot {
  parsers: LiveParserSummary[];
  /** Details by parser id, of the versions the planner asked for (detailsNeeded). */
  details: Record<string, LiveParserDetails>;
  projects: LiveProject[];
}

export type Action = 'create' | 'update' | 'replace' | 'delete' | 'archive' | 'adopt' | 'forget';

/** One exact call apply will make; the key is never part of it. */
export interface PlannedRequest {
  service: 'parser' | 'pipeline';
  method: 'POST' | 'PATCH' | 'DELETE';
  /** Path under the service's base URL (`/parsers/…`, `/api/projects/…`). */
  path: string;
  body?: Record<string, unknown>;
  /**
   * For the 2nd and later PATCH of one parser: the version in the path is predicted (the previous PATCH's version
   * plus one); apply uses the version that PATCH actually returned.
   */
  chained?: boolean;
  /** After this call apply waits for the generation to finish before the next one (replace). */
  waitAfter?: boolean;
}

export interface ResourceChange {
  address: string;
  kind: 'Parser' | 'Project';
  name: string;
  /** The service id, when the object exists; null before a create. */
  id: string | number | null;
  action: Action;
  reasons: string[];
  regenerates: boolean;
  /** Deletes, replaces and archives need approval (`--allow-destroy` or a confirmation). */
  destructive: boolean;
  requests: PlannedRequest[];
  field_changes: FieldChange[];
  /** Changes downstream consumers of the results notice: removed, renamed or retyped fields, a new parser id. */
  breaking: string[];
  /** Long project input lists in short: `+120 −3 entries`. */
  input_summary?: string;
  /** What apply records in state once the calls succeed (internal to scrapeform; stable within format_version). */
  record: ChangeRecord;
}

export type ChangeRecord =
  | {
      kind: 'Parser';
      /** The version the first PATCH is based on. */
      baseVersion: number | null;
      definition: ParserDefinition;
      descriptionsKnown: boolean;
      /** Parsers: whether apply must wait for a generation to know the result. */
      generates: boolean;
    }
  | { kind: 'Project'; definition: ProjectDefinition }
  | { kind: 'none' };

export interface DriftEntry {
  address: string;
  kind: 'Parser' | 'Project';
  message: string;
}

export interface PlanSummary {
  create: number;
  update: number;
  replace: number;
  delete: number;
  archive: number;
  adopt: number;
  regenerations: number;
  estimated_credits: number;
}

/** What a saved plan was computed from; apply refuses the plan once either moved. */
export interface PlanFingerprint {
  state_lineage: string;
  state_serial: number;
  /** Per address: the live parser version, or a digest of the live project. */
  live: Record<string, string>;
}

export interface Plan {
  format_version: typeof PLAN_FORMAT_VERSION;
  status: 'changes' | 'no_changes';
  summary: PlanSummary;
  resource_changes: ResourceChange[];
  drift: DriftEntry[];
  warnings: string[];
  fingerprint: PlanFingerprint;
}
