import { createHash } from 'node:crypto';
import type pg from 'pg';
import { ScrapeformError } from '../errors.js';
import { describeLock, lockAliveError, lockMismatch, newLockInfo } from './backend.js';
import type { ForceUnlockOptions, LockInfo, StateBackend, StateLock } from './backend.js';
import { judgeHolder } from './process-identity.js';
import { redactUrl } from '../model/state-url.js';
import { checkDatabaseUrl, databaseIdentity, redactText } from './database-url.js';
import { checkStateFormat, emptyState, nextState } from './model.js';
import type { State, StateIdentity } from './model.js';
import { checkWorkspaceName } from './workspace-name.js';

/**
 * State in PostgreSQL, for teams whose CI runners start empty. One table per workspace, created on first use;
 * each write is a transaction that checks the serial it read, so a concurrent writer loses instead of overwriting;
 * the lock is a session advisory lock, released by PostgreSQL itself when a killed runner's connection drops.
 */
export class PostgresStateBackend implements StateBackend {
  readonly location: string;
  readonly stateIdentity: StateIdentity;
  /** The table's exact name (also the key of its row in scrapeform_locks), and as written in SQL. */
  private readonly table: string;
  private readonly sqlTable: string;
  private readonly lockKey: bigint;
  private client: pg.Client | undefined;
  private ready: Promise<void> | undefined;
  /** The session that holds this backend's lock: a write on any other (a reconnection) would be unlocked. */
  private lockSession: pg.Client | undefined;
  private lockInfo: LockInfo | undefined;
  /** The lock a lock() call is taking now: a second call meanwhile is refused, as while it is held. */
  private taking: LockInfo | undefined;
  private lastSerial: number | undefined;

  constructor(
    private readonly url: string,
    readonly workspace = 'default',
    /**
     * How long connecting, and each query, may take (SCRAPEFORM_STATE_TIMEOUT). A database that accepts the
     * connection and never answers, or stops answering mid-run, otherwise held a CI job until the runner's limit.
     */
    private readonly timeoutMs = DEFAULT_DATABASE_TIMEOUT_MS,
  ) {
    checkWorkspaceName(workspace);
    this.table = tableOf(workspace);
    this.sqlTable = quoteIdentifier(this.table);
    this.lockKey = advisoryKey(this.table);
    this.location = `${redactUrl(url)} (workspace ${workspace})`;
    checkDatabaseUrl(url);
    this.stateIdentity = { workspace, location: databaseIdentity(url) };
  }

  private async connect(): Promise<pg.Client> {
    if (this.ready === undefined) {
      const ready = this.open();
      this.ready = ready;
      // A connection that failed is not kept: the next call (watch's next round) connects again.
      ready.catch(() => {
        if (this.ready === ready) this.ready = undefined;
      });
    }
    await this.ready;
    if (this.client === undefined) throw new Error('the state database connection was closed');
    return this.client;
  }

  private async open(): Promise<void> {
    // pg is loaded only by a run that uses a database (a file-state run never pays for it).
    const { default: driver } = await import('pg');
    const client = new driver.Client({
      connectionString: this.url,
      application_name: 'scrapeform',
      connectionTimeoutMillis: this.timeoutMs,
      // The server ends a statement, or a wait for a row lock, after this time and says why; the client gives
      // up a little later, for a server that no longer answers at all; keep-alive finds a connection whose
      // peer went away without a word.
      query_timeout: this.timeoutMs + CLIENT_MARGIN_MS,
      statement_timeout: this.timeoutMs,
      lock_timeout: this.timeoutMs,
      keepAlive: true,
      // Node's default first probe is the OS's (2 hours on Linux): a connection behind a NAT that forgets idle
      // flows died unnoticed during a long generation wait.
      keepAliveInitialDelayMillis: KEEPALIVE_IDLE_S * 1000,
    });
    // A connection that breaks while idle (the database restarted) is dropped: a pg.Client never reconnects, so
    // the next call opens a new one instead of failing on this one for ever.
    client.on('error', () => this.drop(client));
    this.client = client;
    try {
      await client.connect();
    } catch (error) {
      this.drop(client);
      throw new ScrapeformError(
        'state.unreachable',
        `cannot connect to the state database ${redactUrl(this.url)}: ${redactText((error as Error).message)}`,
        {
          hint: 'check --state / SCRAPEFORM_STATE and that the database accepts connections',
        },
      );
    }
    try {
      await setServerKeepalives(client);
      // Only what is missing is created: a role that may only read and write the tables (made by an admin) has
      // no CREATE on the schema, and even CREATE TABLE IF NOT EXISTS needs it.
      const names = [this.table, legacyTableOf(this.workspace), LOCKS_TABLE];
      const existing = await this.tablesNamed(client, names);
      if (!existing.has(this.table) || !existing.has(LOCKS_TABLE)) await this.createTables(client, names);
    } catch (error) {
      this.drop(client);
      throw error;
    }
  }

