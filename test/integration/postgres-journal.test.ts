import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScrapeformError } from '../../src/errors.js';
import { PostgresStateBackend } from '../../src/state/postgres-backend.js';
import type { State } from '../../src/state/model.js';
import type { SentMark } from '../../src/state/sent-journal.js';
import { emulatorEnv } from '../helpers/child-cli.js';
import { expectKilledCreateRecovered, NIGHTLY_PROJECT } from '../helpers/kill-at-post.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { dropRoleAndEnd, newDatabase, skipWithoutPostgres } from '../helpers/postgres.js';
import { TestWorkspace } from '../helpers/workspace.js';

/**
 * The PostgreSQL state's journal of calls about to be sent (postgres-journal.ts, scrapeform_sent): a create recorded
 * ahead was marked `sent` only by the coalesced write after its POST, so a run killed in between left it reading as
 * never sent, and the next apply, its list lagging behind the create, made a second one. Needs a server as
 * postgres-state.test.ts does.
 */
const SKIP = skipWithoutPostgres('the PostgreSQL journal tests');

const definition = {
  name: 'nightly',
  projectType: 'urls',
  projectInput: { type: 'list', list: ['https://books.example/'] },
  scrapingInterval: 'daily',
};
const SENT = '2026-11-29T10:00:00.000Z';

/** A state holding an intent to create project.nightly, not marked sent. */
function withIntent(state: State): State {
  state.intents = { 'project.nightly': { kind: 'Project', name: 'nightly', definition } };
  return state;
}

const markOf = (lineage: string): SentMark => ({
  address: 'project.nightly',
  kind: 'create',
  sent: SENT,
  lineage,
});

async function journalRows(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query('SELECT 1 FROM scrapeform_sent')).rowCount ?? -1;
  } finally {
    await client.end();
  }
}

const harnesses: EmulatorHarness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) {
    await h.emulator.projects.idle();
    await h.emulator.close();
  }
});

