import type pg from 'pg';
import { ScrapeformError } from '../errors.js';
import { describeLock, lockAliveError, lockElsewhereError, lockMismatch } from './backend.js';
import type { ForceUnlockOptions, LockInfo } from './backend.js';
import { judgeHolder } from './process-identity.js';
import { fulfilledWithin, hasSqlState, isConnectionError } from './postgres-session.js';
import { redactText } from './database-url.js';

/** A state's two advisory keys: its own (of its schema and table) and the one earlier versions took (its table). */
export interface LockKeys {
  own: bigint;
  earlier: bigint;
}

/** Which of the two keys a session holds (or is to give back). */
export interface HeldKeys {
  own: boolean;
  earlier: boolean;
}

/**
 * Takes both keys at once, neither waiting: the state's own key, and the earlier versions' key shared, which a run
 * of an earlier version holds exclusively (so each excludes the other) and runs of this version in other schemas
 * hold shared too (so they do not). Says what was granted, and the session's id.
 */
export async function tryKeys(
  client: pg.Client,
  keys: LockKeys,
): Promise<{ held: HeldKeys; session: number | undefined }> {
  const { rows } = await client.query<{ locked: boolean; shared: boolean; session: number }>(
    'SELECT pg_try_advisory_lock($1) AS locked, pg_try_advisory_lock_shared($2) AS shared, pg_backend_pid() AS session',
    [keys.own.toString(), keys.earlier.toString()],
  );
  const granted = rows[0];
  return {
    held: { own: granted?.locked === true, earlier: granted?.shared === true },
    session: granted?.session,
  };
}

/** Gives back the keys held, in one query (none sent when none is held). */
export async function releaseKeys(client: pg.Client, keys: LockKeys, held: HeldKeys): Promise<void> {
  const unlocks = [
    ...(held.own ? [{ call: 'pg_advisory_unlock', key: keys.own }] : []),
    ...(held.earlier ? [{ call: 'pg_advisory_unlock_shared', key: keys.earlier }] : []),
  ];
  if (unlocks.length === 0) return;
  await client.query(
    `SELECT ${unlocks.map((unlock, i) => `${unlock.call}($${i + 1})`).join(', ')}`,
    unlocks.map((unlock) => unlock.key.toString()),
  );
}

/**
 * The other sessions of this database that hold the lock: with this state's own key, or of an earlier version with
 * the earlier key exclusively (runs of this version hold that one shared).
 */
export async function keyHolders(
  client: pg.Client,
  keys: LockKeys,
): Promise<{ pid: number; holder: string; since: Date | null }[]> {
  // A bigint advisory key shows in pg_locks as two unsigned halves: classid (high) and objid (low), with
  // objsubid 1 (2 is a key of two integers). Advisory locks are per database: the same key in another
  // database is another workspace's lock.
  const halves = (key: bigint): [string, string] => {
    const unsigned = BigInt.asUintN(64, key);
    return [(unsigned >> 32n).toString(), (unsigned & 0xffffffffn).toString()];
  };
  const { rows } = await client.query<{ pid: number; holder: string; since: Date | null }>(
    `SELECT DISTINCT l.pid, coalesce(a.usename, '?') || '@' || coalesce(host(a.client_addr), 'local') AS holder,
            a.backend_start AS since
     FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
     WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
       AND ((l.classid::bigint = $1 AND l.objid::bigint = $2)
         OR (l.classid::bigint = $3 AND l.objid::bigint = $4 AND l.mode = 'ExclusiveLock'))
       AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND l.pid <> pg_backend_pid()`,
    [...halves(keys.own), ...halves(keys.earlier)],
  );
  return rows;
}

/**
 * Whether the sessions `pids`, ended by force-unlock, let go of the keys within `withinMs`. pg_terminate_backend
 * answers once the session was signalled; the session then sends its client the error and drops its temporary
 * objects before it releases its advisory locks, so a lock taken at once (force-unlock, then apply) could still
 * find the keys held. pg_locks is looked at again, soon then less often; a session holding them that was not
 * ended (a run that took the lock since) is not waited for.
 */
