import { randomUUID } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { ScrapeformError } from '../errors.js';
import type { State, StateIdentity } from './model.js';
import type { SentMark } from './sent-journal.js';
import { currentProcessIdentity } from './process-identity.js';
import type { ProcessIdentity } from './process-identity.js';

/**
 * Who holds a lock: shown when another run finds it held. `id` (what `force-unlock ID` names) and the process
 * identity are missing from locks written by earlier versions.
 */
export interface LockInfo extends ProcessIdentity {
  id?: string;
  holder: string;
  host: string;
  pid: number;
  started: string;
  operation: string;
  /** PostgreSQL: the backend pid of the session that took the lock (force-unlock ends only that one). */
  session?: number;
}

/**
 * What `force-unlock` broke: the holder of the lock, `unreadable` for a lock file that names none (empty, half
 * written, or JSON that is no lock: every run calls the state locked by another run), undefined when none was held.
 */
export type BrokenLock = LockInfo | typeof UNREADABLE_LOCK | undefined;

/** A file lock that names no holder: what `BrokenLock` and the messages say of it. */
export const UNREADABLE_LOCK = 'unreadable';

/** How messages name a lock file that names no holder. */
const UNREADABLE_LOCK_TEXT = 'a lock file that names no holder (empty, half written, or not a lock)';

/** What `force-unlock` was told: the id of the lock to break (when given), and whether a live holder may lose it. */
export interface ForceUnlockOptions {
  lockId?: string;
  force?: boolean;
}

export interface StateLock {
  info: LockInfo;
  release(): Promise<void>;
}

/**
 * Where state lives. The planner never sees a backend: callers read state, plan, and write state through this,
 * so a shared backend (a database) can be added without touching the planner.
 */
export interface StateBackend {
  /** For messages: the file path, or the database and workspace. */
  readonly location: string;
  /**
   * Which state this is, for a saved plan to record and apply to compare. Both backends say; a backend that cannot
   * (an in-memory one of a test) leaves it out, and its plans record no state.
   */
  readonly stateIdentity?: StateIdentity;
  /** The state, or an empty one (serial 0) when none was written yet. */
  read(): Promise<State>;
  /**
   * Writes the state with a serial one above the stored one (and above the state's own) and returns what was
   * written; fails if the stored serial moved since read.
   */
  write(state: State): Promise<State>;
  /** Takes the lock or fails naming its holder. */
  lock(operation: string): Promise<StateLock>;
  /**
   * Records that calls recorded ahead are about to be sent, where a kill of this process cannot lose it, without a
   * write of the whole state (the file backend's journal, sent-journal.ts); `read` merges the marks in. A backend
   * without it has them recorded by the next coalesced write only.
   */
  markSent?(marks: readonly SentMark[]): Promise<void>;
  /** A lock taken over because its holder had died on this machine, for the CLI to report. */
  readonly staleLockBroken?: LockInfo | undefined;
  /**
   * Breaks a lock left by a run that died; returns who held it, undefined when nothing was held. Refuses a lock
   * other than `lockId` (when given), and one whose holder is known to run unless `force`.
   */
  forceUnlock(options?: ForceUnlockOptions): Promise<BrokenLock>;
  /** Releases connections (a database backend). */
  close?(): Promise<void>;
}

/** Who is taking a lock now: user@host, pid and time, shown to whoever finds it held. */
export function newLockInfo(operation: string): LockInfo {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // No user entry in a container: the host and pid still say who.
  }
  return {
    id: randomUUID(),
    holder: `${user}@${hostname()}`,
    host: hostname(),
    pid: process.pid,
    started: new Date().toISOString(),
    operation,
    ...currentProcessIdentity(),
  };
}

/**
 * `holder (pid N, operation, since T)`, and the lock's id when it has one: how every message names a lock; a lock
 * file that names no holder, as such.
 */
export function describeLock(held: LockInfo | typeof UNREADABLE_LOCK): string {
  if (held === UNREADABLE_LOCK) return UNREADABLE_LOCK_TEXT;
  const id = held.id !== undefined ? `, lock id ${held.id}` : '';
  return `${held.holder} (pid ${held.pid}, ${held.operation}, since ${held.started}${id})`;
}