describe.skipIf(SKIP)('PostgreSQL journal of calls being sent', () => {
  it('a mark committed before the run died is read back by the next; the write that carries it deletes it', async () => {
    const url = await newDatabase('journal');
    const dead = new PostgresStateBackend(url, 'prod');
    const next = new PostgresStateBackend(url, 'prod');
    try {
      await dead.lock('apply');
      const written = await dead.write(withIntent(await dead.read()));
      await dead.markSent([markOf(written.lineage)]);
      // The run dies: its session ends with no state write after the mark.
      await dead.close();
      expect(await journalRows(url)).toBe(1);
      const read = await next.read();
      expect(read.serial).toBe(written.serial);
      expect(read.intents?.['project.nightly']?.sent).toBe(SENT);
      const lock = await next.lock('apply');
      await next.write(read);
      expect(await journalRows(url)).toBe(0);
      expect((await next.read()).intents?.['project.nightly']?.sent).toBe(SENT);
      await lock.release();
    } finally {
      await Promise.all([dead.close(), next.close()]);
    }
  });

  it('a mark of another lineage is not merged, and goes with the next write', async () => {
    const url = await newDatabase('journal');
    const backend = new PostgresStateBackend(url, 'prod');
    try {
      const lock = await backend.lock('apply');
      await backend.write(withIntent(await backend.read()));
      await backend.markSent([markOf('another-lineage')]);
      const read = await backend.read();
      expect(read.intents?.['project.nightly']?.sent).toBeUndefined();
      await backend.write(read);
      expect(await journalRows(url)).toBe(0);
      await lock.release();
    } finally {
      await backend.close();
    }
  });

  it('a mark sent while a write is under way is committed on its own: the write failing does not take it', async () => {
    const url = await newDatabase('journal');
    const backend = new PostgresStateBackend(url, 'prod');
    const other = new PostgresStateBackend(url, 'prod');
    try {
      const state = withIntent(await backend.read());
      await other.write(await other.read());
      // The write's transaction finds the serial moved and rolls back; the mark, sent while it was open, stays.
      const write = backend.write(state).catch((error: ScrapeformError) => error.code);
      const mark = backend.markSent([markOf(state.lineage)]);
      expect(await write).toBe('state.serial-moved');
      await mark;
      expect(await journalRows(url)).toBe(1);
    } finally {
      await Promise.all([backend.close(), other.close()]);
    }
  });

  it('a database of an earlier version: a role that cannot create runs without the journal; its owner makes it; granted, it is used', async () => {
    const url = await newDatabase('journal');
    const role = `scrapeform_journal_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const setUp = new PostgresStateBackend(url, 'prod');
    const asRole = new URL(url);
    asRole.username = role;
    const backend = new PostgresStateBackend(asRole.toString(), 'prod');
    const journalExists = async (): Promise<boolean> =>
      (await admin.query<{ t: string | null }>("SELECT to_regclass('scrapeform_sent') AS t")).rows[0]?.t !==
      null;
    try {
      await setUp.read();
      await setUp.close();
      // As an earlier version left it, used by a role granted what earlier versions listed (no CREATE).
      await admin.query('DROP TABLE scrapeform_sent');
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      await admin.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC');
      await admin.query(`GRANT SELECT, INSERT, UPDATE ON scrapeform_state_prod, scrapeform_locks TO ${role}`);
      let lock = await backend.lock('apply');
      const written = await backend.write(withIntent(await backend.read()));
      await backend.markSent([markOf(written.lineage)]);
      expect(await journalExists()).toBe(false);
      await lock.release();
      await backend.close();
      // The owner's next run makes it; the role, granted nothing on it, still runs without it.
      await setUp.read();
      await setUp.close();
      expect(await journalExists()).toBe(true);
      lock = await backend.lock('apply');
      await backend.markSent([markOf(written.lineage)]);
      expect(await journalRows(url)).toBe(0);
      await lock.release();
      await backend.close();
      // Granted what docs/ci.md lists now, the next run keeps its marks.
      await admin.query(`GRANT SELECT, INSERT, DELETE ON scrapeform_sent TO ${role}`);
      await backend.lock('apply');
      await backend.markSent([markOf(written.lineage)]);
      expect(await journalRows(url)).toBe(1);
      expect((await backend.read()).intents?.['project.nightly']?.sent).toBe(SENT);
    } finally {
      await Promise.all([setUp.close(), backend.close()]);
      await dropRoleAndEnd(admin, role);
    }
  });

  it('a read-only database of an earlier version (a standby) is read as before, without making the journal', async () => {
    const url = await newDatabase('journal');
    const setUp = new PostgresStateBackend(url, 'prod');
    const replica = new PostgresStateBackend(url, 'prod');
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await setUp.write(withIntent(await setUp.read()));
      await setUp.close();
      await admin.query('DROP TABLE scrapeform_sent');
      await admin.query(
        `ALTER DATABASE ${new URL(url).pathname.slice(1)} SET default_transaction_read_only = on`,
      );
      const read = await replica.read();
      expect(read.intents?.['project.nightly']?.sent).toBeUndefined();
      expect(read.serial).toBe(1);
    } finally {
      await Promise.all([setUp.close(), replica.close()]);
      await admin.end();
    }
  });

  it("a role allowed one connection: the marks go on the state's own session, and are kept as well", async () => {
    const url = await newDatabase('journal');
    const role = `scrapeform_single_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const asRole = new URL(url);
    asRole.username = role;
    const backend = new PostgresStateBackend(asRole.toString(), 'prod');
    try {
      await admin.query(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 1`);
      await admin.query(`GRANT CREATE ON SCHEMA public TO ${role}`);
      const lock = await backend.lock('apply');
      const state = withIntent(await backend.read());
      const written = await backend.write(state);
      await backend.markSent([markOf(written.lineage)]);
      await backend.markSent([{ ...markOf(written.lineage), sent: '2026-11-29T10:00:01.000Z' }]);
      expect(await journalRows(url)).toBe(2);
      await backend.write(state);
      expect(await journalRows(url)).toBe(0);
      await lock.release();
    } finally {
      await backend.close();
      await dropRoleAndEnd(admin, role);
    }
  });

  it('a mark appended while a write is under way, after its state was serialised, outlives that write', async () => {
    const url = await newDatabase('journal');
    const backend = new PostgresStateBackend(url, 'prod');
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const lock = await backend.lock('apply');
      const state = withIntent(await backend.read());
      const written = await backend.write(state);
      // A trigger holds the next write's UPDATE of the state row, long after its state was serialised.
      await admin.query(
        'CREATE FUNCTION slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.3); RETURN NEW; END $$',
      );
      await admin.query(
        'CREATE TRIGGER slow BEFORE UPDATE ON scrapeform_state_prod FOR EACH ROW EXECUTE FUNCTION slow()',
      );
      const writing = backend.write(state);
      await new Promise((resolve) => setTimeout(resolve, 100));
      // The caller's commit and its mark, as the state store makes them, while that write waits.
      const intent = state.intents?.['project.nightly'];
      if (intent !== undefined) intent.sent = SENT;
      await backend.markSent([markOf(written.lineage)]);
      await writing;
      expect(await journalRows(url)).toBe(1);
      const stored = (await admin.query<{ state: State }>('SELECT state FROM scrapeform_state_prod')).rows[0];
      expect(stored?.state.intents?.['project.nightly']?.sent).toBeUndefined();
      await lock.release();
    } finally {
      await backend.close();
      await admin.end();
    }
  });

  it('apply killed the moment its create reaches the service: the next asks for --recreate, then recovers it', async () => {
    const url = await newDatabase('journal');
    const h = await startTestEmulator({ quirks: ['lagging-list'], quirkSettings: { listLagMs: 600_000 } });
    harnesses.push(h);
    const ws = await TestWorkspace.create(h);
    await ws.write({ 'nightly.yaml': NIGHTLY_PROJECT });
    const env = { ...emulatorEnv(h.emulator.url, EMULATOR_KEY), SCRAPEFORM_STATE: url };
    const args = ['apply', 'manifests', '--auto-approve'];
    await expectKilledCreateRecovered(
      h,
      { cwd: ws.dir, env, apply: args, plan: ['plan', 'manifests'] },
      {
        afterKill: async () => expect(await journalRows(url)).toBe(1),
        afterRecovery: async () => expect(await journalRows(url)).toBe(0),
      },
    );
  });
});
