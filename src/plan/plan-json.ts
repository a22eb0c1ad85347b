import {
  createParserInput,
  fieldOperationsBody,
  parserCreateBody,
  parserPath,
  projectCreateBody,
  PARSERS_PATH,
  projectPath,
  PROJECTS_PATH,
} from '../model/wire.js';
import type { ScraperParams } from '../model/vocabulary.js';
import type { ParserDefinition, ProjectDefinition, UnknownValues } from '../state/model.js';
import type { FieldChange } from './diff-fields.js';
import type {
  Action,
  DriftEntry,
  ParserDelete,
  ParserFinishReplace,
  ParserReplace,
  Plan,
  PlanFingerprint,
  PlanSummary,
  PlannedExpectCheck,
  PlannedMove,
  PlanSelection,
  ResourceChange,
} from './model.js';
import { parsersDeleted } from './model.js';

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

/** What apply records in state once the calls succeed (internal to scrapeform; stable within format_version). */
export type ChangeRecord =
  | {
      kind: 'Parser';
      /** The version the first PATCH is based on. */
      baseVersion: number | null;
      definition: ParserDefinition;
      descriptionsKnown: boolean;
      /** Parsers: whether apply must wait for a generation to know the result. */
      generates: boolean;
      /** Values state records as never seen once applied (an imported parser); absent when all are known. */
      unknown?: UnknownValues;
    }
  | { kind: 'Project'; definition: ProjectDefinition }
  | { kind: 'none' };

/** One top-level key a project update sends: what the service holds now and what it is sent. */
export interface ValueChangeJson {
  field: string;
  /** Left out when the service reports no value and scrapeform never applied one. */
  before?: unknown;
  after: unknown;
}

/** What a replace takes away, against what it makes (the old parser as far as scrapeform knows it). */
export interface ReplacedParserJson {
  /** The old parser's urls; left out when never seen (an adopted parser whose examples are not known). */
  urls?: string[];
  /** The old parser's scraper_params; left out when never seen (the service does not return them). */
  scraper_params?: ScraperParams;
  /** The declared fields against the old parser's, unlike the change's own field_changes (every field added). */
  field_changes: FieldChange[];
  /** Declared fields the old parser has with the same definition. */
  unchanged: string[];
}

/** One change as the public plan format shows it. */
export interface ResourceChangeJson {
  address: string;
  kind: 'Parser' | 'Project';
  name: string;
  /** The service id, when the object exists; null before a create. */
  id: string | number | null;
  action: Action;
  reasons: string[];
  /**
   * For an object made by for_each or built on templates: where its values come from (manifest, element,
   * templates with file:line, paths as the manifests were given). Shown under the change as `# from`; absent for
   * an object written out in one manifest, and in plans saved before it was part of the format.
   */
  origin?: string;
  regenerates: boolean;
  destructive: boolean;
  requests: PlannedRequest[];
  field_changes: FieldChange[];
  /** Project updates: each changed top-level key, old and new (`before`/`after`), as field_changes for parsers. */
  value_changes?: ValueChangeJson[];
  /** Parser replaces: the parser it replaces, for the old -> new view (urls, scraper_params, the field diff). */
  replaced?: ReplacedParserJson;
  breaking: string[];
  record: ChangeRecord;
  input_summary?: string;
}

/** The public plan format (`format_version` 1), as `plan --json` prints it and `plan --out` saves it. */
export interface PlanJson {
  format_version: Plan['format_version'];
  status: Plan['status'];
  summary: PlanSummary;
  resource_changes: ResourceChangeJson[];
  drift: DriftEntry[];
  warnings: string[];
  fingerprint: PlanFingerprint;
  /** State entries `moved:` hints move (no call); absent when there are none, so older plans read the same. */
  moved?: PlannedMove[];
  /** The `expect` checks apply runs after its calls (one parse per URL); absent when there are none. */
  expect_checks?: PlannedExpectCheck[];
  /**
   * What a partial plan was narrowed to: `--target`, `--exclude`, paths given with `--env`; absent for a whole plan.
   */
  selection?: PlanSelection;
}

/** The exact calls a change makes, in order: what the plan shows and what apply sends. */
export function plannedRequests(change: ResourceChange): PlannedRequest[] {
  if (change.kind === 'Project') {
    switch (change.action) {
      case 'create': {
        const body = projectCreateBody(change.definition, change.scheduledAt);
        return [{ service: 'pipeline', method: 'POST', path: PROJECTS_PATH, body }];
      }
      case 'update':
        return [{ service: 'pipeline', method: 'PATCH', path: projectPath(change.id), body: change.changed }];
      case 'archive':
        return [{ service: 'pipeline', method: 'DELETE', path: projectPath(change.id) }];
      case 'adopt':
      case 'forget':
        return [];
    }
  }
  switch (change.action) {
    case 'create':
      return [createRequest(change.name, change.definition)];
    case 'update':
      return change.waves.map((wave, i) => ({
        service: 'parser',
        method: 'PATCH',
        path: parserPath(change.id, change.baseVersion + i),
        body: fieldOperationsBody(wave),
        ...(i > 0 ? { chained: true } : {}),
      }));
    case 'replace':
      if (change.finishing) return deleteRequests(change);
      return [
        { ...createRequest(change.name, change.definition), waitAfter: true },
        ...deleteRequests(change),
      ];
    case 'delete':
      return deleteRequests(change);
    case 'adopt':
    case 'record':
    case 'forget':
      return [];
  }
}