  /**
   * Creates this workspace's table and the locks table, whichever is missing, in one transaction under a fixed
   * advisory lock: two jobs using a new workspace at once otherwise both ran CREATE TABLE IF NOT EXISTS, and
   * PostgreSQL failed the second with a unique violation in its catalog (pg_type_typname_nsp_index). The second
   * waits here, then finds the tables made.
   */
  private async createTables(client: pg.Client, names: string[]): Promise<void> {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1)', [SETUP_LOCK_KEY.toString()]);
      const existing = await this.tablesNamed(client, names);
      if (!existing.has(this.table)) {
        this.refuseSharedTable(existing);
        await client.query(
          `CREATE TABLE ${this.sqlTable} (id int PRIMARY KEY CHECK (id = 1), serial int NOT NULL, lineage text NOT NULL, state jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`,
        );
        // Says whose table it is: a table without it was made by an earlier version (refuseSharedTable).
        await client.query(`COMMENT ON TABLE ${this.sqlTable} IS '${ownerMark(this.workspace)}'`);
      }
      if (!existing.has(LOCKS_TABLE))
        await client.query(`CREATE TABLE ${LOCKS_TABLE} (workspace text PRIMARY KEY, info jsonb NOT NULL)`);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  /**
   * Forgets a client whose connection broke (or failed to open) and ends it. A lock taken on its session went
   * with it: PostgreSQL released it when the session ended, so a write under it fails (lockSession).
   */
  private drop(client: pg.Client): void {
    if (this.client === client) {
      this.client = undefined;
      this.ready = undefined;
    }
    client.end().catch(() => undefined);
  }

  /** The tables of these exact names in the current schema, with their comment (who owns them). */
  private async tablesNamed(client: pg.Client, names: string[]): Promise<Map<string, string | null>> {
    const { rows } = await client.query<{ name: string; comment: string | null }>(
      `SELECT c.relname AS name, obj_description(c.oid, 'pg_class') AS comment FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND c.relname = ANY($1)`,
      [names],
    );
    return new Map(rows.map((r) => [r.name, r.comment]));
  }

  /**
   * Before workspaces were told apart exactly, `team-a`, `team_a` and `Team_A` all used the table
   * `scrapeform_state_team_a`. A workspace without a table of its own, while such a shared table made by an
   * earlier version exists, cannot tell whether the shared state is its own: it refuses, naming both ways out,
   * rather than start empty (which would plan every object as new) or take another workspace's state. A table
   * this version made says whose it is, so it is never in doubt.
   */
  private refuseSharedTable(existing: Map<string, string | null>): void {
    const shared = legacyTableOf(this.workspace);
    if (shared === this.table || !existing.has(shared)) return;
    const owner = existing.get(shared);
    if (owner?.startsWith(OWNER_MARK) === true) return;
    throw new ScrapeformError(
      'state.workspace',
      `workspace "${this.workspace}" has no table of its own yet, but ${shared} exists: earlier versions of scrapeform kept every workspace whose name differs from "${this.workspace}" only in case, - or _ in that one table, so it may hold this workspace's state or another's`,
      {
        hint: `if it is this workspace's state, rename it: ALTER TABLE ${shared} RENAME TO ${this.sqlTable}; if it belongs to workspace ${shared.slice(TABLE_PREFIX.length)}, give this one an empty table: CREATE TABLE ${this.sqlTable} (LIKE ${shared} INCLUDING ALL)`,
        details: { workspace: this.workspace, table: this.table, sharedTable: shared },
      },
    );
  }

  async read(): Promise<State> {
    return this.answering(() => this.readNow());
  }

