import type { DesiredField } from '../model/desired.js';
import type { ScraperParams } from '../model/vocabulary.js';

import { randomUUID } from 'node:crypto';
import { ScrapeformError } from '../errors.js';
import { isRecord as isPlainObject } from '../is-record.js';

export const STATE_FORMAT_VERSION = 1;

/**
 * Which state a backend holds, as a saved plan records it (fingerprint.target.state) and apply compares it: a state
 * that does not exist yet has no lineage to tell it from another. Never a credential.
 */
export interface StateIdentity {
  workspace: string;
  /**
   * A state file: its path relative to the working directory, with `/` between folders. A database: the URL reduced
   * to `postgres://HOST:PORT/DATABASE` (no user name, password or parameters; database-url.ts, databaseIdentity).
   */
  location: string;
}

/** What was last applied to a parser: enough to diff, since the service returns no descriptions or params. */
export interface ParserDefinition {
  urls: string[];
  scraperParams: ScraperParams;
  fields: DesiredField[];
}

export interface ParserState {
  kind: 'Parser';
  id: string;
  name: string;
  /**
   * The last version known FINISHED with `definition`; null when none is (a create not yet seen finished).
   * Changes are based on it.
   */
  version: number | null;
  definition: ParserDefinition | null;
  /** False for a parser adopted or imported: its descriptions, selectors and params were never seen. */
  descriptionsKnown: boolean;
  /**
   * A version created by scrapeform and not yet seen FINISHED (generating, or apply did not wait). Its failure is
   * never counted in `failed` yet: whoever counts it drops it (apply's wait, refreshState).
   */
  pending?: { version: number; definition: ParserDefinition };
  /**
   * The last version that FAILED, with its error, until a later one finishes. On the new parser of a replace under
   * way, the tries of the new parsers before it (carried at its own version, failuresSoFar).
   */
  failed?: ParserFailure;
  /**
   * A replace under way: the new parser exists, the old one is not deleted yet. `also`: parsers of an earlier
   * attempt of the same replace (the original, and a new parser whose generation FAILED after its run was killed),
   * deleted with the old one once the new one is FINISHED.
   */
  replacing?: { oldId: string; also?: string[] };
  /**
   * A PATCH about to be sent (written before it): the version it is based on and the definition it makes. A run
   * whose answer was lost (no answer, a 5xx, killed) leaves it behind; the next plan takes the version after
   * `from`, if the service made it, as this PATCH's (pending, with this definition) instead of as a change made
   * outside scrapeform, which it would PATCH again at the price of another generation (recover-intents.ts).
   * `sent`: when the PATCH started (written with the next state write), so one never sent is told from one whose
   * answer was lost: only the latter may have landed where neither the list nor the details show it yet.
   */
  patching?: { from: number; definition: ParserDefinition; sent?: string };
  /**
   * Values of `definition` that were never seen (a parser written by import: the service returns no scraper
   * params, descriptions, selectors or input types), so the empty ones recorded are unknown, not empty. Absent
   * when every value is known. `plan --accept-unknown ADDR` records the manifest's values for them.
   */
  unknown?: UnknownValues;
  /**
   * `lifecycle.prevent_destroy` as last applied; absent when not set. Kept so that deleting the manifest does not
   * lift the protection: only applying `prevent_destroy: false` does.
   */
  preventDestroy?: true;
}

/** What state does not know about a parser's definition; each list holds dot-notation field names. */
export interface UnknownValues {
  scraperParams?: true;
  descriptions?: string[];
  selectors?: string[];
  types?: string[];
}

/**
 * A FAILED version. `definition` is what it was asked to become and `attempts` how many times in a row that same
 * definition FAILED: plans retry it once by themselves, then stop (each try costs a generation).
 */
export interface ParserFailure {
  version: number;
  error: string;
  definition?: ParserDefinition;
  attempts?: number;
}

/** A parser's state without its pending version: once that version's end (FINISHED or FAILED) is recorded. */
export function withoutPending(state: ParserState): ParserState {
  const { pending: _pending, ...rest } = state;
  return rest;
}

