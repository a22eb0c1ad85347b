import type pg from 'pg';
import { MAX_TIMER_MS } from '../duration.js';

/**
 * A PostgreSQL state session's settings, and what its errors mean: how long the client waits past the server's
 * own limit, keep-alive on both ends, and which errors are a broken connection, a timeout, or a refusal.
 */

/** How much longer than the server's own limit the client waits for a query's answer (its reason comes first). */
export const CLIENT_MARGIN_MS = 2_000;

/**
 * The time limits of a state session for a SCRAPEFORM_STATE_TIMEOUT of `timeoutMs`: connecting, and each statement
 * or wait for a row lock, may take that long, and the client waits CLIENT_MARGIN_MS more for an answer, for a server
 * that no longer answers at all. Each is at most MAX_TIMER_MS, the longest a Node timer waits and the largest
 * value PostgreSQL takes for these settings: a timeout within 2 s of it (accepted, as any duration up to that) made
 * the client's timer overflow, and Node fired it after 1 ms, so every query "timed out" at once. Near the maximum
 * the margin shrinks; a library caller's longer timeout waits the longest there is.
 */
export function sessionTimeouts(timeoutMs: number): {
  connectionTimeoutMillis: number;
  query_timeout: number;
  statement_timeout: number;
  lock_timeout: number;
} {
  const limit = Math.min(timeoutMs, MAX_TIMER_MS);
  return {
    connectionTimeoutMillis: limit,
    query_timeout: Math.min(limit + CLIENT_MARGIN_MS, MAX_TIMER_MS),
    statement_timeout: limit,
    lock_timeout: limit,
  };
}

/**
 * A client of the state database at `url`, not connected. `broken` is called when its connection breaks, say while
 * idle (the database restarted): a pg.Client never reconnects, so the next call opens a new one instead of failing
 * on this one for ever.
 */
export function newStateClient(
  driver: typeof pg,
  url: string,
  timeoutMs: number,
  broken: (client: pg.Client) => void,
): pg.Client {
  const client = new driver.Client({
    connectionString: url,
    application_name: 'scrapeform',
    // The server ends a statement, or a wait for a row lock, after this time and says why; the client gives up a
    // little later, for a server that no longer answers at all; keep-alive finds a connection whose peer went away
    // without a word.
    ...sessionTimeouts(timeoutMs),
    keepAlive: true,
    // Node's default first probe is the OS's (2 hours on Linux): a connection behind a NAT that forgets idle flows
    // died unnoticed during a long generation wait.
    keepAliveInitialDelayMillis: KEEPALIVE_IDLE_S * 1000,
  });
  client.on('error', () => broken(client));
  return client;
}

/**
 * How long the unlock at the end of a run may take before the session is ended instead (which releases the lock
 * as well): a run whose database went silent after its last write kept its CI job waiting the whole query timeout
 * (30 s by default) for an answer that changes nothing.
 */
export const RELEASE_TIMEOUT_MS = 5_000;

/**
 * Ends a session and its connection. `client.end()` sends Terminate and then waits for the server to close its
 * side, which a database or proxy that stopped answering never does (a half-open connection has no timeout of its
 * own): a command that had done all its work and written its state then never exited, and its output was never
 * printed. After `ms` the socket is destroyed instead; PostgreSQL ends the session (and any lock) once it notices.
 */
export async function endSession(client: pg.Client, ms: number): Promise<void> {
  const gone = await fulfilledWithin(
    client.end().catch(() => undefined),
    ms,
  );
  if (!gone) client.connection.stream.destroy();
}

/**
 * Whether `work` fulfils within `ms`: false when it fails, or is still under way then (it is not called off; a
 * failure after that is ignored).
 */
export async function fulfilledWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(resolve, ms, false)));
  try {
    return await Promise.race([work.then(() => true), late]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Ends at once a session that never finished opening (its connect() had not returned): no lock was taken on it, so
 * there is nothing to release and nothing to wait for. `endSession` waited up to its bound for a database that took
 * the connection and never answered, so a run stopped by Ctrl-C took that long to exit. The socket is destroyed
 * rather than `client.end()` called: that would leave a pending connect() unsettled for ever, where now it fails (and
 * the open with it) as a connection that broke.
 */
export function abandonSession(client: pg.Client): void {
  client.connection.stream.destroy();
}

export const INSUFFICIENT_PRIVILEGE = '42501';

/**
 * Keep-alive on both ends of the connection. The client's first probe after this long idle (Node sets no
 * interval or count: the OS's apply). The server's probes, every interval after that, count times: PostgreSQL
 * ends the session of a runner lost without a FIN (and releases its lock) within idle + interval × count, about
 * a minute, instead of the OS default of about two hours. docs/ci.md states the bound.
 */
export const KEEPALIVE_IDLE_S = 30;
const KEEPALIVE_INTERVAL_S = 10;
const KEEPALIVE_COUNT = 3;
/** Unacknowledged data (the answer to a runner that vanished) gives up as soon (else 15 minutes of retries). */
const USER_TIMEOUT_MS = (KEEPALIVE_IDLE_S + KEEPALIVE_INTERVAL_S * KEEPALIVE_COUNT) * 1000;

/**
 * Sets the server's keep-alive for this session. A server that refuses (a setting its OS lacks, or a pooler in
 * between that rejects SET) keeps its own: the run goes on, with the longer bound.
 */
export async function setServerKeepalives(client: pg.Client): Promise<void> {
  const refused = (error: unknown): undefined => {
    if (isConnectionError(error)) throw error;
    return undefined;
  };
  await client
    .query(
      `SELECT set_config('tcp_keepalives_idle', $1, false), set_config('tcp_keepalives_interval', $2, false),
              set_config('tcp_keepalives_count', $3, false)`,
      [String(KEEPALIVE_IDLE_S), String(KEEPALIVE_INTERVAL_S), String(KEEPALIVE_COUNT)],
    )
    .catch(refused);
  // A setting of its own: PostgreSQL 12 and later, on an OS that has TCP_USER_TIMEOUT (Linux).
  await client
    .query("SELECT set_config('tcp_user_timeout', $1, false)", [String(USER_TIMEOUT_MS)])
    .catch(refused);
}

/**
 * Whether the server gave up on a statement at SCRAPEFORM_STATE_TIMEOUT: statement_timeout (57014) or
 * lock_timeout (55P03), a wait for a row or lock another session holds. It answered, but not in time.
 */
export function isTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === '57014' || code === '55P03';
}

/**
 * Whether an error means the connection itself is gone (so the client is dropped and the next call reconnects):
 * anything the server did not send with an SQLSTATE (a reset, a refused or timed-out connection, "Connection
 * terminated"), or one of the connection-exception and shutdown classes the server sends as it ends a session.
 */
export function isConnectionError(error: unknown): boolean {
  if (!hasSqlState(error)) return true;
  const code = (error as { code: string }).code;
  return code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03';
}

/** Whether the server sent the error, with its SQLSTATE: not the client giving up (query_timeout), nor a reset. */
export function hasSqlState(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}