  private async readNow(): Promise<State> {
    const client = await this.connect();
    const { rows } = await client.query<{ state: State }>(`SELECT state FROM ${this.sqlTable} WHERE id = 1`);
    const state = rows[0] === undefined ? emptyState('') : checkStateFormat(rows[0].state, this.location);
    this.lastSerial = state.serial;
    return state;
  }

  async write(state: State): Promise<State> {
    return this.answering(() => this.writeNow(state));
  }

  private async writeNow(state: State): Promise<State> {
    this.checkLockHeld();
    const client = await this.connect();
    this.checkLockHeld();
    await client.query('BEGIN');
    try {
      const { rows } = await client.query<{ serial: number }>(
        `SELECT serial FROM ${this.sqlTable} WHERE id = 1 FOR UPDATE`,
      );
      const next = nextState(state, rows[0]?.serial, this.lastSerial, this.location);
      await client.query(
        `INSERT INTO ${this.sqlTable} (id, serial, lineage, state, updated_at) VALUES (1, $1, $2, $3, now())
         ON CONFLICT (id) DO UPDATE SET serial = EXCLUDED.serial, lineage = EXCLUDED.lineage, state = EXCLUDED.state, updated_at = now()`,
        [next.serial, next.lineage, JSON.stringify(next)],
      );
      await client.query('COMMIT');
      this.lastSerial = next.serial;
      return next;
    } catch (error) {
      // A connection that stopped answering cannot roll back either: the server does when the session ends.
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  /**
   * A query that got no answer in time, or a connection that broke, is `state.unreachable` naming the database
   * (without its password); other errors (a lost serial check, a newer format) pass as they are.
   */
  private async answering<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ScrapeformError) throw error;
      if (this.client !== undefined && isConnectionError(error)) {
        const lockWentWithIt = this.lockInfo !== undefined && this.lockSession === this.client;
        this.drop(this.client);
        if (lockWentWithIt) throw this.lockLost(error);
      }
      if (isConnectionError(error) || isTimeout(error))
        throw new ScrapeformError(
          'state.unreachable',
          `the state database ${redactUrl(this.url)} did not answer: ${redactText((error as Error).message)}`,
          {
            hint: `check that it runs and accepts queries; each query may take ${Math.round(this.timeoutMs / 1000)} s (SCRAPEFORM_STATE_TIMEOUT)`,
            cause: error,
          },
        );
      // It answered, with an error: what it said is what to act on (a missing privilege above all).
      const sqlstate = (error as { code: string }).code;
      throw new ScrapeformError(
        'state.unreachable',
        `the state database ${redactUrl(this.url)} refused a query: ${redactText((error as Error).message)} (SQLSTATE ${sqlstate})`,
        {
          hint:
            sqlstate === INSUFFICIENT_PRIVILEGE
              ? 'grant the role in the URL what docs/ci.md lists under "Privileges"'
              : 'PostgreSQL says what failed; docs/ci.md lists what the role in the URL needs under "Privileges"',
          details: { sqlstate },
          cause: error,
        },
      );
    }
  }

  async lock(operation: string): Promise<StateLock> {
    return this.answering(() => this.lockNow(operation));
  }

  private async lockNow(operation: string): Promise<StateLock> {
    // Advisory locks stack within a session: a second lock() here was granted, and one release then left the
    // lock held by a run that had finished with it. Refused as the file backend refuses it (its lock file exists).
    const mine =
      this.taking ??
      (this.lockInfo !== undefined && this.lockSession === this.client ? this.lockInfo : undefined);
    if (mine !== undefined) throw lockedError(this.location, mine);
    const info = newLockInfo(operation);
    this.taking = info;
    try {
      const client = await this.connect();
      const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
        this.lockKey.toString(),
      ]);
      if (rows[0]?.locked !== true) throw lockedError(this.location, await this.lockRow(client));
      try {
        await client.query(
          'INSERT INTO scrapeform_locks (workspace, info) VALUES ($1, $2) ON CONFLICT (workspace) DO UPDATE SET info = EXCLUDED.info',
          [this.table, JSON.stringify(info)],
        );
      } catch (error) {
        // The advisory lock is held and this run will not use it: kept, it would outlive this call in a long-lived
        // process (watch) and every later run would find the state locked by a lock its holder released. A
        // connection already gone is not asked again: ending it releases the lock.
        if (isConnectionError(error)) this.drop(client);
        else await this.unlock(client);
        throw error;
      }
      this.lockSession = client;
      this.lockInfo = info;
      return {
        info,
        // Never fails: it runs in the callers' finally blocks, where its error replaced the command's own outcome
        // (a finished apply exited 1, a state.lock-lost was hidden). A session that cannot unlock is ended.
        release: async () => {
          if (this.lockInfo?.id !== info.id) return;
          this.lockInfo = undefined;
          this.lockSession = undefined;
          await this.unlock(client);
        },
      };
    } finally {
      this.taking = undefined;
    }
  }

  /** Releases the advisory lock of this session; a session that cannot is ended, which releases it as well. */
  private async unlock(client: pg.Client): Promise<void> {
    // A session that ended (the database restarted, force-unlock) released the lock with it.
    if (this.client !== client) return;
    try {
      await client.query('SELECT pg_advisory_unlock($1)', [this.lockKey.toString()]);
    } catch {
      this.drop(client);
    }
  }

  /** The lock's holder as it recorded itself, if it did. */
  private async lockRow(client: pg.Client): Promise<LockInfo | undefined> {
    const held = await client.query<{ info: LockInfo }>(
      'SELECT info FROM scrapeform_locks WHERE workspace = $1',
      [this.table],
    );
    return held.rows[0]?.info;
  }

  /**
   * A write under this backend's lock must go through the session that holds it: after the connection broke
   * (the database restarted, force-unlock ended it) PostgreSQL has released the lock and another run may hold it.
   */
  private checkLockHeld(): void {
    if (this.lockInfo === undefined || (this.lockSession !== undefined && this.lockSession === this.client))
      return;
    throw this.lockLost();
  }

  private lockLost(cause?: unknown): ScrapeformError {
    return new ScrapeformError(
      'state.lock-lost',
      `the state lock of ${this.location} was lost with the database connection that held it: the state was not written`,
      {
        hint: 'the database restarted or force-unlock ended the session; check what was done with plan, then apply again',
        details: { expected: this.lockInfo ?? null },
        ...(cause !== undefined ? { cause } : {}),
      },
    );
  }

  /** Ends the session that holds the lock (an advisory lock can only be released by its own session). */
  async forceUnlock(options: ForceUnlockOptions = {}): Promise<LockInfo | undefined> {
    return this.answering(() => this.forceUnlockNow(options));
  }

  private async forceUnlockNow(options: ForceUnlockOptions): Promise<LockInfo | undefined> {
    const client = await this.connect();
    // A bigint advisory key shows in pg_locks as two unsigned halves: classid (high) and objid (low), with
    // objsubid 1 (2 is a key of two integers). Advisory locks are per database: the same key in another
    // database is another workspace's lock.
    const unsigned = BigInt.asUintN(64, this.lockKey);
    const high = (unsigned >> 32n).toString();
    const low = (unsigned & 0xffffffffn).toString();
    const { rows: sessions } = await client.query<{ pid: number; holder: string; since: Date | null }>(
      `SELECT l.pid, coalesce(a.usename, '?') || '@' || coalesce(host(a.client_addr), 'local') AS holder,
              a.backend_start AS since
       FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'advisory' AND l.granted AND l.classid::bigint = $1 AND l.objid::bigint = $2
         AND l.objsubid = 1 AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND l.pid <> pg_backend_pid()`,
      [high, low],
    );
    const session = sessions[0];
    if (session === undefined) {
      if (options.lockId !== undefined) throw lockMismatch(this.location, options.lockId, undefined);
      return undefined;
    }
    // What the holder recorded when it took the lock; a session that holds it without a row (or before writing
    // it) is named by the database's own view.
    const recorded = await this.lockRow(client);
    const held: LockInfo = recorded ?? {
      holder: session.holder,
      host: 'unknown',
      pid: session.pid,
      started: session.since?.toISOString() ?? 'unknown',
      operation: 'unknown',
    };
    if (options.lockId !== undefined && held.id !== options.lockId)
      throw lockMismatch(this.location, options.lockId, held);
    if (recorded !== undefined && options.force !== true && judgeHolder(recorded) === 'alive') {
      throw lockAliveError(this.location, held);
    }
    const { rows: ended } = await client.query<{ pid: number; ended: boolean }>(
      'SELECT pid, pg_terminate_backend(pid) AS ended FROM unnest($1::int[]) AS pid',
      [sessions.map((row) => row.pid)],
    );
    if (!ended.some((row) => row.ended)) return undefined;
    return held;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.ready = undefined;
    if (client !== undefined) await client.end().catch(() => undefined);
  }
}

