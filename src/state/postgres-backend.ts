import { createHash } from 'node:crypto';
import type pg from 'pg';
import { ScrapeformError } from '../errors.js';
import { newLockInfo } from './backend.js';
import type { LockInfo, StateBackend, StateLock } from './backend.js';
import { checkStateFormat, emptyState, nextState } from './model.js';
import type { State } from './model.js';
import { checkWorkspaceName } from './workspace-name.js';

/**
 * State in PostgreSQL, for teams whose CI runners start empty. One table per workspace, created on first use;
 * each write is a transaction that checks the serial it read, so a concurrent writer loses instead of overwriting;
 * the lock is a session advisory lock, released by PostgreSQL itself when a killed runner's connection drops.
 */
export class PostgresStateBackend implements StateBackend {
  readonly location: string;
  /** The table's exact name (also the key of its row in scrapeform_locks), and as written in SQL. */
  private readonly table: string;
  private readonly sqlTable: string;
  private readonly lockKey: bigint;
  private client: pg.Client | undefined;
  private ready: Promise<void> | undefined;
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
    this.lockKey = BigInt.asIntN(
      64,
      BigInt(`0x${createHash('sha256').update(this.table).digest('hex').slice(0, 16)}`),
    );
    this.location = `${redactUrl(url)} (workspace ${workspace})`;
  }

  private async connect(): Promise<pg.Client> {
    if (this.ready === undefined) {
      this.ready = (async () => {
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
        });
        // A connection that breaks while idle (the database restarted) is reported by the next query, not thrown.
        client.on('error', () => undefined);
        this.client = client;
        try {
          await client.connect();
        } catch (error) {
          throw new ScrapeformError(
            'state.unreachable',
            `cannot connect to the state database ${redactUrl(this.url)}: ${(error as Error).message}`,
            {
              hint: 'check --state / SCRAPEFORM_STATE and that the database accepts connections',
            },
          );
        }
        const existing = await this.tablesNamed(client, [this.table, legacyTableOf(this.workspace)]);
        if (!existing.has(this.table)) {
          this.refuseSharedTable(existing);
          await client.query(
            `CREATE TABLE IF NOT EXISTS ${this.sqlTable} (id int PRIMARY KEY CHECK (id = 1), serial int NOT NULL, lineage text NOT NULL, state jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`,
          );
          // Says whose table it is: a table without it was made by an earlier version (refuseSharedTable).
          await client.query(`COMMENT ON TABLE ${this.sqlTable} IS '${ownerMark(this.workspace)}'`);
        }
        await client.query(
          'CREATE TABLE IF NOT EXISTS scrapeform_locks (workspace text PRIMARY KEY, info jsonb NOT NULL)',
        );
      })();
    }
    await this.ready;
    if (this.client === undefined) throw new Error('the state database connection was closed');
    return this.client;
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
    const client = await this.connect();
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
      throw new ScrapeformError(
        'state.unreachable',
        `the state database ${redactUrl(this.url)} did not answer: ${redactUrl((error as Error).message)}`,
        {
          hint: `check that it runs and accepts queries; each query may take ${Math.round(this.timeoutMs / 1000)} s (SCRAPEFORM_STATE_TIMEOUT)`,
          cause: error,
        },
      );
    }
  }

  async lock(operation: string): Promise<StateLock> {
    return this.answering(() => this.lockNow(operation));
  }

  private async lockNow(operation: string): Promise<StateLock> {
    const client = await this.connect();
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
      this.lockKey.toString(),
    ]);
    if (rows[0]?.locked !== true) {
      const held = await client.query<{ info: LockInfo }>(
        'SELECT info FROM scrapeform_locks WHERE workspace = $1',
        [this.table],
      );
      const info = held.rows[0]?.info;
      const who =
        info !== undefined
          ? `${info.holder} (pid ${info.pid}, ${info.operation}, since ${info.started})`
          : 'another run';
      throw new ScrapeformError('state.locked', `the state ${this.location} is locked by ${who}`, {
        hint: 'wait for that run to finish; a runner that died releases the lock with its connection',
        details: { lock: info },
      });
    }
    const info = newLockInfo(operation);
    await client.query(
      'INSERT INTO scrapeform_locks (workspace, info) VALUES ($1, $2) ON CONFLICT (workspace) DO UPDATE SET info = EXCLUDED.info',
      [this.table, JSON.stringify(info)],
    );
    return {
      info,
      release: () =>
        this.answering(async () => {
          await client.query('SELECT pg_advisory_unlock($1)', [this.lockKey.toString()]);
        }),
    };
  }

  /** Ends the session that holds the lock (an advisory lock can only be released by its own session). */
  async forceUnlock(): Promise<LockInfo | undefined> {
    return this.answering(() => this.forceUnlockNow());
  }

  private async forceUnlockNow(): Promise<LockInfo | undefined> {
    const client = await this.connect();
    const held = await client.query<{ info: LockInfo }>(
      'SELECT info FROM scrapeform_locks WHERE workspace = $1',
      [this.table],
    );
    const key = this.lockKey;
    // A bigint advisory key shows in pg_locks as two unsigned halves: classid (high) and objid (low).
    const unsigned = BigInt.asUintN(64, key);
    const high = (unsigned >> 32n).toString();
    const low = (unsigned & 0xffffffffn).toString();
    const { rows } = await client.query<{ pid: number }>(
      "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid::bigint = $1 AND objid::bigint = $2 AND pid <> pg_backend_pid()",
      [high, low],
    );
    for (const row of rows) await client.query('SELECT pg_terminate_backend($1)', [row.pid]);
    return rows.length > 0 ? held.rows[0]?.info : undefined;
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

/** Hides the password of a connection URL wherever it is shown. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ':***@');
  }
}