/** `force-unlock LOCK_ID` when the lock is another, or none: nothing is broken. */
export function lockMismatch(location: string, lockId: string, held: BrokenLock): ScrapeformError {
  const unreadable = held === UNREADABLE_LOCK;
  return new ScrapeformError(
    'state.lock-mismatch',
    held === undefined
      ? `the state ${location} is not locked, so not by lock ${lockId}: nothing was broken`
      : `the state ${location} is locked by ${describeLock(held)}, not by lock ${lockId}: nothing was broken`,
    {
      hint: unreadable
        ? 'check that no run is active, then run scrapeform force-unlock without an id'
        : held?.id !== undefined
          ? `check that it is the lock you meant, then run scrapeform force-unlock ${held.id}`
          : 'check that it is the lock you meant, then run scrapeform force-unlock without an id',
      details: { lock: unreadable ? null : (held ?? null), lockId },
    },
  );
}

/** `force-unlock` without --force when the holder is known to be running on this machine: nothing is broken. */
export function lockAliveError(location: string, held: LockInfo): ScrapeformError {
  return new ScrapeformError(
    'state.lock-alive',
    `the state ${location} is locked by ${describeLock(held)}, which is still running on this machine: nothing was broken`,
    {
      hint: 'wait for it to finish, or stop it; to break the lock of a run that is still running, add --force',
      details: { lock: held },
    },
  );
}

/**
 * PostgreSQL `force-unlock` without --force when the session holding the lock's key is not the one the state's lock
 * row names: a run still taking the lock (its row not written yet), or a run of an earlier version of the same
 * workspace in another schema of the database (earlier versions took one key for every schema, which this version
 * honours: postgres-tables.ts, earlierLockKeyOf). Ending it would stop that run mid-apply: nothing is broken.
 */
export function lockElsewhereError(location: string, pid: number): ScrapeformError {
  return new ScrapeformError(
    'state.lock-elsewhere',
    `the state ${location} is locked by a database session (pid ${pid}) that is not the run this state recorded: it is a run still taking the lock, or a run of an earlier scrapeform of the same workspace in another schema of this database (earlier versions had one lock key for every schema); nothing was broken`,
    {
      hint: `see who it is with SELECT * FROM pg_stat_activity WHERE pid = ${pid}; if it is a run of this state that died, add --force`,
      details: { pid },
    },
  );
}

/**
 * The backend with another `lock()` (one that waits, or reports what it took over) or `read()` (one that checks
 * whose state it is), everything else its own: read through, so what a lock sets on it (`staleLockBroken`) is seen
 * through the wrapper.
 */
export function overriding(
  backend: StateBackend,
  given: { lock?: (operation: string) => Promise<StateLock>; read?: () => Promise<State> },
): StateBackend {
  const markSent = backend.markSent?.bind(backend);
  return {
    get location() {
      return backend.location;
    },
    get stateIdentity() {
      return backend.stateIdentity;
    },
    get staleLockBroken() {
      return backend.staleLockBroken;
    },
    read: given.read ?? (() => backend.read()),
    write: (state) => backend.write(state),
    lock: given.lock ?? ((operation) => backend.lock(operation)),
    forceUnlock: (options) => backend.forceUnlock(options),
    close: async () => backend.close?.(),
    // Only where the backend has one: StateStore.sent tells a backend without it by its absence.
    ...(markSent !== undefined ? { markSent } : {}),
  };
}

/**
 * Runs `work` while `lock` is held, then releases it. When `work` failed and the release fails too (the lock file
 * on a disk gone read-only, the same fault that failed the work), the work's error is the one thrown, with the
 * release's message added: a release error thrown from a `finally` replaced it, and an apply stopped by a state
 * write lost what it had done (its --json result, the creates not recorded) behind "cannot remove the lock file".
 * A release that fails after the work succeeded is the error, as `afterWork` turns it (by default as it is).
 */
export async function whileHolding<T>(
  lock: StateLock,
  work: () => Promise<T>,
  afterWork: (release: unknown, result: T) => unknown = (release) => release,
): Promise<T> {
  let result: T;
  try {
    result = await work();
  } catch (error) {
    await lock.release().catch((release: unknown) => {
      if (error instanceof Error)
        error.message += `; the lock was not released either: ${release instanceof Error ? release.message : String(release)}`;
    });
    throw error;
  }
  // A release that fails after the work is done is thrown as `afterWork` makes it: apply's carries what was done.
  await lock.release().catch((release: unknown) => {
    throw afterWork(release, result);
  });
  return result;
}