/** How long connecting to the state database, and each query, may take by default (SCRAPEFORM_STATE_TIMEOUT). */
export const DEFAULT_DATABASE_TIMEOUT_MS = 30_000;

/** How much longer than the server's own limit the client waits for a query's answer (its reason comes first). */
const CLIENT_MARGIN_MS = 2_000;

const TABLE_PREFIX = 'scrapeform_state_';

/** Who holds each workspace's lock, as they recorded it (shown to whoever finds the lock held). */
const LOCKS_TABLE = 'scrapeform_locks';

/** A bigint advisory-lock key for a name: the first 64 bits of its SHA-256. */
function advisoryKey(name: string): bigint {
  return BigInt.asIntN(64, BigInt(`0x${createHash('sha256').update(name).digest('hex').slice(0, 16)}`));
}

/**
 * The transaction-level advisory lock under which tables are created, one for the whole database: the locks table
 * is shared by every workspace. No workspace's key is the same (theirs are of the table names).
 */
const SETUP_LOCK_KEY = advisoryKey('scrapeform: creating tables');

/**
 * The table of a workspace, named exactly (quoted in SQL), so `team-a` and `team_a`, `Prod` and `prod` are
 * different workspaces. A name of lowercase letters, digits and _ gives the same table as it always did.
 */
