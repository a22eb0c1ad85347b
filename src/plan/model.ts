import type { LiveParserDetails, LiveParserSummary, LiveProject } from '../api/live.js';
import type { ScraperParams } from '../model/vocabulary.js';
import type { FieldOperations } from '../model/wire.js';
import type { ParserDefinition, ProjectDefinition, StateIdentity, UnknownValues } from '../state/model.js';
import type { FieldChange } from './diff-fields.js';

export const PLAN_FORMAT_VERSION = 1;

export { CREDITS_PER_GENERATION } from '../model/vocabulary.js';
export {
  ADOPTED_REASON,
  adoptsLiveObject,
  forgetsUnseen,
  forgetsVanished,
  recreatesUnseen,
  recreatesVanished,
  resendsUnconfirmed,
  UNCONFIRMED_PATCH_REASON,
  UNCONFIRMED_REASON,
  UNSEEN_REASON,
  VANISHED_REASON,
} from './change-reasons.js';

/** What the live services look like, read with the fewest calls: two lists, and details only where needed. */
export interface LiveSnapshot {
  parsers: LiveParserSummary[];
  /** Details by parser id, of the versions the planner asked for (detailsNeeded). */
  details: Record<string, LiveParserDetails>;
  projects: LiveProject[];
  /**
   * Details of the version state records, by parser id, read only where the latest version moved one step outside
   * scrapeform: with it a rename made by hand is told from a remove and an add (plan/drift.ts).
   */
  previous?: Record<string, LiveParserDetails>;
  /**
   * Parsers being deleted (State.deleting) whose read by id failed otherwise than with a 404 or 410, with why: not
   * taken as gone (they stay recorded as being deleted), and no reason to stop a plan that plans nothing for them.
   */
  deletingUnread?: Record<string, string>;
}

/**
 * One change of a plan, typed by kind and action: each carries exactly what apply needs to make its calls and
 * what to record. The public JSON (`requests`, `record`) is derived from it by `toPlanJson` (plan-json.ts).
 */
export type ResourceChange = ParserChange | ProjectChange;

export type ParserChange =
  | ParserCreate
  | ParserUpdate
  | ParserReplace
  | ParserFinishReplace
  | ParserDelete
  | ParserAdopt
  | ParserRecord
  | ParserForget;

export type ProjectChange = ProjectCreate | ProjectUpdate | ProjectArchive | ProjectAdopt | ProjectForget;

export type Action = ResourceChange['action'];

/** What every change shows, whatever its kind and action. */
interface ChangeCommon {
  address: string;
  name: string;
  reasons: string[];
  /** Whether the change starts a generation (and apply waits for it to know the result). */
  regenerates: boolean;
  /** Deletes, replaces and archives need approval (`--allow-destroy` or a confirmation). */
  destructive: boolean;
  field_changes: FieldChange[];
  /** Changes downstream consumers of the results notice: removed, renamed or retyped fields, a new parser id. */
  breaking: string[];
  /** Long project input lists in short: `+120 −3 entries`. */
  input_summary?: string;
  /**
   * For an object made by for_each or built on templates: where its values come from (manifest, element,
   * templates with file:line). In the public plan JSON too, so a saved plan shown or applied names it as plan did.
   */
  origin?: string;
}

/** A new parser: POST /parsers with the definition; version 0 generates. */
export interface ParserCreate extends ChangeCommon {
  kind: 'Parser';
  action: 'create';
  id: null;
  definition: ParserDefinition;
}

/** One or more PATCHes in order (waves), each based on the version the previous one made. */
export interface ParserUpdate extends ChangeCommon {
  kind: 'Parser';
  action: 'update';
  id: string;
  /** The version the first PATCH is based on. */
  baseVersion: number;
  /** Only the last may add or modify, so a change regenerates at most once. */
  waves: FieldOperations[];
  /** The definition state records once the last PATCH is applied. */
  definition: ParserDefinition;
  descriptionsKnown: boolean;
  /** What state records as never seen once applied (an imported parser); absent when every value is known. */
  unknown?: UnknownValues;
}

/**
 * A new parser in place of `id`: create it, wait for FINISHED (apply always waits here), then delete the old one.
 */
