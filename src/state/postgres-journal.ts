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