export async function keysReleased(
  client: pg.Client,
  keys: LockKeys,
  pids: readonly number[],
  options: { withinMs: number; now?: () => number; sleep?: (ms: number) => Promise<void> },
): Promise<boolean> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deadline = now() + options.withinMs;
  for (let pause = 10; ; pause = Math.min(pause * 2, 250)) {
    const holders = await keyHolders(client, keys);
    if (!holders.some((holder) => pids.includes(holder.pid))) return true;
    if (now() >= deadline) return false;
    await sleep(Math.min(pause, deadline - now()));
  }
}

/** The ended sessions still held the keys when force-unlock stopped waiting (keysReleased). */
export function unlockPendingError(
  location: string,
  pids: readonly number[],
  withinMs: number,
): ScrapeformError {
  return new ScrapeformError(
    'state.unlock-pending',
    `force-unlock ended the session${pids.length === 1 ? '' : 's'} ${pids.join(', ')} that held the lock of ${location}, but the lock was not let go of within ${Math.round(withinMs / 1000)} s: a run started now may still find it locked`,
    {
      hint: 'run scrapeform force-unlock again in a moment (it says "was not locked" once the lock is free); SCRAPEFORM_STATE_TIMEOUT sets how long it waits',
      details: { sessions: [...pids] },
    },
  );
}

/**
 * Ends the sessions `pids` (an advisory lock can only be released by its own session) and waits, up to `withinMs`,
 * until they let go of the keys: a run started right after force-unlock must find the lock free. False when none
 * of them could be ended.
 */
export async function endHolders(
  client: pg.Client,
  keys: LockKeys,
  pids: readonly number[],
  location: string,
  withinMs: number,
): Promise<boolean> {
  const { rows } = await client.query<{ pid: number; ended: boolean }>(
    'SELECT pid, pg_terminate_backend(pid) AS ended FROM unnest($1::int[]) AS pid',
    [[...pids]],
  );
  const ended = rows.filter((row) => row.ended).map((row) => row.pid);
  if (ended.length === 0) return false;
  if (!(await keysReleased(client, keys, ended, { withinMs })))
    throw unlockPendingError(location, ended, withinMs);
  return true;
}

/** Records the lock's holder in its row of scrapeform_locks (one per workspace table), replacing any left there. */
export async function writeLockRow(client: pg.Client, table: string, info: LockInfo): Promise<void> {
  await client.query(
    'INSERT INTO scrapeform_locks (workspace, info) VALUES ($1, $2) ON CONFLICT (workspace) DO UPDATE SET info = EXCLUDED.info',
    [table, JSON.stringify(info)],
  );
}

/** The lock's holder as it recorded itself, if it did. */
export async function readLockRow(client: pg.Client, table: string): Promise<LockInfo | undefined> {
  const held = await client.query<{ info: LockInfo }>(
    'SELECT info FROM scrapeform_locks WHERE workspace = $1',
    [table],
  );
  return held.rows[0]?.info;
}

/** Deletes the lock's row if it is still the lock `lockId`'s (a row another run wrote since is left). */
export async function deleteLockRow(client: pg.Client, table: string, lockId: string): Promise<void> {
  await client.query("DELETE FROM scrapeform_locks WHERE workspace = $1 AND info->>'id' = $2", [
    table,
    lockId,
  ]);
}

/**
 * The lock of this run gone with the session that held it: nothing was written. The server ending the session says
 * so with an SQLSTATE; a connection this side gave up on (no answer within the state timeout, a reset) has none: the
 * database stopped answering, and dropping the connection let the lock go.
 */
export function lockLostError(
  location: string,
  expected: LockInfo | undefined,
  timeoutMs: number,
  cause?: unknown,
): ScrapeformError {
  const gaveUp = cause !== undefined && !hasSqlState(cause);
  return new ScrapeformError(
    'state.lock-lost',
    `the state lock of ${location} was lost with the database connection that held it: the state was not written`,
    {
      hint: gaveUp
        ? `the connection holding it stopped answering or broke (${redactText(cause instanceof Error ? cause.message : String(cause))}; each query may take ${Math.round(timeoutMs / 1000)} s: SCRAPEFORM_STATE_TIMEOUT) and was dropped, and the lock with it; check that the database runs and answers, then check what was done with plan, and apply again`
        : 'the database restarted or force-unlock ended the session; check what was done with plan, then apply again',
      details: { expected: expected ?? null },
      ...(cause !== undefined ? { cause } : {}),
    },
  );
}