function deleteRequests(change: ParserDelete | ParserReplace | ParserFinishReplace): PlannedRequest[] {
  return parsersDeleted(change).map((id) => ({ service: 'parser', method: 'DELETE', path: parserPath(id) }));
}

function createRequest(name: string, definition: ParserDefinition): PlannedRequest {
  const body = parserCreateBody(createParserInput(name, definition));
  return { service: 'parser', method: 'POST', path: PARSERS_PATH, body };
}

/** What apply records in state for a change, as the public format shows it. */
export function changeRecord(change: ResourceChange): ChangeRecord {
  if (change.kind === 'Project') {
    switch (change.action) {
      case 'create':
      case 'update':
      case 'adopt':
        return { kind: 'Project', definition: change.definition };
      case 'archive':
      case 'forget':
        return { kind: 'none' };
    }
  }
  const parser = (
    baseVersion: number | null,
    definition: ParserDefinition,
    descriptionsKnown: boolean,
    unknown?: UnknownValues,
  ): ChangeRecord => ({
    kind: 'Parser',
    baseVersion,
    definition,
    descriptionsKnown,
    generates: change.regenerates,
    ...(unknown !== undefined ? { unknown } : {}),
  });
  switch (change.action) {
    case 'create':
      return parser(null, change.definition, true);
    case 'update':
      return parser(change.baseVersion, change.definition, change.descriptionsKnown, change.unknown);
    case 'replace':
      return change.finishing
        ? parser(change.version, change.definition, true)
        : parser(null, change.definition, true);
    case 'adopt':
      return parser(change.version, change.definition, false);
    case 'record':
      return parser(change.version, change.definition, change.unknown === undefined, change.unknown);
    case 'delete':
    case 'forget':
      return { kind: 'none' };
  }
}

/** One change in the public format; the key order is part of the format (golden fixtures). */
export function toResourceChangeJson(change: ResourceChange): ResourceChangeJson {
  return {
    address: change.address,
    kind: change.kind,
    name: change.name,
    id: change.id,
    action: change.action,
    reasons: change.reasons,
    ...(change.origin !== undefined ? { origin: change.origin } : {}),
    regenerates: change.regenerates,
    destructive: change.destructive,
    requests: plannedRequests(change),
    field_changes: change.field_changes,
    ...valueChanges(change),
    ...replacedParser(change),
    breaking: change.breaking,
    record: changeRecord(change),
    ...(change.input_summary !== undefined ? { input_summary: change.input_summary } : {}),
  };
}

/** The old -> new values of a project update; none for a plan read back from a file that did not carry them. */
function valueChanges(change: ResourceChange): { value_changes?: ValueChangeJson[] } {
  if (change.kind !== 'Project' || change.action !== 'update' || change.before === undefined) return {};
  const before = change.before;
  return {
    value_changes: Object.entries(change.changed).map(([field, after]) => ({
      field,
      ...(before[field] !== undefined ? { before: before[field] } : {}),
      after,
    })),
  };
}

/** The parser a replace takes away; none for a plan read back from a file that did not carry it. */
function replacedParser(change: ResourceChange): { replaced?: ReplacedParserJson } {
  if (change.kind !== 'Parser' || change.action !== 'replace' || change.finishing) return {};
  const old = change.replaced;
  if (old === undefined) return {};
  return {
    replaced: {
      ...(old.urls !== undefined ? { urls: old.urls } : {}),
      ...(old.scraperParams !== undefined ? { scraper_params: old.scraperParams } : {}),
      field_changes: old.field_changes,
      unchanged: old.unchanged,
    },
  };
}

/** The plan in the public format (`format_version` 1). */
export function toPlanJson(plan: Plan): PlanJson {
  return {
    format_version: plan.format_version,
    status: plan.status,
    summary: plan.summary,
    resource_changes: plan.resource_changes.map(toResourceChangeJson),
    drift: plan.drift,
    warnings: plan.warnings,
    fingerprint: plan.fingerprint,
    ...(plan.moved !== undefined && plan.moved.length > 0 ? { moved: plan.moved } : {}),
    ...(plan.expect_checks !== undefined ? { expect_checks: plan.expect_checks } : {}),
    ...(plan.selection !== undefined ? { selection: plan.selection } : {}),
  };
}
