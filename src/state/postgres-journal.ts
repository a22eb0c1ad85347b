import type pg from 'pg';
import { stateOfRow } from './jsonb-state.js';
import type { StateRow } from './jsonb-state.js';
import type { State } from './model.js';
import { SENT_TABLE } from './postgres-tables.js';
import { isSentMark } from './sent-journal.js';
import type { SentMark } from './sent-journal.js';

/**
 * The PostgreSQL state's journal of calls about to be sent: rows of scrapeform_sent, keyed by the workspace's table,
 * as sent-journal.ts is for a state file. A call recorded ahead with the whole plan (a create's intent, an update's
 * first PATCH) is marked `sent` in state by the next coalesced write, after it went out: a run killed in that
 * window left an intent that read as never sent, and the next plan, its list lagging behind the create, made it
 * again. So each mark is committed here first (one INSERT for every mark of a turn of the event loop), reading the
 * state merges them in, and a write of the state that carries them deletes them in its own transaction.
 */

/** The columns of a mark, as jsonb_to_recordset reads them from the marks given as one JSON array. */
const MARK_COLUMNS = 'm(address text, kind text, sent text, lineage text)';

/** What tells one mark from another: the columns of the table's primary key but the workspace. */
export function markKey(mark: SentMark): string {
  return JSON.stringify([mark.address, mark.kind, mark.sent]);
}

/** Commits `marks` (autocommit: once this returns, a kill of this process no longer loses them). */
export async function insertMarks(
  client: pg.Client,
  table: string,
  marks: readonly SentMark[],
): Promise<void> {
  await client.query(
    `INSERT INTO ${SENT_TABLE} (workspace, address, kind, sent, lineage)
     SELECT $1, m.address, m.kind, m.sent, m.lineage FROM jsonb_to_recordset($2::jsonb) AS ${MARK_COLUMNS}
     ON CONFLICT DO NOTHING`,
    [table, JSON.stringify(marks)],
  );
}

/** Deletes `marks`, inside the transaction of the state write that carries them. */
export async function deleteMarks(
  client: pg.Client,
  table: string,
  marks: readonly SentMark[],
): Promise<void> {
  await client.query(
    `DELETE FROM ${SENT_TABLE} AS s USING jsonb_to_recordset($2::jsonb) AS ${MARK_COLUMNS}
     WHERE s.workspace = $1 AND s.address = m.address AND s.kind = m.kind AND s.sent = m.sent`,
    [table, JSON.stringify(marks)],
  );
}

/**
 * The workspace's state and, with the journal, the marks it holds for it, in one query (one round trip, as the
 * state alone took). The state is as stored; the caller merges the marks in (mergeSentMarks).
 */
export async function readStateAndMarks(
  client: pg.Client,
  sqlTable: string,
  table: string,
  location: string,
  journal: boolean,
): Promise<{ state: State; marks: SentMark[] }> {
  if (!journal) {
    const { rows } = await client.query<StateRow>(`SELECT state FROM ${sqlTable} WHERE id = 1`);
    return { state: stateOfRow(rows[0], location), marks: [] };
  }
  const { rows } = await client.query<{ state: unknown; marks: unknown }>(
    `SELECT (SELECT state FROM ${sqlTable} WHERE id = 1) AS state,
       (SELECT coalesce(json_agg(json_build_object('address', address, 'kind', kind, 'sent', sent, 'lineage', lineage)), '[]')
        FROM ${SENT_TABLE} WHERE workspace = $1) AS marks`,
    [table],
  );
  const row = rows[0];
  // The state column is NOT NULL: null is no row (nothing written yet).
  const state = stateOfRow(
    row === undefined || row.state === null ? undefined : { state: row.state },
    location,
  );
  return { state, marks: Array.isArray(row?.marks) ? row.marks.filter(isSentMark) : [] };
}

/** How the journal's session is made, opened and ended: by the backend, with its settings and its errors. */
export interface JournalConnection {
  /** A client with the backend's settings, not connected; `broken` is called if its connection breaks. */
  create(broken: (client: pg.Client) => void): pg.Client;
  /** Connects it (a failure is the backend's state.unreachable). */
  connect(client: pg.Client): Promise<void>;
  /** Ends it: at once while it is still connecting (Ctrl-C during a connect that gets no answer). */
  end(client: pg.Client): Promise<void>;
}

/**
 * The journal's own session, so a mark is never held behind a state write: on the state's session an INSERT made
 * while a write's transaction is open would be part of it (committed only with it), and waiting for each write (five
 * round trips) made 300 creates take six times as long against a database 10 ms away. Marks given while an INSERT is
 * under way go together in the next one (a group commit), so a batch of creates costs one round trip, not one each.
 */
export class JournalSession {
  private client: { client: pg.Client; ready: Promise<void> } | undefined;
  private waiting: { marks: readonly SentMark[]; done: (error?: unknown) => void }[] = [];
  private inserting = false;
  /** Once closed, no session is opened again: marks given after it (or still waiting) fail. */
  private closed = false;

  constructor(
    private readonly table: string,
    private readonly connection: JournalConnection,
  ) {}

  /**
   * Resolves once `marks` are committed; rejects with what PostgreSQL or the connection said, or with
   * JournalUnavailable when the session could not be opened.
   */
  append(marks: readonly SentMark[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ marks, done: (error) => (error === undefined ? resolve() : reject(error)) });
      if (!this.inserting) void this.insertWaiting();
    });
  }

  private async insertWaiting(): Promise<void> {
    this.inserting = true;
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0);
      let failure: unknown;
      try {
        if (this.closed) throw new Error('the journal session was closed');
        const session = this.session();
        await session.ready.catch((error: unknown) => {
          throw new JournalUnavailable(error);
        });
        await insertMarks(
          session.client,
          this.table,
          batch.flatMap((b) => b.marks),
        ).catch((error: unknown) => {
          // Opened again for the next marks: a pg.Client never reconnects.
          this.drop(session.client);
          throw error;
        });
      } catch (error) {
        failure = error;
      }
      for (const b of batch) b.done(failure);
    }
    this.inserting = false;
  }

  private session(): { client: pg.Client; ready: Promise<void> } {
    if (this.client === undefined) {
      const client = this.connection.create((broken) => this.drop(broken));
      const ready = this.connection.connect(client);
      ready.catch(() => this.drop(client));
      this.client = { client, ready };
    }
    return this.client;
  }

  /** Forgets `client` if it is the session's, and ends it. */
  private drop(client: pg.Client): void {
    if (this.client?.client === client) this.client = undefined;
    void this.connection.end(client).catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    const session = this.client;
    this.client = undefined;
    if (session !== undefined) await this.connection.end(session.client);
  }
}

/**
 * The journal's session could not be opened (a connection limit, a pooler refusing a second session): the backend
 * then records marks on the state's own session, as it records everything else.
 */
export class JournalUnavailable extends Error {
  constructor(readonly reason: unknown) {
    super(`the journal's session could not be opened: ${(reason as Error).message}`);
  }
}