/**
 * The failure to record when `definition` FAILED at `version`: attempts count up while the definition stays, as
 * `same` compares two (apply passes the plan's own comparison, plan/parser-definition.ts: a manifest respelled
 * between two tries, its fields reordered, is the same definition, and must not start the count again and so buy
 * a third paid try).
 */
export function failureOf(
  previous: ParserFailure | undefined,
  version: number,
  error: string,
  definition: ParserDefinition,
  same: (a: ParserDefinition, b: ParserDefinition) => boolean,
): ParserFailure {
  const again = previous?.definition !== undefined && same(previous.definition, definition);
  return { version, error, definition, attempts: again ? (previous.attempts ?? 1) + 1 : 1 };
}

/** What was last applied to a project: the values sent, for three-way diffs (a key dropped is reset). */
export type ProjectDefinition = Record<string, unknown>;

export interface ProjectState {
  kind: 'Project';
  id: number;
  name: string;
  definition: ProjectDefinition;
  /**
   * Fields the service answered differently from what scrapeform sent (they did not take), with the value it
   * answered: the next plan does not send the same value again while the service still answers this one.
   */
  held?: Record<string, unknown>;
  /**
   * Schedule fields the service did not take when scrapeform last sent them, with the value it answered. Not held
   * (every apply sends them again, and fails while the service runs the project otherwise: apply.schedule-not-taken),
   * only remembered so plan and drift say the service did not take them, not that they were edited outside scrapeform.
   */
  refused?: Record<string, unknown>;
  /**
   * When scrapeform created it (ISO time), until a list or a read by id first shows it (refresh-state.ts, at the
   * next apply). A service may answer 404 for an object a moment after its create, so while this is set a 404 is
   * no proof it is gone: the plan creates it again only with `--recreate ADDRESS` (unseen-create.ts). Absent in
   * states written before it existed: read as seen.
   */
  unseenSince?: string;
  /**
   * When the service accepted its archive with a 202 and a read by id still showed it (ISO time): it may still be
   * archiving it, and until then the project runs on its schedule. Kept in state so that it is not lost from sight:
   * while no manifest declares it, each plan archives it again (consent given already), or drops it once it is gone.
   */
  archiving?: string;
  /** `lifecycle.prevent_destroy` as last applied; absent when not set (see ParserState). */
  preventDestroy?: true;
}

export type ResourceState = ParserState | ProjectState;

/**
 * The `lifecycle.prevent_destroy` an entry records, for a handler that writes the entry anew (a PATCH's answer, a
 * replace): kept with every write, since a run killed before its end (where apply records each declared object's
 * protection again) would otherwise leave it lifted, and the next plan would delete or archive the object once its
 * manifest is gone.
 */
export function keptProtection(entry: { preventDestroy?: true } | undefined): { preventDestroy?: true } {
  return entry?.preventDestroy === true ? { preventDestroy: true } : {};
}

/**
 * A create about to be sent, written to state before its POST. A run killed before the answer (or whose answer was
 * lost) leaves it behind; the next plan finds what landed by name and takes it as ours, with this definition,
 * instead of adopting it blind or creating another one (docs/concepts.md, "Crash safety").
 */
export type CreateIntent = ParserCreateIntent | ProjectCreateIntent;

/** What every intent may carry beyond its create. */
interface IntentOutcome {
  /**
   * When apply gave up confirming the create (ISO time): the POST went out, its answer was lost (no answer, a 5xx)
   * and the list did not show the object. Until a list shows it (it is then recovered by name), the next plan
   * sends the create again only with `--recreate ADDRESS`: a list may lag behind a create, and a second object
   * would be a duplicate (a parser's costs a generation).
   */
  unconfirmed?: string;
  /**
   * When its POST was started (ISO time). An intent written ahead with the whole plan has none until its turn comes,
   * and gets it in the next state write (coalesced, within the write window): a run killed after that leaves an
   * intent whose POST went out, which the next plan treats as unconfirmed while no list shows the object (a list may
   * lag behind a create). One without it was never sent, or sent within the window before a kill.
   */
  sent?: string;
  /**
   * `lifecycle.prevent_destroy` of the object it creates, as the manifest applied declares it; absent when not set
   * (and in intents written before it was recorded). The object recovered from the intent is protected as the end of
   * the run would have recorded it, so a run killed after the POST does not leave it open to a delete or archive.
   */
  preventDestroy?: true;
}

