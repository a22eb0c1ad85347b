import { createHash } from 'node:crypto';
import type pg from 'pg';
import { ScrapeformError } from '../errors.js';
import { isConnectionError } from './postgres-session.js';

/**
 * The tables of the PostgreSQL state: one per workspace, named exactly, and one of who holds each workspace's lock;
 * made on first use, whichever is missing.
 */

const TABLE_PREFIX = 'scrapeform_state_';

/** Who holds each workspace's lock, as they recorded it (shown to whoever finds the lock held). */
export const LOCKS_TABLE = 'scrapeform_locks';

/** The calls each workspace's runs were about to send and have not yet recorded in its state (postgres-journal.ts). */
export const SENT_TABLE = 'scrapeform_sent';

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

export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** A bigint advisory-lock key for a name: the first 64 bits of its SHA-256. */
export function advisoryKey(name: string): bigint {
  return BigInt.asIntN(64, BigInt(`0x${createHash('sha256').update(name).digest('hex').slice(0, 16)}`));
}

/**
 * The advisory key of a workspace's lock: of its table's schema and name, so the same workspace in two schemas of
 * one database (chosen by the role or `options=-c search_path=…`) has a lock of its own in each.
 */
export function lockKeyOf(schema: string, table: string): bigint {
  return advisoryKey(`${quoteIdentifier(schema)}.${quoteIdentifier(table)}`);
}

/**
 * The key earlier versions took, exclusively, for a workspace: of its table's name alone, one for every schema. This
 * version takes it too, shared, so a run of an earlier version still running during an upgrade and a run of this
 * one never both hold a workspace's lock, while runs of this version in two schemas (both shared) do not exclude
 * each other.
 */
export function earlierLockKeyOf(table: string): bigint {
  return advisoryKey(table);
}

/**
 * The transaction-level advisory lock under which tables are created, one for the whole database: the locks table
 * is shared by every workspace. No workspace's key is the same (theirs are of the table names, lockKeyOf and
 * earlierLockKeyOf).
 */
const SETUP_LOCK_KEY = advisoryKey('scrapeform: creating tables');

/**
 * Makes the workspace's table, the locks table and the journal of calls being sent if any is missing, and says the
 * schema they are in (the session's current schema) and whether the journal can be used. Only what is missing is
 * created: a role that may only read and write the tables (made by an admin) has no CREATE on the schema, and even
 * CREATE TABLE IF NOT EXISTS needs it. The journal is the one table a run can do without: with no CREATE to make it,
 * or no SELECT, INSERT and DELETE on it (a role granted what earlier versions listed), a run writes no marks, and a
 * kill between a create and the next state write is covered by recovery by name alone, as before it existed.
 */
export async function ensureTables(
  client: pg.Client,
  workspace: string,
): Promise<{ schema: string; journal: boolean }> {
  const table = tableOf(workspace);
  const names = [table, legacyTableOf(workspace), LOCKS_TABLE, SENT_TABLE];
  // The schema comes with the tables, not from a query of its own on every open.
  let found = await tablesNamed(client, names);
  const needed = !found.tables.has(table) || !found.tables.has(LOCKS_TABLE);
  if (needed || (!found.tables.has(SENT_TABLE) && found.mayCreate)) {
    try {
      found = await createTables(client, workspace, names);
    } catch (error) {
      // The journal alone could not be made (a read-only database or standby, a privilege taken back): without it.
      if (needed || isConnectionError(error)) throw error;
    }
  }
  // Not null: with no schema to create in, the CREATE TABLE above failed (3F000), and PostgreSQL said so.
  if (found.schema === null) throw new Error('the state tables are in no schema');
  return { schema: found.schema, journal: found.usable.has(SENT_TABLE) };
}

/**
 * Creates this workspace's table, the locks table and the journal, whichever is missing, in one transaction under a
 * fixed advisory lock: two jobs using a new workspace at once otherwise both ran CREATE TABLE IF NOT EXISTS, and
 * PostgreSQL failed the second with a unique violation in its catalog (pg_type_typname_nsp_index). The second
 * waits here, then finds the tables made. Returns the tables as they are once it committed.
 */
