import { spawn } from 'node:child_process';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorRequest } from '../../src/emulator/http.js';
import type { ScrapeformError } from '../../src/errors.js';
import { PostgresStateBackend } from '../../src/state/postgres-backend.js';
import type { State } from '../../src/state/model.js';
import type { SentMark } from '../../src/state/sent-journal.js';
import { BUILT_CLI, emulatorEnv, runBuiltCli } from '../helpers/child-cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { newDatabase, skipWithoutPostgres } from '../helpers/postgres.js';
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

  it('a database of an earlier version gets the journal; a role granted only the earlier privileges runs without it', async () => {
    const url = await newDatabase('journal');
    const role = `scrapeform_journal_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const setUp = new PostgresStateBackend(url, 'prod');
    const asRole = new URL(url);
    asRole.username = role;
    const backend = new PostgresStateBackend(asRole.toString(), 'prod');
    try {
      await setUp.read();
      await setUp.close();
      // As an earlier version left it: no journal. An owner's next run makes it.
      await admin.query('DROP TABLE scrapeform_sent');
      await setUp.read();
      await setUp.close();
      expect(await journalRows(url)).toBe(0);
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      await admin.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC');
      await admin.query(`GRANT SELECT, INSERT, UPDATE ON scrapeform_state_prod, scrapeform_locks TO ${role}`);
      const lock = await backend.lock('apply');
      const written = await backend.write(withIntent(await backend.read()));
      // No privileges on the journal: the mark is not kept, and nothing fails.
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
      await admin.query(`DROP OWNED BY ${role}`);
      await admin.query(`DROP ROLE ${role}`);
      await admin.end();
    }
  });

  it('apply killed the moment its create reaches the service: the next asks for --recreate, then recovers it', async () => {
    const url = await newDatabase('journal');
    const h = await startTestEmulator({ quirks: ['lagging-list'], quirkSettings: { listLagMs: 600_000 } });
    harnesses.push(h);
    const ws = await TestWorkspace.create(h);
    await ws.write({
      'nightly.yaml': `kind: Project\nname: nightly\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/catalogue/page-1.html] }\nscrapingInterval: daily\nscheduledAt: "2099-01-01T00:00:00Z"\nlifecycle: { ignore_changes: [scheduledAt] }\n`,
    });
    const env = { ...emulatorEnv(h.emulator.url, EMULATOR_KEY), SCRAPEFORM_STATE: url };
    const args = ['apply', 'manifests', '--auto-approve'];
    const child = spawn(process.execPath, [BUILT_CLI, ...args], { cwd: ws.dir, env, stdio: 'ignore' });
    const exited = new Promise((resolve) => child.on('close', resolve));
    const projects = h.emulator.projects;
    const handle = projects.handle.bind(projects);
    let killed = false;
    projects.handle = (req: EmulatorRequest) => {
      if (req.method === 'POST' && req.path.startsWith('/api/projects')) killed ||= child.kill('SIGKILL');
      return handle(req);
    };
    await exited;
    projects.handle = handle;
    expect(killed).toBe(true);
    expect(projects.projects.size).toBe(1);
    expect(await journalRows(url)).toBe(1);
    const again = await runBuiltCli(args, { cwd: ws.dir, env });
    expect(again.code, again.stdout + again.stderr).toBe(3);
    expect(again.stderr).toContain('--recreate project.nightly');
    expect(projects.projects.size).toBe(1);
    h.emulator.clock.advance(600_000);
    const recovered = await runBuiltCli(args, { cwd: ws.dir, env });
    expect(recovered.code, recovered.stdout + recovered.stderr).toBe(0);
    expect(projects.projects.size).toBe(1);
    expect(await journalRows(url)).toBe(0);
    const plan = await runBuiltCli(['plan', 'manifests'], { cwd: ws.dir, env });
    expect(plan.stdout).toContain('No changes.');
  });
});