export interface ParserCreateIntent extends IntentOutcome {
  kind: 'Parser';
  name: string;
  /** The definition the POST sends. */
  definition: ParserDefinition;
  /** For a replace: the parser the new one replaces (deleted once the new one is FINISHED). */
  replaces?: string;
  /** For a replace: parsers of an earlier attempt deleted with it (ParserState.replacing.also). */
  alsoReplaces?: string[];
  /** Live parsers of this name seen just before the POST: none of them is the one it creates. */
  before?: string[];
  /**
   * For a create in place of a parser deleted outside scrapeform: the id state still records at the address. The
   * intent stays open while state records that id (the new parser not recorded yet).
   */
  recreates?: string;
}

export interface ProjectCreateIntent extends IntentOutcome {
  kind: 'Project';
  name: string;
  definition: ProjectDefinition;
  before?: number[];
  /** For a create in place of a project archived outside scrapeform: the id state still records at the address. */
  recreates?: number;
}

export interface State {
  format_version: typeof STATE_FORMAT_VERSION;
  /** Grows by one on every write; a writer that read an older serial loses. */
  serial: number;
  /** Identifies one state's history; two states of different lineage are never merged. */
  lineage: string;
  resources: Record<string, ResourceState>;
  /** Creates sent (or about to be) whose answer was not recorded yet, by address; absent when there are none. */
  intents?: Record<string, CreateIntent>;
  /**
   * Parsers whose DELETE the service accepted (202 Accepted) and still showed after it, by id: no longer managed,
   * never adopted, deleted again or counted as unmanaged while the service still shows them (plan/deleting.ts).
   * Dropped once a list no longer shows one and a read by id answers 404; absent when there are none.
   */
  deleting?: Record<string, DeletingParser>;
  /** The key that last applied changes, as a salted digest (state-account.ts); absent in a state none recorded. */
  account?: StateAccount;
  /**
   * The environment of scrapeform.yaml that last applied changes (state-environment.ts); absent in a state none
   * recorded, or one applied without environments.
   */
  environment?: string;
}

/** The key that last applied changes with a state, as a salted digest: see state-account.ts. */
export interface StateAccount {
  salt: string;
  sha256: string;
}

/** A parser the service is still deleting: its name, and when its delete was accepted (ISO time). */
export interface DeletingParser {
  name: string;
  since: string;
}

/**
 * Refuses a stored state this scrapeform cannot read: one from a newer scrapeform (a later format_version) gets
 * its own message, since restoring a backup would be the wrong fix.
 */
export function checkStateFormat(state: unknown, location: string): State {
  const version = (state as { format_version?: unknown } | null)?.format_version;
  if (typeof version === 'number' && Number.isInteger(version) && version > STATE_FORMAT_VERSION) {
    throw new ScrapeformError(
      'state.newer-format',
      `the state in ${location} was written by a newer scrapeform (state format_version ${version}; this scrapeform reads format_version ${STATE_FORMAT_VERSION})`,
      {
        hint: 'upgrade scrapeform to the version that wrote it (npm install scrapeform@latest); do not edit the state by hand',
        details: { formatVersion: version, supported: STATE_FORMAT_VERSION },
      },
    );
  }
  const problem = stateShapeProblem(state);
  if (problem !== undefined) {
    throw new ScrapeformError(
      'state.corrupt',
      `the state in ${location} is not a scrapeform state (${problem})`,
      {
        hint: 'restore it from a backup',
      },
    );
  }
  return state as State;
}

/**
 * The highest serial a state may hold: it fits PostgreSQL's `int` column, and every serial is an exact number. A
 * state pushed with a serial past it (1e300, or 2^31) was accepted and left every later write failing (SQLSTATE
 * 22003) or every serial the same. No write goes past it either (nextState).
 */
export const MAX_SERIAL = 2_147_483_646;

/**
 * What keeps `data` from being a state of this format (format_version, serial, lineage, resources, intents and
 * deleting plain objects), or undefined when it is one. Shared by the backends' reads and `state push`, so a file push
 * accepts is one every later read accepts: `resources: null` or an array would fail only later, mid-command.
 */