export function tableOf(workspace: string): string {
  return `${TABLE_PREFIX}${workspace}`;
}

/** The table earlier versions used: lowercased, - as _ (several workspaces could share it). */
function legacyTableOf(workspace: string): string {
  return `${TABLE_PREFIX}${workspace.toLowerCase().replace(/-/g, '_')}`;
}

const OWNER_MARK = 'scrapeform workspace ';

/** The comment of a table this version made: the workspace it belongs to, exactly. */
function ownerMark(workspace: string): string {
  return `${OWNER_MARK}${workspace}`.replace(/'/g, "''");
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

const INSUFFICIENT_PRIVILEGE = '42501';

/**
 * Keep-alive on both ends of the connection. The client's first probe after this long idle (Node sets no
 * interval or count: the OS's apply). The server's probes, every interval after that, count times: PostgreSQL
 * ends the session of a runner lost without a FIN (and releases its lock) within idle + interval × count, about
 * a minute, instead of the OS default of about two hours. docs/ci.md states the bound.
 */
const KEEPALIVE_IDLE_S = 30;
const KEEPALIVE_INTERVAL_S = 10;
const KEEPALIVE_COUNT = 3;
/** Unacknowledged data (the answer to a runner that vanished) gives up as soon (else 15 minutes of retries). */
const USER_TIMEOUT_MS = (KEEPALIVE_IDLE_S + KEEPALIVE_INTERVAL_S * KEEPALIVE_COUNT) * 1000;

/**
 * Sets the server's keep-alive for this session. A server that refuses (a setting its OS lacks, or a pooler in
 * between that rejects SET) keeps its own: the run goes on, with the longer bound.
 */
async function setServerKeepalives(client: pg.Client): Promise<void> {
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
function isTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === '57014' || code === '55P03';
}

/**
 * Whether an error means the connection itself is gone (so the client is dropped and the next call reconnects):
 * anything the server did not send with an SQLSTATE (a reset, a refused or timed-out connection, "Connection
 * terminated"), or one of the connection-exception and shutdown classes the server sends as it ends a session.
 */
function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03';
}

/** The lock is held, by another run or by this one (named, as the file backend names it). */
function lockedError(location: string, held: LockInfo | undefined): ScrapeformError {
  const who = held !== undefined ? describeLock(held) : 'another run';
  const unlock = held?.id !== undefined ? `scrapeform force-unlock ${held.id}` : 'scrapeform force-unlock';
  return new ScrapeformError('state.locked', `the state ${location} is locked by ${who}`, {
    hint: `wait for that run to finish; a runner that died releases the lock with its connection (else ${unlock})`,
    details: { lock: held },
  });
}
