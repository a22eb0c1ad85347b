import type { ApiClients } from '../api/create-clients.js';
import type { LiveSnapshot, Plan, ResourceChange } from '../plan/model.js';
import type { StateBackend } from '../state/backend.js';
import type { State } from '../state/model.js';

/*
 * What apply takes, tells and returns: the types its pieces share (apply-plan.ts runs it, the handlers make the
 * calls, the hooks read around each regeneration). They live here, below all of them, so no two of those files
 * import each other.
 */

/**
 * Generations in flight at once when nothing else is asked (`--max-generating`). Waiting holds no call slot, so
 * without a bound a large apply would start every generation at once: each costs credits (30,000) before its
 * outcome is known, and the service documents no limit for concurrent generations. 16 keeps a large apply moving
 * (a generation takes about a minute, calls take well under a second) while bounding what one mistake can cost
 * before the first failures show.
 */
export const DEFAULT_MAX_GENERATING = 16;

/**
 * How a create's object was found when its POST's answer did not give it (createOnce): `list`, by name in a list
 * read after it (no answer, a 5xx, a 2xx that could not be read, a redirect not followed: a 303 naming nothing
 * to take); `location`, read at the Location of a 303 See Other.
 */
export type FoundBy = 'list' | 'location';

/**
 * What a create's answer was when the status alone does not say why its object had to be found: `unreadable`, a
 * 2xx whose body could not be read (not JSON, not the object, or not in the encoding it named). A reviewer reading
 * only `201` could not tell why a success needed finding.
 */
export type AnswerNote = 'unreadable';

/** A create whose POST's answer did not give its object: what that answer was, and how the object was found. */
export interface Recovered {
  /** The status the POST got; 0 when it got no answer (the connection broke, the time ran out), as in ApiError. */
  status: number;
  answer?: AnswerNote;
  found: FoundBy;
}

/** Something the CLI shows while apply runs. */
export type ApplyEvent =
  | { type: 'start'; address: string; action: ResourceChange['action'] }
  | ({
      type: 'call';
      address: string;
      /** Set when the status alone does not say it: the call started a generation (a 200 to a PATCH adding a field). */
      generates?: boolean;
    } & AppliedCall)
  /** A POST or PATCH that may have landed though it failed (no answer, a 5xx): a generation may have started. */
  | { type: 'call-unanswered'; address: string; method: 'POST' | 'PATCH' }
  | { type: 'generation'; address: string; id: string; version: number; status: string; elapsedMs: number }
  /**
   * `stopped`: Ctrl-C ended it after a call of its own (a parser left generating), or a failed state write kept it
   * from starting (nothing sent): not a failure of its own.
   */
  | { type: 'done'; address: string; ok: boolean; error?: string; stopped?: boolean }
  /** Something the user should know that does not fail the change (an unknown status while waiting). */
  | { type: 'warning'; address: string; message: string };

export interface ApplyOptions {
  plan: Plan;
  clients: ApiClients;
  backend: StateBackend;
  /** The state the plan was made from (apply writes it after every successful call). */
  state: State;
  /** Calls in flight at once (`--concurrency`, default 4); a change waiting for its generation holds none. */
  concurrency?: number;
  /** Generations in flight at once (`--max-generating`, default DEFAULT_MAX_GENERATING). */
  maxGenerating?: number;
  /**
   * The live lists the plan was made from: a create takes the objects of its name there as those that existed
   * before it (see createOnce) instead of listing again. Without it each create lists first.
   */
  live?: Pick<LiveSnapshot, 'parsers' | 'projects'>;
  /**
   * The addresses the manifests applied protect with `lifecycle.prevent_destroy`: an object created at one is
   * recorded protected from its intent on (create-intent.ts), and one adopted at one in the write that records it,
   * not only when the run ends, so a run killed after the POST or the adoption leaves it protected.
   */
  protect?: ReadonlySet<string>;
  /** How long to wait for a generation (`--wait-timeout`, default 15 minutes). */
  waitTimeoutMs?: number;
  /** Return after the calls instead of waiting for generations (`--no-wait`); a replace still waits. */
  noWait?: boolean;
  /** Ctrl-C: no new calls start; calls in flight finish. */
  signal?: AbortSignal;
  onEvent?: (event: ApplyEvent) => void;
  /**
   * Polling: the first look after `pollMinMs` (250 ms), then a twentieth of the time waited, up to `pollMaxMs` (15 s).
   */
  pollMinMs?: number;
  pollMaxMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** How long commits wait in memory before they are written together (StateStore). */
  stateWriteWindowMs?: number;
  /** How long a state write may take before the calls after it wait for it (StateStore; for tests). */
  stateWriteLateMs?: number;
  /** Reads around each regenerating change (the caller leaves them out with --no-wait). */
  hooks?: RegenerationHooks;
}

/**
 * A call as the report shows it: the status it got (0: no answer) and, for a create whose answer did not give its
 * object, why when its status does not say it (`answer`) and how the object was found afterwards, so an ambiguous
 * create never reads as a clean 201.
 */
export interface AppliedCall {
  method: string;
  path: string;
  status: number;
  answer?: AnswerNote;
  found?: FoundBy;
}

export interface ChangeResult {
  address: string;
  action: ResourceChange['action'];
  ok: boolean;
  /** Not started because Ctrl-C came first. */
  skipped?: boolean;
  calls: AppliedCall[];
  id: string | number | null;
  version?: number;
  status?: string;
  error?: { code: string; message: string; hint?: string };
  /** What the user should know about this change though it did not fail it. */
  warnings?: string[];
}

export interface ApplyResult {
  results: ChangeResult[];
  state: State;
  interrupted: boolean;
  /** The first paid call the account refused (402/403): no paid call was made after it, expect checks included. */
  paymentRefused?: { address: string; status: number };
}

/** Runs `work` as one call: holding a `--concurrency` permit. */
export type CallSlot = <T>(work: () => Promise<T>) => Promise<T>;

/**
 * What a caller does around each change that regenerates (the workspace reads the example results its report
 * compares): apply stays generic, and the hooks run inside it, each change's around its own generation, while the
 * other changes' generations go on. A hook makes its calls through `call`, so they count under `--concurrency` like
 * apply's own, and makes at most one: a change whose early read is running waits for it while holding its own call
 * permit, so a hook waiting for a second permit could wait forever at `--concurrency 1`. Only the first wave's
 * beforeFirstCall runs under the change's `--max-generating` permit (just before its first call); the rest hold
 * none. A hook only watches: what it does, and how it fails, is never the change's outcome. No hook starts after
 * Ctrl-C, and a hook should call off a read under way then (result-diffs passes its reads apply's signal).
 */
export interface RegenerationHooks {
  /**
   * Runs before the change's first call (a replace's old parser still exists then). It runs ahead, holding no
   * `--max-generating` permit, once the change is in the next wave (at most `--max-generating` changes ahead of it):
   * a wave reads while the one before it generates. A change whose turn comes first (the first wave) runs it then,
   * with the call permit of its first call.
   */
  beforeFirstCall?: (change: ResourceChange, call: CallSlot) => Promise<void>;
  /**
   * Runs once the change is done and its new version FINISHED, after its permits are given back: the next
   * generation starts meanwhile.
   */
  afterFinished?: (change: ResourceChange, result: ChangeResult, call: CallSlot) => Promise<void>;
}