export function stateShapeProblem(data: unknown): string | undefined {
  if (!isPlainObject(data))
    return `it is ${data === null ? 'null' : Array.isArray(data) ? 'an array' : `a ${typeof data}`}, not an object`;
  if (data.format_version === undefined) return 'it has no format_version';
  if (data.format_version !== STATE_FORMAT_VERSION)
    return `format_version ${describeValue(data.format_version)}`;
  if (
    typeof data.serial !== 'number' ||
    !Number.isInteger(data.serial) ||
    data.serial < 0 ||
    data.serial > MAX_SERIAL
  )
    return unlike('serial', data.serial, `a whole number from 0 to ${MAX_SERIAL}`);
  if (typeof data.lineage !== 'string') return unlike('lineage', data.lineage, 'a string');
  if (!isPlainObject(data.resources)) return unlike('resources', data.resources, 'an object of addresses');
  for (const [address, resource] of Object.entries(data.resources)) {
    const kind = isPlainObject(resource) ? resource.kind : undefined;
    if (kind !== 'Parser' && kind !== 'Project')
      return `resources.${address} is ${describeValue(resource)}, not a Parser or a Project`;
  }
  if (data.intents !== undefined && !isPlainObject(data.intents))
    return unlike('intents', data.intents, 'an object of addresses');
  if (data.deleting !== undefined) {
    if (!isPlainObject(data.deleting)) return unlike('deleting', data.deleting, 'an object of parser ids');
    for (const [id, entry] of Object.entries(data.deleting)) {
      if (!isPlainObject(entry) || typeof entry.name !== 'string' || typeof entry.since !== 'string')
        return `deleting.${id} is ${describeValue(entry)}, not a parser being deleted ({"name", "since"})`;
    }
  }
  return undefined;
}

/** `it has no KEY`, or `KEY is VALUE, not WHAT`. */
function unlike(key: string, value: unknown, what: string): string {
  return value === undefined ? `it has no ${key}` : `${key} is ${describeValue(value)}, not ${what}`;
}

/** A value as a message shows it: JSON, cut short. */
function describeValue(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

export function emptyState(lineage: string): State {
  return { format_version: STATE_FORMAT_VERSION, serial: 0, lineage, resources: {} };
}

/**
 * The state to store on a write, given the serial stored now and the one the writer read: a writer that read an
 * older serial loses (nothing is overwritten); the serial written is one above both the stored one and the state's
 * own; the first write gives the state its lineage.
 */
export function nextState(
  state: State,
  stored: number | undefined,
  read: number | undefined,
  location: string,
): State {
  if (stored !== undefined && read !== undefined && stored !== read) {
    throw new ScrapeformError(
      'state.serial-moved',
      `the state in ${location} was written by another run (serial ${stored}, expected ${read})`,
      {
        hint: 'run plan again: it reads the new state',
      },
    );
  }
  const serial = Math.max(stored ?? state.serial, state.serial) + 1;
  // A write one past the highest serial was stored (2,147,483,647 fits the int column), and every read after it
  // then refused the state as no state of this format: the command succeeded and left a state none could read.
  if (serial > MAX_SERIAL) {
    throw new ScrapeformError(
      'state.serial-limit',
      `the state in ${location} would pass serial ${MAX_SERIAL}, the highest a state can hold: it was not written`,
      {
        hint: 'a serial this high comes from a pushed copy: lower "serial" in that copy, or where the state is kept (in PostgreSQL, the serial column and the state\'s "serial"), then run the command again',
        details: { serial: serial - 1, maxSerial: MAX_SERIAL },
      },
    );
  }
  // Apply clears intents in place and leaves an emptied object behind (apply/create-intent.ts): not written.
  const { intents, deleting, ...rest } = state;
  return {
    ...rest,
    ...(intents !== undefined && Object.keys(intents).length > 0 ? { intents } : {}),
    ...(deleting !== undefined && Object.keys(deleting).length > 0 ? { deleting } : {}),
    // Above the state's own serial too: a state pushed with serial 10 onto a backend at 3 is stored as 11, so that
    // copy pushed again after later applies is a lower serial and refused, not a silent roll-back of them.
    serial,
    lineage: state.lineage === '' ? randomUUID() : state.lineage,
  };
}