export interface ParserReplace extends ChangeCommon {
  kind: 'Parser';
  action: 'replace';
  finishing: false;
  /** The parser being replaced. */
  id: string;
  definition: ParserDefinition;
  /**
   * The parser being replaced as far as scrapeform knows it, for the old -> new view of every rendering (the plan
   * JSON's `replaced`, read back from a saved plan too).
   */
  replaced?: ReplacedParser;
  /**
   * Parsers of an earlier attempt of this replace, deleted after `id` once the new one is FINISHED: the original
   * parser, when the attempt's new parser (`id`) FAILED after its run was killed (ParserState.replacing.also).
   */
  alsoDeletes?: string[];
}

/** What a replace takes away, against what it makes: the reviewer's view of a new parser in place of an old one. */
export interface ReplacedParser {
  /** The old parser's urls; undefined when never seen (an adopted parser whose examples are not known). */
  urls?: string[];
  /** The old parser's scraper_params; undefined when never seen (the service does not return them). */
  scraperParams?: ScraperParams;
  /** The declared fields against the old parser's: added, removed, renamed, modified with old -> new. */
  field_changes: FieldChange[];
  /** Declared fields the old parser has with the same definition (as far as it is known). */
  unchanged: string[];
}

/** A replace a previous run left half done, whose new parser (`id`) is FINISHED: the old one goes. */
export interface ParserFinishReplace extends ChangeCommon {
  kind: 'Parser';
  action: 'replace';
  finishing: true;
  /** The new parser. */
  id: string;
  /** The old parser still to delete; null when it is gone already. */
  oldId: string | null;
  /** The new parser's FINISHED version, recorded with `definition`. */
  version: number;
  definition: ParserDefinition;
  /** Parsers of an earlier attempt, deleted with the old one (ParserReplace.alsoDeletes). */
  alsoDeletes?: string[];
}

export interface ParserDelete extends ChangeCommon {
  kind: 'Parser';
  action: 'delete';
  id: string;
  /** The parsers a half-done replace of it still had (ParserState.replacing), deleted with it. */
  alsoDeletes?: string[];
}

/** A live parser of the declared name taken into state as it is (no call). */
export interface ParserAdopt extends ChangeCommon {
  kind: 'Parser';
  action: 'adopt';
  id: string;
  version: number;
  definition: ParserDefinition;
}

/**
 * Values of an imported parser that were never seen, confirmed live with `--accept-unknown`: the manifest's values
 * are recorded in state as they are (no call, no regeneration). `reasons` lists what is recorded.
 */
export interface ParserRecord extends ChangeCommon {
  kind: 'Parser';
  action: 'record';
  id: string;
  /** The recorded version, unchanged. */
  version: number;
  definition: ParserDefinition;
  /** What stays never seen once recorded (values the manifest does not declare); absent when nothing does. */
  unknown?: UnknownValues;
}

/** A parser deleted outside scrapeform, dropped from state (no call). */
export interface ParserForget extends ChangeCommon {
  kind: 'Parser';
  action: 'forget';
  id: string;
}

export interface ProjectCreate extends ChangeCommon {
  kind: 'Project';
  action: 'create';
  id: null;
  /** What is sent and recorded. */
  definition: ProjectDefinition;
  /** Sent with the create only, never recorded or compared: the next run's time moves by itself. */
  scheduledAt?: string;
}

export interface ProjectUpdate extends ChangeCommon {
  kind: 'Project';
  action: 'update';
  id: number;
  /** The keys that differ, with the values to send (the PATCH body). */
  changed: Record<string, unknown>;
  /**
   * The live values of the changed keys, for the old -> new view of the human and Markdown plans. Not part of the
   * public plan format, so a plan read back from a file has none and shows the new values only.
   */
  before?: Record<string, unknown>;
  /** The whole definition state records. */
  definition: ProjectDefinition;
}

export interface ProjectArchive extends ChangeCommon {
  kind: 'Project';
  action: 'archive';
  id: number;
}

export interface ProjectAdopt extends ChangeCommon {
  kind: 'Project';
  action: 'adopt';
  id: number;
  definition: ProjectDefinition;
}

export interface ProjectForget extends ChangeCommon {
  kind: 'Project';
  action: 'forget';
  id: number;
}