/** The lock is held, by another run or by this one (named, as the file backend names it). */
export function lockedError(location: string, held: LockInfo | undefined): ScrapeformError {
  const who = held !== undefined ? describeLock(held) : 'another run';
  const unlock = held?.id !== undefined ? `scrapeform force-unlock ${held.id}` : 'scrapeform force-unlock';
  return new ScrapeformError('state.locked', `the state ${location} is locked by ${who}`, {
    hint: `wait for that run to finish; a runner that died releases the lock with its connection (else ${unlock})`,
    details: { lock: held },
  });
}

/**
 * Ends the session holding the state's lock (an advisory lock can only be released by its own session) and returns
 * who held it, undefined when no one did. Refuses a lock other than `options.lockId`, a session this state's row does
 * not name, and a holder known to run, unless `options.force`.
 */
export async function forceUnlockKeys(
  client: pg.Client,
  keys: LockKeys,
  table: string,
  location: string,
  timeoutMs: number,
  options: ForceUnlockOptions,
): Promise<LockInfo | undefined> {
  const sessions = await keyHolders(client, keys);
  const session = sessions[0];
  if (session === undefined) {
    if (options.lockId !== undefined) throw lockMismatch(location, options.lockId, undefined);
    return undefined;
  }
  // What the holder recorded when it took the lock; a session that holds it without a row (or before writing
  // it) is named by the database's own view.
  const recorded = await readLockRow(client, table);
  const held: LockInfo = recorded ?? {
    holder: session.holder,
    host: 'unknown',
    pid: session.pid,
    started: session.since?.toISOString() ?? 'unknown',
    operation: 'unknown',
  };
  if (options.lockId !== undefined && held.id !== options.lockId)
    throw lockMismatch(location, options.lockId, held);
  // Only the session this state's row names (a row of an earlier version names none): one with no row here, or
  // another, is still taking the lock, or is an earlier version's run of the same workspace in another schema
  // (whose key was the same for every schema).
  const elsewhere = recorded === undefined || (recorded.session ?? session.pid) !== session.pid;
  if (elsewhere && options.force !== true) throw lockElsewhereError(location, session.pid);
  if (recorded !== undefined && options.force !== true && judgeHolder(recorded) === 'alive') {
    throw lockAliveError(location, held);
  }
  const pids = sessions.map((row) => row.pid);
  if (!(await endHolders(client, keys, pids, location, timeoutMs))) return undefined;
  return held;
}

/**
 * Releases what the session holds of the lock's keys, then (given the lock's id) deletes the lock's row if it is
 * still this lock's; false when that did not end within `withinMs` (bounded below the query timeout: the caller ends
 * a session that does not answer soon, which unlocks as well) or the session broke.
 *
 * The row goes after the keys: while a key is held its row is there (but while a run is taking it), so another
 * run finding the lock held names its holder; a missing row means no one holds it (or a run is taking it), as
 * for a database where no run ever locked. Matched by id, a row another run wrote since is left. A row that
 * cannot be deleted (a role granted no DELETE, as before this version) stays: the next run replaces it, and no
 * one reads a row while the lock is free.
 */
export async function unlockWithin(
  client: pg.Client,
  keys: LockKeys,
  held: HeldKeys,
  table: string,
  lockId: string | undefined,
  withinMs: number,
): Promise<boolean> {
  const work = async (): Promise<void> => {
    await releaseKeys(client, keys, held);
    if (lockId === undefined) return;
    await deleteLockRow(client, table, lockId).catch((error: unknown) => {
      if (isConnectionError(error)) throw error;
    });
  };
  return fulfilledWithin(work(), withinMs);
}
