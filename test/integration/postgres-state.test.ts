import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { connect as connectTcp, createServer } from 'node:net';
import type { Socket } from 'node:net';
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/server.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { BUILT_CLI, emulatorEnv, runBuiltCli } from '../helpers/child-cli.js';
import type { ChildRun } from '../helpers/child-cli.js';
import { until } from '../helpers/until.js';
import { PostgresStateBackend } from '../../src/state/postgres-backend.js';
import { emptyState } from '../../src/state/model.js';
import type { StateLock } from '../../src/state/backend.js';
import type { ScrapeformError } from '../../src/errors.js';

/**
 * Runs against a real PostgreSQL server: SCRAPEFORM_TEST_POSTGRES is an admin URL (.ci/postgres.sh starts one).
 * Without it these tests skip with a printed reason, except in CI, where SCRAPEFORM_REQUIRE_POSTGRES=1 makes the
 * missing server a failure.
 */
const ADMIN_URL = process.env.SCRAPEFORM_TEST_POSTGRES;
const REQUIRED = process.env.SCRAPEFORM_REQUIRE_POSTGRES === '1';
if (ADMIN_URL === undefined && !REQUIRED) {
  console.warn(
    'skipping the PostgreSQL state tests: SCRAPEFORM_TEST_POSTGRES is not set (source .ci/postgres.sh to run them)',
  );
}

const ROOT = path.resolve(import.meta.dirname, '../..');
const KEY = 'pg-test-key';
let databaseUrl = '';
let emulator: RunningEmulator;

