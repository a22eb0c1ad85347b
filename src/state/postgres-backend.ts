import type pg from 'pg';
import { ScrapeformError } from '../errors.js';
import { newLockInfo } from './backend.js';
import type { ForceUnlockOptions, LockInfo, StateBackend, StateLock } from './backend.js';
import { redactUrl } from '../model/state-url.js';
import { checkDatabaseUrl, databaseIdentity, redactText } from './database-url.js';
import { nextState } from './model.js';
import { stateColumnOf } from './jsonb-state.js';
import {
  deleteMarks,
  insertMarks,
  JournalSession,
  JournalUnavailable,
  markKey,
  readStateAndMarks,
} from './postgres-journal.js';
import { mergeSentMarks } from './sent-journal.js';
import type { SentMark } from './sent-journal.js';
import type { State, StateIdentity } from './model.js';
import { checkWorkspaceName } from './workspace-name.js';
import {
  abandonSession,
  CLIENT_MARGIN_MS,
  endSession,
  newStateClient,
  RELEASE_TIMEOUT_MS,
  isConnectionError,
  setServerKeepalives,
} from './postgres-session.js';
import {
  forceUnlockKeys,
  lockLostError,
  unlockWithin,
  lockedError,
  readLockRow,
  tryKeys,
  writeLockRow,
} from './postgres-lock.js';
import type { HeldKeys, LockKeys } from './postgres-lock.js';
import { stateQueryError } from './postgres-query-error.js';
import { earlierLockKeyOf, ensureTables, lockKeyOf, quoteIdentifier, tableOf } from './postgres-tables.js';

/**
 * State in PostgreSQL, for teams whose CI runners start empty. One table per workspace, created on first use;
 * each write is a transaction that checks the serial it read, so a concurrent writer loses instead of overwriting;
 * the lock is a session advisory lock of the workspace's schema and table (with the key earlier versions took,
 * shared), released by PostgreSQL itself when a killed runner's connection drops; its holder is recorded in a row
 * of scrapeform_locks while it is held.
 */