async function createTables(client: pg.Client, workspace: string, names: string[]): Promise<Tables> {
  const table = tableOf(workspace);
  const sqlTable = quoteIdentifier(table);
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [SETUP_LOCK_KEY.toString()]);
    const found = await tablesNamed(client, names);
    if (!found.tables.has(table)) {
      refuseSharedTable(workspace, found.tables);
      await client.query(
        `CREATE TABLE ${sqlTable} (id int PRIMARY KEY CHECK (id = 1), serial int NOT NULL, lineage text NOT NULL, state jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`,
      );
      // Says whose table it is: a table without it was made by an earlier version (refuseSharedTable).
      await client.query(`COMMENT ON TABLE ${sqlTable} IS '${ownerMark(workspace)}'`);
    }
    if (!found.tables.has(LOCKS_TABLE))
      await client.query(`CREATE TABLE ${LOCKS_TABLE} (workspace text PRIMARY KEY, info jsonb NOT NULL)`);
    if (!found.tables.has(SENT_TABLE))
      await client.query(
        `CREATE TABLE ${SENT_TABLE} (workspace text NOT NULL, address text NOT NULL, kind text NOT NULL, sent text NOT NULL, lineage text NOT NULL, PRIMARY KEY (workspace, address, kind, sent))`,
      );
    await client.query('COMMIT');
    // What this role made it may use; the rest as it was found.
    for (const name of [table, LOCKS_TABLE, SENT_TABLE]) {
      if (!found.tables.has(name)) found.usable.add(name);
      found.tables.set(name, found.tables.get(name) ?? null);
    }
    return found;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * The tables of these names in the current schema, with their comment (who owns them) and whether this role may
 * read, add and delete rows of each; the schema itself (null when no schema of the search path exists), and whether
 * this role may create tables in it.
 */
interface Tables {
  schema: string | null;
  mayCreate: boolean;
  tables: Map<string, string | null>;
  usable: Set<string>;
}

/** One query: the current schema and the tables of these exact names in it (Tables). */
async function tablesNamed(client: pg.Client, names: string[]): Promise<Tables> {
  const { rows } = await client.query<{
    schema: string | null;
    may_create: boolean | null;
    name: string | null;
    comment: string | null;
    usable: boolean | null;
  }>(
    `SELECT current_schema() AS schema, has_schema_privilege(current_schema(), 'CREATE') AS may_create, t.name,
       t.comment, t.usable FROM (SELECT 1) AS one LEFT JOIN (
       SELECT c.relname AS name, obj_description(c.oid, 'pg_class') AS comment, has_table_privilege(c.oid, 'SELECT')
         AND has_table_privilege(c.oid, 'INSERT') AND has_table_privilege(c.oid, 'DELETE') AS usable
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND c.relname = ANY($1)
     ) AS t ON true`,
    [names],
  );
  const tables = new Map<string, string | null>();
  const usable = new Set<string>();
  for (const r of rows) {
    if (r.name === null) continue;
    tables.set(r.name, r.comment);
    if (r.usable === true) usable.add(r.name);
  }
  return { schema: rows[0]?.schema ?? null, mayCreate: rows[0]?.may_create === true, tables, usable };
}

/**
 * Before workspaces were told apart exactly, `team-a`, `team_a` and `Team_A` all used the table
 * `scrapeform_state_team_a`. A workspace without a table of its own, while such a shared table made by an
 * earlier version exists, cannot tell whether the shared state is its own: it refuses, naming both ways out,
 * rather than start empty (which would plan every object as new) or take another workspace's state. A table
 * this version made says whose it is, so it is never in doubt.
 */
function refuseSharedTable(workspace: string, existing: Map<string, string | null>): void {
  const table = tableOf(workspace);
  const sqlTable = quoteIdentifier(table);
  const shared = legacyTableOf(workspace);
  if (shared === table || !existing.has(shared)) return;
  const owner = existing.get(shared);
  if (owner?.startsWith(OWNER_MARK) === true) return;
  throw new ScrapeformError(
    'state.workspace',
    `workspace "${workspace}" has no table of its own yet, but ${shared} exists: earlier versions of scrapeform kept every workspace whose name differs from "${workspace}" only in case, - or _ in that one table, so it may hold this workspace's state or another's`,
    {
      hint: `if it is this workspace's state, rename it: ALTER TABLE ${shared} RENAME TO ${sqlTable}; if it belongs to workspace ${shared.slice(TABLE_PREFIX.length)}, give this one an empty table: CREATE TABLE ${sqlTable} (LIKE ${shared} INCLUDING ALL)`,
      details: { workspace, table, sharedTable: shared },
    },
  );
}