describe.skipIf(ADMIN_URL === undefined && !REQUIRED)('PostgreSQL state backend', () => {
  beforeAll(async () => {
    if (ADMIN_URL === undefined)
      throw new Error(
        'SCRAPEFORM_REQUIRE_POSTGRES=1 but SCRAPEFORM_TEST_POSTGRES is not set: CI must start PostgreSQL (.ci/postgres.sh)',
      );
    const name = `scrapeform_test_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(ADMIN_URL);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    emulator = await startEmulator({ apiKeys: [KEY], generationDelayMs: 30 });
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it('creates its table on first use, reads an empty state, writes and reads back', async () => {
    const backend = new PostgresStateBackend(databaseUrl, 'roundtrip');
    try {
      const state = await backend.read();
      expect(state).toEqual(emptyState(''));
      state.resources['project.x'] = { kind: 'Project', id: 7, name: 'x', definition: { name: 'x' } };
      const written = await backend.write(state);
      expect(written.serial).toBe(1);
      expect(written.lineage).toMatch(/^[0-9a-f-]{36}$/);
      const again = new PostgresStateBackend(databaseUrl, 'roundtrip');
      expect(await again.read()).toEqual(written);
      await again.close();
    } finally {
      await backend.close();
    }
  });

  it('a plan on a workspace whose tables exist asks for them, and the schema they are in, in one query', async () => {
    await (await new PostgresStateBackend(databaseUrl, 'counted').lock('apply')).release();
    const sent: string[] = [];
    const query = pg.Client.prototype.query;
    // Every statement a backend sends (it loads the same pg module).
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text;
      sent.push(text.replace(/\s+/g, ' ').trim());
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    const backend = new PostgresStateBackend(databaseUrl, 'counted');
    try {
      const lock = await backend.lock('plan');
      await backend.read();
      await lock.release();
    } finally {
      pg.Client.prototype.query = query;
      await backend.close();
    }
    const opening = sent.slice(
      0,
      sent.findIndex((q) => q.includes('pg_try_advisory_lock')),
    );
    // Keep-alives (two statements: a server without tcp_user_timeout refuses the second only), then the tables.
    expect(opening).toEqual([
      expect.stringContaining('tcp_keepalives_idle'),
      expect.stringContaining('tcp_user_timeout'),
      expect.stringMatching(/^SELECT current_schema\(\) AS schema, .*pg_class/),
    ]);
  });

  it('a state row written by a newer scrapeform is refused with a message that says so', async () => {
    const backend = new PostgresStateBackend(databaseUrl, 'newer');
    try {
      await backend.write(await backend.read());
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(
        `UPDATE scrapeform_state_newer SET state = jsonb_set(state, '{format_version}', '2') WHERE id = 1`,
      );
      await client.end();
      const again = new PostgresStateBackend(databaseUrl, 'newer');
      await expect(again.read()).rejects.toThrow(
        `the state in ${again.location} was written by a newer scrapeform (state format_version 2; this scrapeform reads format_version 1)`,
      );
      await again.close();
    } finally {
      await backend.close();
    }
  });

  it('a state row no command can read is replaced by state push only with --force', async () => {
    const backend = new PostgresStateBackend(databaseUrl, 'corrupt');
    try {
      await backend.write(await backend.read());
    } finally {
      await backend.close();
    }
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(`UPDATE scrapeform_state_corrupt SET state = jsonb_set(state, '{resources}', 'null')`);
    await client.end();
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-pg-corrupt-'));
    const backup = {
      format_version: 1,
      serial: 4,
      lineage: 'BACKUP',
      resources: { 'project.a': { kind: 'Project', id: 7, name: 'a', definition: {} } },
    };
    await writeFile(path.join(dir, 'backup.json'), JSON.stringify(backup));
    const env = { PATH: process.env.PATH ?? '', CI: 'true', NO_COLOR: '1' };
    const flags = ['--state', databaseUrl, '--workspace', 'corrupt'];
    const location = new PostgresStateBackend(databaseUrl, 'corrupt').location;
    const broken = `the state in ${location} is not a scrapeform state (resources is null, not an object of addresses)`;

    const refused = await runBuiltCli(['state', 'push', 'backup.json', ...flags], { cwd: dir, env });
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: ${broken}\n  hint: to put backup.json in its place, push it again with --force\n`,
    });
    const forced = await runBuiltCli(['state', 'push', 'backup.json', ...flags, '--force'], {
      cwd: dir,
      env,
    });
    expect(forced).toEqual({
      code: 0,
      stdout: `Pushed 1 object to ${location} (serial 5).\n`,
      stderr: `${broken}: --force replaces it with backup.json\n`,
    });
    const pulled = await runBuiltCli(['state', 'pull', ...flags], { cwd: dir, env });
    expect(JSON.parse(pulled.stdout)).toEqual({ ...backup, serial: 5 });
  });

  it('a file state holding text jsonb cannot hold (NUL, half a surrogate pair) moves into the database and back unchanged', async () => {
    // Text a service answered (a generation's error, a live name) is recorded as it came; the file backend keeps it.
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-pg-nul-'));
    const parser = {
      kind: 'Parser',
      id: 'p-1',
      name: 'books',
      version: 0,
      definition: null,
      descriptionsKnown: true,
      failed: { version: 1, error: 'bad\u0000page \ud83d, path C:\\u0000', attempts: 1 },
    };
    const file = { format_version: 1, serial: 3, lineage: 'L', resources: { 'parser.books': parser } };
    await writeFile(path.join(dir, 'state.json'), JSON.stringify(file));
    const env = { PATH: process.env.PATH ?? '', CI: 'true', NO_COLOR: '1' };
    const flags = ['--state', databaseUrl, '--workspace', 'nul_text'];
    const location = new PostgresStateBackend(databaseUrl, 'nul_text').location;

    const pushed = await runBuiltCli(['state', 'push', 'state.json', ...flags], { cwd: dir, env });
    expect(pushed).toEqual({ code: 0, stdout: `Pushed 1 object to ${location} (serial 4).\n`, stderr: '' });
    const pulled = await runBuiltCli(['state', 'pull', ...flags], { cwd: dir, env });
    expect(pulled.code).toBe(0);
    expect(JSON.parse(pulled.stdout)).toEqual({ ...file, serial: 4 });
    // And a write on top of it (an apply's) keeps it too.
    const backend = new PostgresStateBackend(databaseUrl, 'nul_text');
    const again = new PostgresStateBackend(databaseUrl, 'nul_text');
    try {
      const written = await backend.write(await backend.read());
      expect(written.resources['parser.books']).toEqual(parser);
      expect(await again.read()).toEqual(written);
    } finally {
      await backend.close();
      await again.close();
    }
  });

  it('a stale serial loses: the second writer fails and nothing is overwritten', async () => {
    const a = new PostgresStateBackend(databaseUrl, 'serial');
    const b = new PostgresStateBackend(databaseUrl, 'serial');
    try {
      const fromA = await a.read();
      const fromB = await b.read();
      fromA.resources['project.a'] = { kind: 'Project', id: 1, name: 'a', definition: {} };
      await a.write(fromA);
      fromB.resources['project.b'] = { kind: 'Project', id: 2, name: 'b', definition: {} };
      await expect(b.write(fromB)).rejects.toThrow(/was written by another run \(serial 1, expected 0\)/);
      expect(Object.keys((await a.read()).resources)).toEqual(['project.a']);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a write past the highest serial is refused and the row stays readable as it was', async () => {
    const backend = new PostgresStateBackend(databaseUrl, 'limit');
    try {
      const written = await backend.write({ ...(await backend.read()), serial: 2_147_483_645 });
      expect(written.serial).toBe(2_147_483_646);
      const error = await backend.write(written).then(
        () => undefined,
        (failure: unknown) => failure as ScrapeformError,
      );
      expect(error?.code).toBe('state.serial-limit');
      expect(error?.message).toBe(
        `the state in ${backend.location} would pass serial 2147483646, the highest a state can hold: it was not written`,
      );
      const again = new PostgresStateBackend(databaseUrl, 'limit');
      try {
        expect(await again.read()).toEqual(written);
      } finally {
        await again.close();
      }
    } finally {
      await backend.close();
    }
  });

  it('the lock is held by one run at a time and names its holder; workspaces are separate', async () => {
    const a = new PostgresStateBackend(databaseUrl, 'locks');
    const b = new PostgresStateBackend(databaseUrl, 'locks');
    const other = new PostgresStateBackend(databaseUrl, 'other-team');
    try {
      const lock = await a.lock('apply');
      await expect(b.lock('apply')).rejects.toThrow(
        new RegExp(`is locked by .+ \\(pid ${process.pid}, apply, since`),
      );
      const separate = await other.lock('apply');
      await separate.release();
      await lock.release();
      const after = await b.lock('plan');
      await after.release();
    } finally {
      await Promise.all([a.close(), b.close(), other.close()]);
    }
  });

  it('a runner killed while holding the lock releases it with its connection', async () => {
    const script = `import { PostgresStateBackend } from ${JSON.stringify(path.join(ROOT, 'dist/state/postgres-backend.js'))};
const b = new PostgresStateBackend(${JSON.stringify(databaseUrl)}, 'killed');
await b.lock('apply');
console.log('locked');
setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (d: Buffer) => d.toString().includes('locked') && resolve()),
    );
    const waiting = new PostgresStateBackend(databaseUrl, 'killed');
    try {
      await expect(waiting.lock('apply')).rejects.toThrow(/is locked by/);
      child.kill('SIGKILL');
      await new Promise((resolve) => child.on('close', resolve));
      // Taken once the server has ended the killed runner's session, and its advisory lock with it.
      let lock: StateLock | undefined;
      await until(
        "the killed runner's lock can be taken",
        async () => (lock = await waiting.lock('apply').catch(() => undefined)) !== undefined,
        { everyMs: 50 },
      );
      await lock?.release();
    } finally {
      await waiting.close();
    }
  });

  it('SCRAPEFORM_STATE_TIMEOUT up to the longest timer: the client keeps its answers, no timer overflows', async () => {
    // Review: within 2 s of 2^31 - 1 ms the client's timer (the timeout plus its margin) passed what a Node timer
    // waits, fired after 1 ms with a TimeoutOverflowWarning, and every query "did not answer".
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-pg-timer-edge-'));
    await writeFile(
      path.join(dir, 'pushed.json'),
      JSON.stringify({ format_version: 1, serial: 1, lineage: 'L', resources: {} }),
    );
    for (const [i, timeout] of [String(2 ** 31 - 1 - 1000), String(2 ** 31 - 1), '24d'].entries()) {
      const env = emulatorEnv(emulator.url, KEY, {
        SCRAPEFORM_STATE: databaseUrl,
        SCRAPEFORM_WORKSPACE: `timer-edge-${i}`,
        SCRAPEFORM_STATE_TIMEOUT: timeout,
      });
      for (const args of [
        ['state', 'push', 'pushed.json'],
        ['state', 'pull'],
        ['force-unlock', '--force'],
      ]) {
        const run = await runBuiltCli(args, { cwd: dir, env, exitWithinMs: 20_000 });
        expect(run.stderr, `${timeout}: ${args.join(' ')}`).not.toContain('TimeoutOverflowWarning');
        expect(run.stderr).not.toContain('did not answer');
        expect(run.code, `${timeout}: ${args.join(' ')}: ${run.stderr}`).toBe(0);
      }
    }
    // A library caller's longer one waits the longest there is.
    const warnings: Error[] = [];
    const warned = (warning: Error): number => warnings.push(warning);
    process.on('warning', warned);
    const backend = new PostgresStateBackend(databaseUrl, 'timer-edge-library', 30 * 86_400_000);
    try {
      const lock = await backend.lock('apply');
      expect((await backend.write(await backend.read())).serial).toBe(1);
      await lock.release();
    } finally {
      await backend.close();
      process.off('warning', warned);
    }
    expect(warnings.map((w) => w.name)).not.toContain('TimeoutOverflowWarning');
  });

  function cli(dir: string, args: string[]): Promise<ChildRun> {
    return runBuiltCli(args, {
      cwd: dir,
      env: emulatorEnv(emulator.url, KEY, { SCRAPEFORM_STATE: databaseUrl, SCRAPEFORM_WORKSPACE: 'cli' }),
    });
  }

  it('workspaces whose names differ only in case, - or _ are different workspaces with their own tables', async () => {
    const names = ['team-a', 'team_a', 'Prod', 'prod'];
    for (const [i, name] of names.entries()) {
      const backend = new PostgresStateBackend(databaseUrl, name);
      try {
        const state = await backend.read();
        expect(state.resources, name).toEqual({});
        state.resources[`project.p${i}`] = { kind: 'Project', id: i, name: `p${i}`, definition: {} };
        await backend.write(state);
      } finally {
        await backend.close();
      }
    }
    for (const [i, name] of names.entries()) {
      const again = new PostgresStateBackend(databaseUrl, name);
      try {
        expect(Object.keys((await again.read()).resources), name).toEqual([`project.p${i}`]);
      } finally {
        await again.close();
      }
    }
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const { rows } = await client.query<{ name: string }>(
      "SELECT relname AS name FROM pg_class WHERE relname IN ('scrapeform_state_team-a', 'scrapeform_state_team_a', 'scrapeform_state_Prod', 'scrapeform_state_prod') ORDER BY relname",
    );
    await client.end();
    expect(rows.map((r) => r.name)).toEqual([
      'scrapeform_state_Prod',
      'scrapeform_state_prod',
      'scrapeform_state_team-a',
      'scrapeform_state_team_a',
    ]);
  });

  it('a table an earlier version made keeps serving its lowercase workspace; a shared one is never guessed', async () => {
    // Tables as earlier versions made them: one name for every spelling, no comment saying whose it is.
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const old = (table: string, serial: number): string =>
      `CREATE TABLE ${table} (id int PRIMARY KEY CHECK (id = 1), serial int NOT NULL, lineage text NOT NULL, state jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now());
       INSERT INTO ${table} VALUES (1, ${serial}, 'l-${serial}', '{"format_version":1,"serial":${serial},"lineage":"l-${serial}","resources":{}}', now())`;
    await client.query(old('scrapeform_state_legacy', 4));
    await client.query(old('scrapeform_state_team_b', 9));
    const simple = new PostgresStateBackend(databaseUrl, 'legacy');
    try {
      expect((await simple.read()).serial).toBe(4);
    } finally {
      await simple.close();
    }
    const spelled = new PostgresStateBackend(databaseUrl, 'Team-B');
    let failure: ScrapeformError | undefined;
    try {
      await spelled.read();
    } catch (error) {
      failure = error as ScrapeformError;
    } finally {
      await spelled.close();
    }
    expect(failure?.message).toBe(
      'workspace "Team-B" has no table of its own yet, but scrapeform_state_team_b exists: earlier versions of scrapeform kept every workspace whose name differs from "Team-B" only in case, - or _ in that one table, so it may hold this workspace\'s state or another\'s',
    );
    expect(failure?.hint).toBe(
      'if it is this workspace\'s state, rename it: ALTER TABLE scrapeform_state_team_b RENAME TO "scrapeform_state_Team-B"; if it belongs to workspace team_b, give this one an empty table: CREATE TABLE "scrapeform_state_Team-B" (LIKE scrapeform_state_team_b INCLUDING ALL)',
    );
    // The first way out of the hint, as written: the workspace then finds its state.
    await client.query('ALTER TABLE scrapeform_state_team_b RENAME TO "scrapeform_state_Team-B"');
    await client.end();
    const renamed = new PostgresStateBackend(databaseUrl, 'Team-B');
    try {
      expect((await renamed.read()).serial).toBe(9);
    } finally {
      await renamed.close();
    }
  });

  it('two concurrent applies: one fails on the lock, never both write; then plan, state pull and push', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-pg-'));
    await cp(path.join(ROOT, 'examples/quickstart'), dir, { recursive: true });
    // Long enough that the second apply starts while the first still holds the lock, even on a loaded machine.
    emulator.setFaults({ generationDelayMs: 4000 });
    const [first, second] = await Promise.all([
      cli(dir, ['apply', '--auto-approve']),
      new Promise((r) => setTimeout(r, 400)).then(() => cli(dir, ['apply', '--auto-approve'])),
    ]);
    emulator.setFaults({ generationDelayMs: null });
    const codes = [first.code, second.code].sort();
    expect(codes).toEqual([0, 1]);
    expect([first.stderr, second.stderr].join('\n')).toContain('is locked by');
    expect([...emulator.parsers.parsers.values()].map((p) => p.name)).toEqual(['books-product']);
    const plan = await cli(dir, ['plan', '--detailed-exitcode']);
    expect(plan.code).toBe(0);

    const pulled = await cli(dir, ['state', 'pull']);
    const state = JSON.parse(pulled.stdout) as {
      serial: number;
      lineage: string;
      resources: Record<string, unknown>;
    };
    expect(Object.keys(state.resources).sort()).toEqual([
      'parser.books-product',
      'project.nightly-book-pages',
    ]);
    expect(pulled.stdout + pulled.stderr).not.toContain(KEY);
    await writeFile(path.join(dir, 'old.json'), JSON.stringify({ ...state, serial: state.serial - 1 }));
    const refused = await cli(dir, ['state', 'push', 'old.json']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `refusing to push old.json: its serial ${state.serial - 1} is lower than the backend's ${state.serial}`,
    );
    // Move the state to a file backend and back: the plan stays empty on both.
    await writeFile(path.join(dir, 'pulled.json'), pulled.stdout);
    const toFile = await cli(dir, [
      'state',
      'push',
      'pulled.json',
      '--state',
      path.join(dir, 'file-state.json'),
    ]);
    expect(toFile.code, toFile.stderr).toBe(0);
    expect(
      (await cli(dir, ['plan', '--detailed-exitcode', '--state', path.join(dir, 'file-state.json')])).code,
    ).toBe(0);
    // The workspace (cli, from SCRAPEFORM_WORKSPACE) applies to file state too: its file is in its own folder.
    expect(JSON.parse(await readFile(path.join(dir, 'cli', 'file-state.json'), 'utf8')).lineage).toBe(
      state.lineage,
    );
  });

  it('two applies with --lock-timeout: the second waits for the first (progress on stderr), both succeed', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-pg-wait-'));
    await cp(path.join(ROOT, 'examples/quickstart'), dir, { recursive: true });
    // Names of their own: the parsers of the tests before are live in the same emulator.
    for (const file of ['books-product.yaml', 'nightly-book-pages.yaml']) {
      const text = await readFile(path.join(dir, file), 'utf8');
      await writeFile(path.join(dir, file), text.replace(/^name: (.*)$/m, 'name: waiting-$1'));
    }
    const env = emulatorEnv(emulator.url, KEY, {
      SCRAPEFORM_STATE: databaseUrl,
      SCRAPEFORM_WORKSPACE: 'waiting',
    });
    const apply = (): Promise<ChildRun> =>
      runBuiltCli(['apply', '--auto-approve', '--lock-timeout', '2m'], { cwd: dir, env });
    // Long enough that the second apply asks for the lock while the first still holds it, even on a loaded machine.
    emulator.setFaults({ generationDelayMs: 4000 });
    const [first, second] = await Promise.all([apply(), new Promise((r) => setTimeout(r, 400)).then(apply)]);
    emulator.setFaults({ generationDelayMs: null });
    expect([first.code, second.code], `${first.stderr}\n${second.stderr}`).toEqual([0, 0]);
    expect([first.stderr, second.stderr].join('\n')).toMatch(
      /waiting for the state lock held by .+ \(pid \d+, apply\): \d+s of 2m 00s/,
    );
    expect(
      [...emulator.parsers.parsers.values()].filter((p) => p.name === 'waiting-books-product'),
    ).toHaveLength(1);
    const waiter = [first, second].find((run) => run.stderr.includes('waiting for the state lock'));
    expect(waiter?.stdout).toContain('No changes');
  });

  it('every command that touches state exits on its own with PostgreSQL state, also when it fails', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-pg-exit-'));
    await cp(path.join(ROOT, 'examples/quickstart'), dir, { recursive: true });
    const env = emulatorEnv(emulator.url, KEY, {
      SCRAPEFORM_STATE: databaseUrl,
      SCRAPEFORM_WORKSPACE: 'commands-exit',
    });
    emulator.reset();
    // Each command must end by itself: an open database pool keeps a process alive after its answer. Far longer
    // than any of these takes, so only a hang trips it.
    const run = (args: string[]): Promise<ChildRun> =>
      runBuiltCli(args, { cwd: dir, env, exitWithinMs: 25_000 });
    const commands: { args: string[]; code: number }[] = [
      { args: ['apply', '--auto-approve'], code: 0 },
      { args: ['plan', '--detailed-exitcode'], code: 0 },
      { args: ['plan', '--lock'], code: 0 },
      { args: ['status'], code: 0 },
      { args: ['doctor'], code: 0 },
      { args: ['output', '--json'], code: 0 },
      { args: ['jobs', 'project.nightly-book-pages'], code: 0 },
      { args: ['run', 'project.nightly-book-pages', '--wait', '--wait-timeout', '20s'], code: 0 },
      { args: ['cancel', 'project.nightly-book-pages', 'no-such-job'], code: 1 },
      { args: ['test'], code: 0 },
      {
        args: [
          'parse',
          'parser.books-product',
          'https://books.example/catalogue/a-light-in-the-attic_1000/index.html',
        ],
        code: 0,
      },
      { args: ['import', '--out', 'imported'], code: 0 },
      { args: ['state', 'pull'], code: 0 },
      { args: ['drift'], code: 0 },
      { args: ['drift', '--accept'], code: 0 },
      { args: ['jobs', 'project.not-managed'], code: 1 },
      { args: ['force-unlock'], code: 0 },
    ];
    for (const { args, code } of commands) {
      const result = await run(args);
      expect(result.hung, `scrapeform ${args.join(' ')} did not exit`).toBeUndefined();
      expect(result.code, `scrapeform ${args.join(' ')}: ${result.stderr}`).toBe(code);
    }
    // watch (--heal takes the lock while it heals) ends on SIGTERM after a run, its connection closed.
    const watch = spawn(
      process.execPath,
      [BUILT_CLI, 'watch', '--heal', '--interval', '1s', '--listen', '127.0.0.1:0'],
      { cwd: dir, env },
    );
    let watchLog = '';
    watch.stderr.on('data', (d: Buffer) => (watchLog += d.toString()));
    const watchExit = new Promise<number | null>((resolve) => watch.on('close', resolve));
    try {
      await until('watch said it found no drift', () => watchLog.includes('watch: no drift'), {
        everyMs: 20,
      });
      expect(watchLog).toContain('watch: no drift (2 managed)');
      watch.kill('SIGTERM');
      expect(await watchExit).toBe(0);
    } finally {
      watch.kill('SIGKILL');
    }
    // A command that fails on a held lock releases its connection too.
    const holder = new PostgresStateBackend(databaseUrl, 'commands-exit');
    const lock = await holder.lock('test holder');
    try {
      for (const args of [
        ['apply', '--auto-approve'],
        ['import', '--out', 'imported'],
        ['state', 'push', 'missing.json'],
      ]) {
        const result = await run(args);
        expect(result.hung, `scrapeform ${args.join(' ')} did not exit`).toBeUndefined();
        expect(result.code).toBe(1);
      }
    } finally {
      await lock.release();
      await holder.close();
    }
  }, 300_000);

  it('a runner killed mid-apply releases the lock; the next apply finds state consistent and converges', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-pg-kill-'));
    await cp(path.join(ROOT, 'examples/quickstart'), dir, { recursive: true });
    const env = emulatorEnv(emulator.url, KEY, {
      SCRAPEFORM_STATE: databaseUrl,
      SCRAPEFORM_WORKSPACE: 'killed-apply',
    });
    emulator.reset();
    emulator.setFaults({ generationDelayMs: 600_000 });
    const child = spawn(process.execPath, [BUILT_CLI, 'apply', '--auto-approve'], {
      cwd: dir,
      env,
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.on('close', resolve));
    const probe = new PostgresStateBackend(databaseUrl, 'killed-apply');
    try {
      await until(
        'state records the parser',
        async () => (await probe.read()).resources['parser.books-product'] !== undefined,
      );
    } finally {
      child.kill('SIGKILL');
      await exited;
      await probe.close();
    }
    emulator.setFaults({ generationDelayMs: null });
    emulator.clock.advance(600_000);
    await emulator.idle();
    const applied = await runBuiltCli(['apply', '--auto-approve'], { cwd: dir, env });
    expect(applied.code, applied.stderr).toBe(0);
    expect((await runBuiltCli(['plan', '--detailed-exitcode'], { cwd: dir, env })).code).toBe(0);
    expect([...emulator.parsers.parsers.values()].map((p) => p.name)).toEqual(['books-product']);
    expect([...emulator.projects.projects.values()].map((p) => p.name)).toEqual(['nightly-book-pages']);
  });
  it('a plan saved for one workspace is refused in another of the same database; it records no credential', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-pg-workspaces-'));
    await cp(path.join(ROOT, 'examples/quickstart'), dir, { recursive: true });
    emulator.reset();
    // A password in the URL (the test server trusts local connections and never asks for it): never written.
    const withPassword = new URL(databaseUrl);
    withPassword.password = 'Sup3r%2FS3cret';
    const env = (workspace: string): NodeJS.ProcessEnv =>
      emulatorEnv(emulator.url, KEY, {
        SCRAPEFORM_STATE: withPassword.toString(),
        SCRAPEFORM_WORKSPACE: workspace,
      });
    const saved = await runBuiltCli(['plan', '--out', 'plan.json'], { cwd: dir, env: env('f5staging') });
    expect(saved.code, saved.stderr).toBe(0);
    const text = await readFile(path.join(dir, 'plan.json'), 'utf8');
    expect(text).not.toMatch(/Sup3r|S3cret|postgres@/);
    const database = `postgres://${withPassword.hostname}:${withPassword.port}${withPassword.pathname}`;
    expect(
      (JSON.parse(text) as { fingerprint: { target: { state: unknown } } }).fingerprint.target.state,
    ).toEqual({ workspace: 'f5staging', location: database });
    const before = emulator.requestLog.filter((e) => e.method !== 'GET').length;
    const refused = await runBuiltCli(['apply', '--plan', 'plan.json', '--auto-approve'], {
      cwd: dir,
      env: env('f5production'),
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `error: refusing the saved plan: it was made for workspace f5staging (state ${database}), and this run is for workspace f5production (state ${database})`,
    );
    expect(refused.stderr).not.toContain('S3cret');
    expect(emulator.requestLog.filter((e) => e.method !== 'GET').length).toBe(before);
    const applied = await runBuiltCli(['apply', '--plan', 'plan.json', '--auto-approve'], {
      cwd: dir,
      env: env('f5staging'),
    });
    expect(applied.code, applied.stderr).toBe(0);
    expect(
      (await runBuiltCli(['plan', '--detailed-exitcode'], { cwd: dir, env: env('f5staging') })).code,
    ).toBe(0);
  });

  it('a write that waits for a row another session holds fails after SCRAPEFORM_STATE_TIMEOUT, naming the database', async () => {
    const backend = new PostgresStateBackend(databaseUrl, 'row-held', 1000);
    const written = await backend.write(emptyState(''));
    const other = new pg.Client({ connectionString: databaseUrl });
    await other.connect();
    await other.query('BEGIN');
    await other.query('SELECT serial FROM "scrapeform_state_row-held" WHERE id = 1 FOR UPDATE');
    const failure = (await backend.write(written).catch((e: unknown) => e)) as ScrapeformError;
    await other.query('ROLLBACK');
    await other.end();
    await backend.close();
    expect(failure.code).toBe('state.unreachable');
    expect(failure.message).toMatch(/did not answer: canceling statement due to (statement|lock) timeout/);
  });

  it('force-unlock ends only the holding session of its own database, and says whose lock it broke', async () => {
    const otherUrl = await newDatabase('other');
    const elsewhere = new PostgresStateBackend(otherUrl, 'default');
    const here = new PostgresStateBackend(databaseUrl, 'default');
    const probe = new PostgresStateBackend(otherUrl, 'default');
    try {
      const lock = await elsewhere.lock('apply');
      // The same workspace in another database: its lock has the same key, and is not this database's.
      expect(await here.forceUnlock({ force: true })).toBeUndefined();
      await expect(probe.lock('apply')).rejects.toMatchObject({ code: 'state.locked' });
      // Its holder runs here (this test): refused without --force, and for another id.
      await expect(probe.forceUnlock()).rejects.toMatchObject({ code: 'state.lock-alive' });
      await expect(probe.forceUnlock({ lockId: 'other', force: true })).rejects.toMatchObject({
        code: 'state.lock-mismatch',
      });
      expect(await probe.forceUnlock({ lockId: lock.info.id ?? '', force: true })).toEqual(lock.info);
      await expect(elsewhere.write(emptyState(''))).rejects.toMatchObject({ code: 'state.lock-lost' });
      // Taken at once: force-unlock returned only once the ended session had let go of the lock (its client may
      // see the session end before that), so this is not a race.
      await (await probe.lock('apply')).release();
    } finally {
      await Promise.all([elsewhere.close(), here.close(), probe.close()]);
    }
  });

  it('force-unlock returns once the ended session has let go of the lock: a lock taken right after it is granted', async () => {
    const url = await newDatabase('unlock_release');
    const probe = new PostgresStateBackend(url, 'default');
    // An earlier version's run, holding the workspace's lock in a session slow to end: PostgreSQL drops a session's
    // temporary tables before it releases its advisory locks, so the lock outlives pg_terminate_backend's answer
    // (by tens of milliseconds for a few hundred tables) and a lock taken at once found it still held.
    const holder = new pg.Client({ connectionString: url });
    holder.on('error', () => undefined);
    await holder.connect();
    try {
      await holder.query(
        "DO $$ BEGIN FOR i IN 1..300 LOOP EXECUTE format('CREATE TEMP TABLE slow_%s (a int)', i); END LOOP; END $$",
      );
      await holder.query('SELECT pg_advisory_lock($1)', [earlierVersionKey('default')]);
      expect(await probe.forceUnlock({ force: true })).toMatchObject({ operation: 'unknown' });
      await (await probe.lock('apply')).release();
    } finally {
      await Promise.all([probe.close(), holder.end().catch(() => undefined)]);
    }
  });

  /** Two schemas of a database of their own, and the URL of each (`options=-c search_path=…`). */
  async function twoSchemas(
    suffix: string,
  ): Promise<{ admin: pg.Client; inSchema: (schema: string) => string }> {
    const url = await newDatabase(suffix);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query('CREATE SCHEMA env_prod; CREATE SCHEMA env_staging');
    const inSchema = (schema: string): string => {
      const inIt = new URL(url);
      inIt.searchParams.set('options', `-c search_path=${schema}`);
      return inIt.toString();
    };
    return { admin, inSchema };
  }

  /**
   * The advisory key every released scrapeform took for a workspace, whatever its schema: the first 64 bits of the
   * SHA-256 of its table's name. Written out here, not imported: it is what an earlier version still running takes.
   */
  function earlierVersionKey(workspace: string): string {
    const hex = createHash('sha256').update(`scrapeform_state_${workspace}`).digest('hex').slice(0, 16);
    return BigInt.asIntN(64, BigInt(`0x${hex}`)).toString();
  }

  it('the same workspace in two schemas of one database: each has a lock of its own, named by its own holder', async () => {
    const { admin, inSchema } = await twoSchemas('schemas');
    const prod = new PostgresStateBackend(inSchema('env_prod'), 'default');
    const prodAgain = new PostgresStateBackend(inSchema('env_prod'), 'default');
    const staging = new PostgresStateBackend(inSchema('env_staging'), 'default');
    const stagingAgain = new PostgresStateBackend(inSchema('env_staging'), 'default');
    try {
      // Staging ran before (its run finished), then prod applies: staging applies all the same.
      await (await staging.lock('apply')).release();
      const prodLock = await prod.lock('apply');
      const stagingLock = await staging.lock('apply');
      // Within prod the lock is prod's run's, and names it.
      const refused = (await prodAgain.lock('plan').catch((e: unknown) => e)) as ScrapeformError;
      expect([refused.code, refused.details.lock]).toEqual(['state.locked', prodLock.info]);
      expect((await staging.write(await staging.read())).serial).toBe(1);
      expect((await prod.write(await prod.read())).serial).toBe(1);
      // force-unlock of staging breaks staging's lock only; prod's run keeps its own and writes.
      expect(await stagingAgain.forceUnlock({ force: true })).toEqual(stagingLock.info);
      await expect(staging.write(emptyState(''))).rejects.toMatchObject({ code: 'state.lock-lost' });
      expect((await prod.write(await prod.read())).serial).toBe(2);
      await prodLock.release();
      await stagingLock.release();
    } finally {
      await Promise.all([
        prod.close(),
        prodAgain.close(),
        staging.close(),
        stagingAgain.close(),
        admin.end(),
      ]);
    }
  });

  it('a released lock leaves no row; a row left by a run that died names no one once the lock is free', async () => {
    const { admin, inSchema } = await twoSchemas('rows');
    const backend = new PostgresStateBackend(inSchema('env_prod'), 'default');
    const other = new PostgresStateBackend(inSchema('env_prod'), 'default');
    const rows = async (): Promise<unknown[]> =>
      (await admin.query<{ info: unknown }>('SELECT info FROM env_prod.scrapeform_locks')).rows.map(
        (r) => r.info,
      );
    try {
      const lock = await backend.lock('apply');
      expect(await rows()).toEqual([lock.info]);
      await lock.release();
      expect(await rows()).toEqual([]);
      // A row of a run whose session ended without its release (killed) stays; the lock is free all the same.
      const killed = await backend.lock('apply');
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'scrapeform' AND datname = current_database()",
      );
      expect(await rows()).toEqual([killed.info]);
      const next = await other.lock('apply');
      expect(await rows()).toEqual([next.info]);
      // The run that lost its lock releases nothing of the next one's.
      await killed.release();
      expect(await rows()).toEqual([next.info]);
      await next.release();
      expect(await rows()).toEqual([]);
      expect(await other.forceUnlock()).toBeUndefined();
    } finally {
      await Promise.all([backend.close(), other.close(), admin.end()]);
    }
  });

  it('an upgrade: a run of an earlier version and one of this version never both hold a workspace’s lock', async () => {
    const { admin, inSchema } = await twoSchemas('upgrade');
    const prod = new PostgresStateBackend(inSchema('env_prod'), 'default');
    const staging = new PostgresStateBackend(inSchema('env_staging'), 'default');
    // A session taking the lock as an earlier version does: the workspace's key, exclusively, then its row.
    const earlier = new pg.Client({ connectionString: inSchema('env_prod') });
    // force-unlock ends its session below: its keys are free once the connection is closed.
    earlier.on('error', () => undefined);
    const earlierEnded = new Promise((resolve) => earlier.once('end', resolve));
    await earlier.connect();
    const earlierTakes = async (): Promise<boolean> =>
      (
        await earlier.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
          earlierVersionKey('default'),
        ])
      ).rows[0]?.locked === true;
    try {
      // This version holds it (in either schema): the earlier version is refused.
      const prodLock = await prod.lock('apply');
      expect(await earlierTakes()).toBe(false);
      await prodLock.release();
      const stagingLock = await staging.lock('apply');
      expect(await earlierTakes()).toBe(false);
      await stagingLock.release();
      // The earlier version holds it: this version is refused, naming that run from its row.
      expect(await earlierTakes()).toBe(true);
      const info = {
        holder: 'ci@runner-3',
        host: 'runner-3',
        pid: 41,
        started: '2026-01-01T00:00:00.000Z',
        operation: 'apply',
      };
      const { rows } = await earlier.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await earlier.query(
        'INSERT INTO scrapeform_locks (workspace, info) VALUES ($1, $2) ON CONFLICT (workspace) DO UPDATE SET info = EXCLUDED.info',
        ['scrapeform_state_default', JSON.stringify({ ...info, session: rows[0]?.pid })],
      );
      const refused = (await prod.lock('apply').catch((e: unknown) => e)) as ScrapeformError;
      expect([refused.code, refused.message]).toEqual([
        'state.locked',
        `the state ${prod.location} is locked by ci@runner-3 (pid 41, apply, since 2026-01-01T00:00:00.000Z)`,
      ]);
      // In another schema the earlier version's key is the same (it had one key for every schema): refused too.
      await expect(staging.lock('apply')).rejects.toMatchObject({ code: 'state.locked' });
      // force-unlock of staging leaves it running (not staging's run); of prod it ends that session.
      await expect(staging.forceUnlock()).rejects.toMatchObject({ code: 'state.lock-elsewhere' });
      expect(await prod.forceUnlock()).toMatchObject(info);
      await earlierEnded;
      await (await staging.lock('apply')).release();
      await (await prod.lock('apply')).release();
    } finally {
      await Promise.all([prod.close(), staging.close(), earlier.end().catch(() => undefined), admin.end()]);
    }
  });

  it('after the session ends (the database restarted) the next call reconnects; a lock taken on it is lost', async () => {
    const backend = new PostgresStateBackend(databaseUrl, 'reconnect');
    const other = new PostgresStateBackend(databaseUrl, 'reconnect');
    try {
      const lock = await backend.lock('watch --heal');
      const state = await backend.read();
      await endSessions();
      // The broken connection may be found by the first call after it; never by the one after that.
      await backend.read().catch(() => undefined);
      expect(await backend.read()).toEqual(state);
      const taken = await other.lock('apply');
      const lost = (await backend.write(state).catch((e: unknown) => e)) as ScrapeformError;
      expect(lost.code).toBe('state.lock-lost');
      expect(lost.message).toBe(
        `the state lock of ${backend.location} was lost with the database connection that held it: the state was not written`,
      );
      await lock.release();
      await taken.release();
      // A run without the lock writes as before, on the new connection.
      const fresh = new PostgresStateBackend(databaseUrl, 'reconnect');
      expect((await fresh.write(await fresh.read())).serial).toBe(1);
      await fresh.close();
    } finally {
      await Promise.all([backend.close(), other.close()]);
    }
  });

  it('a command whose database stops answering as it ends its session still exits, with its output', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-pg-silent-end-'));
    await cp(path.join(ROOT, 'examples/quickstart'), dir, { recursive: true });
    emulator.reset();
    // Every byte passes until the client's Terminate ('X', length 4): from then on nothing passes either way and
    // the connection stays open, as a database process that froze (its host still acknowledging) or a proxy that
    // stopped relaying keeps it. The server never closes its side, which is what ending a session waits for.
    const TERMINATE = Buffer.from([0x58, 0, 0, 0, 4]);
    const target = new URL(databaseUrl);
    const sockets: Socket[] = [];
    const terminated: string[] = [];
    const relay = createServer({ allowHalfOpen: true }, (client) => {
      const upstream = connectTcp(Number(target.port), target.hostname);
      sockets.push(client, upstream);
      let silent = false;
      client.on('data', (data: Buffer) => {
        if (data.length >= 5 && data.subarray(-5).equals(TERMINATE)) {
          silent = true;
          terminated.push('X');
        }
        if (!silent) upstream.write(data);
      });
      upstream.on('data', (data: Buffer) => void (silent || client.write(data)));
      client.on('error', () => undefined);
      upstream.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const address = relay.address();
    const state = new URL(databaseUrl);
    state.host = `127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
    const env = emulatorEnv(emulator.url, KEY, {
      SCRAPEFORM_STATE: state.toString(),
      SCRAPEFORM_WORKSPACE: 'silent-end',
      SCRAPEFORM_STATE_TIMEOUT: '1s',
    });
    try {
      // Far longer than ending a session may take (SCRAPEFORM_STATE_TIMEOUT plus its margin): only a hang trips it.
      for (const { args, out } of [
        { args: ['apply', '--auto-approve'], out: '1 check passed' },
        { args: ['state', 'pull'], out: '"parser.books-product"' },
      ]) {
        const ran = await runBuiltCli(args, { cwd: dir, env, exitWithinMs: 20_000 });
        expect(ran.hung, `scrapeform ${args.join(' ')} did not exit`).toBeUndefined();
        expect(ran.code, `scrapeform ${args.join(' ')}: ${ran.stderr}`).toBe(0);
        expect(ran.stdout).toContain(out);
      }
      // Each session sent its Terminate (apply's two: the state's and the journal's of calls being sent), and the
      // relay kept the connection open after it.
      expect(terminated).toEqual(['X', 'X', 'X']);
    } finally {
      for (const socket of sockets) socket.destroy();
      relay.close();
    }
  }, 60_000);
});

/** A new empty database beside the test's, for tests that need two. */
async function newDatabase(suffix: string): Promise<string> {
  const url = new URL(databaseUrl);
  const name = `${url.pathname.slice(1)}_${suffix}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  url.pathname = `/${name}`;
  return url.toString();
}

/** Ends every scrapeform session of the test's database, as a restart of the server does. */
async function endSessions(): Promise<void> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'scrapeform' AND datname = $1",
    [new URL(databaseUrl).pathname.slice(1)],
  );
  await admin.end();
}

describe('a state database that stops answering', () => {
  it('one that accepts connections and never answers fails every command within SCRAPEFORM_STATE_TIMEOUT', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-pg-silent-'));
    await cp(path.join(ROOT, 'examples/quickstart'), dir, { recursive: true });
    const state = `postgres://scrapeform:s3cret-word@127.0.0.1:${port}/scrapeform`;
    const env = emulatorEnv('http://127.0.0.1:9', KEY, { SCRAPEFORM_STATE_TIMEOUT: '1s' });
    try {
      for (const args of [
        ['plan'],
        ['apply', '--auto-approve', '--lock-timeout', '30s'],
        ['state', 'pull'],
      ]) {
        const run = await runBuiltCli([...args, '--state', state], { cwd: dir, env });
        expect(run.code, args.join(' ')).toBe(1);
        expect(run.stderr).toContain(
          `cannot connect to the state database postgres://scrapeform:***@127.0.0.1:${port}/scrapeform`,
        );
        expect(run.stderr).not.toContain('s3cret-word');
      }
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  }, 30_000);
});