export class PostgresStateBackend implements StateBackend {
  readonly location: string;
  readonly stateIdentity: StateIdentity;
  /** The table's exact name (also the key of its row in scrapeform_locks), and as written in SQL. */
  private readonly table: string;
  private readonly sqlTable: string;
  /** The key earlier versions took exclusively, one for every schema: this version takes it shared (lockNow). */
  private readonly earlierLockKey: bigint;
  /** The lock's own key, of the schema the tables are in: known once connected. */
  private lockKey: bigint | undefined;
  private client: pg.Client | undefined;
  private ready: Promise<void> | undefined;
  /** The clients whose session opened (connect() returned): a lock can only have been taken on one of those. */
  private readonly opened = new WeakSet<pg.Client>();
  /** The session that holds this backend's lock: a write on any other (a reconnection) would be unlocked. */
  private lockSession: pg.Client | undefined;
  private lockInfo: LockInfo | undefined;
  /** The lock a lock() call is taking now: a second call meanwhile is refused, as while it is held. */
  private taking: LockInfo | undefined;
  private lastSerial: number | undefined;
  /** The session of scrapeform_sent when it can be used (ensureTables); the marks in it read or written since. */
  private journal: JournalSession | undefined;
  private journalMarks: SentMark[] = [];
  private driver: typeof pg | undefined;
  /** The write, or append of marks, under way on the state's session (marksShared): one at a time. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Whether marks go on the state's own session: the journal's could not be opened (JournalUnavailable). */
  private marksShared = false;

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
    this.earlierLockKey = earlierLockKeyOf(this.table);
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
    this.driver ??= (await import('pg')).default;
    const client = this.newClient((broken) => this.drop(broken));
    this.client = client;
    try {
      await this.connectClient(client);
      const tables = await ensureTables(client, this.workspace);
      this.lockKey = lockKeyOf(tables.schema, this.table);
      if (tables.journal)
        this.journal ??= new JournalSession(this.table, {
          create: (broken) => this.newClient(broken),
          connect: (journal) => this.connectClient(journal),
          end: (journal) => this.end(journal),
        });
    } catch (error) {
      this.drop(client);
      throw error;
    }
  }

  private newClient(broken: (client: pg.Client) => void): pg.Client {
    if (this.driver === undefined) throw new Error('pg is not loaded');
    return newStateClient(this.driver, this.url, this.timeoutMs, broken);
  }

  /** Connects a client (a failure is state.unreachable) and sets the server's keep-alive. */
  private async connectClient(client: pg.Client): Promise<void> {
    try {
      await client.connect();
      this.opened.add(client);
    } catch (error) {
      throw new ScrapeformError(
        'state.unreachable',
        `cannot connect to the state database ${redactUrl(this.url)}: ${redactText((error as Error).message)}`,
        { hint: 'check --state / SCRAPEFORM_STATE and that the database accepts connections' },
      );
    }
    await setServerKeepalives(client);
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
    void this.end(client);
  }

  /**
   * Ends a client's session: one that opened, with its Terminate (waiting up to endMs for a database that stopped
   * answering); one that never finished opening holds no lock, and is ended at once.
   */
  private async end(client: pg.Client): Promise<void> {
    if (this.opened.has(client)) await endSession(client, this.endMs);
    else abandonSession(client);
  }

  /** How long the end of a session (its unlock, its Terminate) may wait for a database that stopped answering. */
  private get endMs(): number {
    return Math.min(RELEASE_TIMEOUT_MS, this.timeoutMs + CLIENT_MARGIN_MS);
  }

  async read(): Promise<State> {
    return this.answering(() => this.readNow());
  }

  private async readNow(): Promise<State> {
    const client = await this.connect();
    const journal = this.journal !== undefined;
    const read = await readStateAndMarks(client, this.sqlTable, this.table, this.location, journal);
    this.lastSerial = read.state.serial;
    // Marks appended while the read was under way stay known (their rows may be newer than its snapshot).
    const known = new Set(read.marks.map(markKey));
    this.journalMarks = [...read.marks, ...this.journalMarks.filter((mark) => !known.has(markKey(mark)))];
    return mergeSentMarks(read.state, read.marks);
  }

  async write(state: State): Promise<State> {
    return this.answering(() => this.inTurn(() => this.writeNow(state)));
  }

  /**
   * Commits marks to scrapeform_sent under the lock, on the journal's own session; at once without the journal. When
   * that session cannot be opened (a role limited to one connection), on the state's session, between its writes:
   * slower, and as safe.
   */
  async markSent(marks: readonly SentMark[]): Promise<void> {
    const journal = this.journal;
    if (journal === undefined || marks.length === 0) return;
    this.checkLockHeld();
    // As a write is: a connection that broke is dropped, and a lock that went with it said (answering).
    const shared = (): Promise<void> =>
      this.answering(() =>
        this.inTurn(async () => {
          const client = await this.connect();
          this.checkLockHeld();
          await insertMarks(client, this.table, marks);
        }),
      );
    try {
      if (this.marksShared) await shared();
      else
        await journal.append(marks).catch((error: unknown) => {
          if (!(error instanceof JournalUnavailable)) throw error;
          this.marksShared = true;
          return shared();
        });
    } catch (error) {
      throw error instanceof ScrapeformError ? error : stateQueryError(this.url, this.timeoutMs, error);
    }
    this.journalMarks.push(...marks);
  }

  /**
   * Runs `work` once the write or append before it on the state's session has ended: an INSERT of marks made while a
   * write's transaction is open would be part of it, committed only with it.
   */
  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
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
      // Every mark known now is in the state serialised in the same step (each was made in memory before it was
      // appended): the journal's rows of them go in this transaction.
      const carried = [...this.journalMarks];
      await client.query(
        `INSERT INTO ${this.sqlTable} (id, serial, lineage, state, updated_at) VALUES (1, $1, $2, $3, now())
         ON CONFLICT (id) DO UPDATE SET serial = EXCLUDED.serial, lineage = EXCLUDED.lineage, state = EXCLUDED.state, updated_at = now()`,
        [next.serial, next.lineage, stateColumnOf(next)],
      );
      if (carried.length > 0) await deleteMarks(client, this.table, carried);
      await client.query('COMMIT');
      this.lastSerial = next.serial;
      this.journalMarks = this.journalMarks.filter((mark) => !carried.includes(mark));
      return next;
    } catch (error) {
      // A connection that stopped answering cannot roll back either: the server does when the session ends, as it
      // does once answering() drops this client. Not even asked: pg keeps a query it gave up on (query_timeout) as
      // the one in flight, so a ROLLBACK queued behind it waited a whole timeout more, doubling the write's bound.
      // Our own refusals (a serial moved) come from a session that answers: rolled back, or it sat idle in the
      // transaction holding the row lock.
      if (error instanceof ScrapeformError || !isConnectionError(error))
        await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  /**
   * A query that failed, got no answer in time, or a connection that broke, is `state.unreachable`
   * (stateQueryError); our own errors (a lost serial check, a newer format) pass as they are.
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
      throw stateQueryError(this.url, this.timeoutMs, error);
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
      const { held, session } = await tryKeys(client, this.keysOf());
      if (!held.own || !held.earlier || session === undefined) {
        // The holder is read before the keys go back: a hand-back that does not answer drops this connection.
        // A row that cannot be read names no one: the refusal stands.
        const holder = await readLockRow(client, this.table).catch(() => undefined);
        await this.unlock(client, held);
        throw lockedError(this.location, holder);
      }
      info.session = session;
      try {
        await writeLockRow(client, this.table, info);
      } catch (error) {
        // The advisory lock is held and this run will not use it: kept, it would outlive this call in a long-lived
        // process (watch) and every later run would find the state locked by a lock its holder released. A
        // connection already gone is not asked again: ending it releases the lock.
        if (isConnectionError(error)) this.drop(client);
        else await this.unlock(client, BOTH_KEYS);
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
          await this.unlock(client, BOTH_KEYS, info.id);
        },
      };
    } finally {
      this.taking = undefined;
    }
  }

  /** The keys of this state's lock: its own (of the schema, known once connected) and the earlier versions'. */
  private keysOf(): LockKeys {
    if (this.lockKey === undefined) throw new Error('the state database connection was not opened');
    return { own: this.lockKey, earlier: this.earlierLockKey };
  }

  /** Gives the lock back (unlockWithin); a session that cannot is ended, which releases the keys as well. */
  private async unlock(client: pg.Client, held: HeldKeys, lockId?: string): Promise<void> {
    // A session that ended (the database restarted, force-unlock) released the lock with it.
    if (this.client !== client) return;
    if (!(await unlockWithin(client, this.keysOf(), held, this.table, lockId, this.endMs))) this.drop(client);
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
    return lockLostError(this.location, this.lockInfo, this.timeoutMs, cause);
  }

  /** Ends the session that holds the lock (an advisory lock can only be released by its own session). */
  async forceUnlock(options: ForceUnlockOptions = {}): Promise<LockInfo | undefined> {
    return this.answering(() => this.forceUnlockNow(options));
  }

  private async forceUnlockNow(options: ForceUnlockOptions): Promise<LockInfo | undefined> {
    const client = await this.connect();
    return forceUnlockKeys(client, this.keysOf(), this.table, this.location, this.timeoutMs, options);
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.ready = undefined;
    await Promise.all([this.journal?.close(), client !== undefined ? this.end(client) : undefined]);
  }
}

/** How long connecting to the state database, and each query, may take by default (SCRAPEFORM_STATE_TIMEOUT). */
export const DEFAULT_DATABASE_TIMEOUT_MS = 30_000;

/** Both of this state's keys, as a run holds them between lock() and release(). */
const BOTH_KEYS = { own: true, earlier: true };