/** A state entry moved to a new address by a `moved:` hint: no call, state only. */
export interface PlannedMove {
  from: string;
  to: string;
  kind: 'Parser' | 'Project';
  id: string | number;
  /** The object's name in the service when it was moved (a parser keeps it: the service cannot rename one). */
  name: string;
}

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
  /**
   * Where the plan was made: the environment and the services' base URLs. A saved plan is refused against
   * others: another environment's state may be missing too (lineage "" on both sides), and its objects would be
   * created in the wrong account. Absent in a plan from before it was recorded.
   */
  target?: PlanTarget;
}

export interface PlanTarget {
  /** The `--env` chosen, or null for a project without environments. */
  environment: string | null;
  parsers: string;
  projects: string;
  /**
   * The state: its workspace and where it lives, never a credential (StateIdentity). Two states that do not exist
   * yet have the same lineage (""), so without it a plan saved for one workspace applied in another. Absent in a
   * plan from before it was recorded (stale-plan.ts says how such a plan is judged).
   */
  state?: StateIdentity;
  /**
   * The account of the key the plan was made with: a salt drawn from the rest of the plan (32 hex digits: accountOf,
   * plan-workspace.ts) and the SHA-256 of the salt and the key, cut to 16 hex digits, never the key. apply --plan
   * refuses the file with a key of another account. Absent in a plan from before it was recorded.
   */
  account?: PlanAccount;
}

export interface PlanAccount {
  salt: string;
  sha256: string;
}

export interface Plan {
  format_version: typeof PLAN_FORMAT_VERSION;
  status: 'changes' | 'no_changes';
  summary: PlanSummary;
  resource_changes: ResourceChange[];
  drift: DriftEntry[];
  warnings: string[];
  fingerprint: PlanFingerprint;
  /** State entries moved by `moved:` hints (no call); absent when there are none. */
  moved?: PlannedMove[];
  /** What apply checks after its calls (the parsers' `expect` blocks); absent when nothing will be checked. */
  expect_checks?: PlannedExpectCheck[];
  /**
   * What a partial plan was narrowed to (`--target`, `--exclude`, paths given with `--env`); absent for a whole plan,
   * and in plans saved before it was recorded (partial-plan.ts reads their warning instead).
   */
  selection?: PlanSelection;
}

/**
 * The objects a partial plan was made for, as data: a saved plan is held to them at apply (stale-plan.ts). Each list
 * is empty when its flag was not given; paths as they were given to plan.
 */
export interface PlanSelection {
  targets: string[];
  excludes: string[];
  paths: string[];
}

/**
 * The `expect` checks apply runs once its changes are made: each URL of a changed parser's `expect` block is parsed
 * (one call each, which the service may charge), so a reviewer sees them with the calls the plan lists.
 */
export interface PlannedExpectCheck {
  address: string;
  urls: string[];
}

/**
 * How the warning of a plan made with `--target` or `--exclude` starts: such a plan leaves other objects out, and
 * says so wherever it is shown (the summary line, the warnings, the saved file), never "No changes" for them.
 */
export const PARTIAL_PLAN_WARNING = 'partial plan:';

/**
 * What the warning of a plan narrowed by paths says of objects state holds that no manifest declares (build-plan.ts).
 */
export const NO_PATH_SELECTS = 'so no path selects';

/** A warning that says what a partial plan leaves out: the Markdown plan shows it under its summary line. */
export function describesPartialPlan(warning: string): boolean {
  return warning.startsWith(PARTIAL_PLAN_WARNING) || warning.includes(NO_PATH_SELECTS);
}

/** A change whose apply POSTs a new object (and so records an intent first). */
export type PostingChange = ProjectCreate | ParserCreate | ParserReplace;

/** Whether a change POSTs a new object: a create, or a replace not yet half done. */
export function postsNewObject(change: ResourceChange): change is PostingChange {
  return change.action === 'create' || (change.action === 'replace' && !change.finishing);
}

/**
 * The parsers a change deletes, in the order apply deletes them: the one it names (a replace's old parser, once the
 * new one is FINISHED), then those an interrupted replace left (`alsoDeletes`). The plan's requests and apply's
 * calls both come from here.
 */
export function parsersDeleted(change: ParserDelete | ParserReplace | ParserFinishReplace): string[] {
  const named = change.action === 'replace' && change.finishing ? change.oldId : change.id;
  return [...(named !== null ? [named] : []), ...(change.alsoDeletes ?? [])];
}
