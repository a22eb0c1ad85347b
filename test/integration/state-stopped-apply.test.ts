import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type * as fsPromises from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmulator } from '../../src/emulator/server.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { runScrapeform } from '../helpers/cli.js';

/**
 * A state write that fails mid-apply: `full` fills the disk under the state (every later write of its temporary
 * file fails with ENOSPC); `fullFor` fails the writes of the state texts it picks; `taken` hands the lock to another
 * run (the lock file names another holder from then on).
 */
const disk = vi.hoisted(() => ({
  full: undefined as undefined | (() => boolean),
  fullFor: undefined as undefined | ((text: string) => boolean),
  taken: undefined as undefined | (() => boolean),
}));

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof fsPromises>();
  const open: typeof real.open = async (file, flags, mode) => {
    const handle = await real.open(file, flags, mode);
    if (!/state\.json\.\d+\.[0-9a-f]{8}\.tmp$/.test(String(file))) return handle;
    const full = disk.full?.() === true;
    const write = handle.writeFile.bind(handle);
    handle.writeFile = (data, options) =>
      full || disk.fullFor?.(String(data)) === true
        ? Promise.reject(
            Object.assign(new Error(`ENOSPC: no space left on device, write`), {
              code: 'ENOSPC',
              syscall: 'write',
            }),
          )
        : write(data, options);
    return handle;
  };
  const readFile = (async (file: Parameters<typeof real.readFile>[0], options?: unknown) => {
    if (String(file).endsWith('state.json.lock') && disk.taken?.() === true)
      return JSON.stringify({
        id: 'another-run',
        holder: 'ci@elsewhere',
        host: 'elsewhere',
        pid: 4242,
        operation: 'apply',
        started: '2026-11-27T00:00:00.000Z',
      });
    return real.readFile(file, options as Parameters<typeof real.readFile>[1]);
  }) as typeof real.readFile;
  return { ...real, open, readFile, default: { ...real, open, readFile } };
});

const KEY = 'state-stopped-key';
const PARSERS = 4;
let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator({ apiKeys: [KEY], generationDelayMs: 30 });
});
afterAll(async () => {
  await emulator.close();
});

/**
 * With --max-generating 1 a create waits for the generation before it: made long, the write that fails (one write
 * window after the first create) always comes before the second POST, whatever the machine's load (at 30 ms, a
 * loaded CI machine once sent all four first).
 */
async function slowGenerations<T>(work: () => Promise<T>): Promise<T> {
  emulator.setFaults({ generationDelayMs: 2_000 });
  try {
    return await work();
  } finally {
    emulator.setFaults({ generationDelayMs: null });
  }
}

/** A folder of PARSERS parser manifests, each named with `prefix`. */
async function workspace(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-statestopped-'));
  for (let i = 0; i < PARSERS; i++)
    await writeFile(
      path.join(dir, `p${i}.yaml`),
      `kind: Parser\nname: ${prefix}${i}\nurls: [https://books.example/catalogue/page-1.html]\nfields:\n  heading: { description: Page heading, selector: h1 }\n`,
    );
  return dir;
}

const env = (): Record<string, string> => ({
  SCRAPERAPI_API_KEY: KEY,
  SCRAPEFORM_PARSER_URL: emulator.url,
  SCRAPEFORM_PIPELINE_URL: emulator.url,
  SCRAPEFORM_POLL_INTERVAL: '20ms',
});

/** The names of the live parsers starting with `prefix`. */
const created = (prefix: string): string[] =>
  [...emulator.parsers.parsers.values()]
    .map((p) => p.name)
    .filter((name) => name.startsWith(prefix))
    .sort();

interface Doc {
  status: string;
  results: {
    address: string;
    ok: boolean;
    skipped?: boolean;
    calls: { method: string; path: string; status: number }[];
    error?: { code: string; message: string };
  }[];
  error?: { code: string; message: string; hint?: string; unrecorded?: string[] };
}

describe('apply stopped by a state write that failed', () => {
  it('apply --json still prints its result: what was sent, what was not started, and the error', async () => {
    const dir = await workspace('j');
    // The intents go to disk before the first POST; every write after it fails. One generation at a time, so
    // the failed write comes before the last creates.
    disk.full = () => created('j').length > 0;
    const run = await slowGenerations(() =>
      runScrapeform(['--chdir', dir, 'apply', '--auto-approve', '--json', '--max-generating', '1'], {
        env: env(),
      }),
    ).finally(() => (disk.full = undefined));
    expect(run.code).toBe(1);
    const landed = created('j').map((name) => `parser.${name}`);
    expect(landed.length).toBeGreaterThan(0);
    expect(landed.length).toBeLessThan(PARSERS);
    const all = Array.from({ length: PARSERS }, (_, i) => `parser.j${i}`);
    const neverSent = all.filter((address) => !landed.includes(address));
    // The error is still on stderr, as before.
    const error = run.stderr.slice(run.stderr.indexOf('error: ') + 'error: '.length).split('\n')[0] ?? '';
    expect(error).toContain(
      'cannot write the state file .scrapeform/state.json: no space left on the device',
    );
    expect(run.stdout, run.stderr).not.toBe('');
    const doc = JSON.parse(run.stdout) as Doc;
    expect(doc.status).toBe('failed');
    // Every change of the plan, in plan order.
    expect(doc.results.map((r) => r.address)).toEqual(all);
    for (const r of doc.results) {
      if (landed.includes(r.address)) {
        // Its create was sent and answered: the call is listed, though state could not record it.
        expect(r.calls).toEqual([expect.objectContaining({ method: 'POST', status: 201 })]);
        expect(r.skipped).toBeUndefined();
      } else {
        expect(r).toMatchObject({
          ok: false,
          skipped: true,
          calls: [],
          error: { code: 'state.io', message: 'not started: state could not be written' },
        });
      }
    }
    expect(doc.error).toEqual({
      code: 'state.io',
      message: error,
      hint: 'free space on that disk, then run the command again',
      unrecorded: landed,
    });
    expect(error).toContain(`not started, nothing sent: ${neverSent.join(', ')}`);
  });

  it('apply --json lists every change as not started when the write before the first call fails', async () => {
    const dir = await workspace('e');
    disk.full = () => true;
    const run = await runScrapeform(['--chdir', dir, 'apply', '--auto-approve', '--json'], {
      env: env(),
    }).finally(() => (disk.full = undefined));
    expect(run.code).toBe(1);
    expect(created('e')).toEqual([]);
    const doc = JSON.parse(run.stdout) as Doc;
    expect(doc.status).toBe('failed');
    expect(doc.results).toEqual(
      Array.from({ length: PARSERS }, (_, i) => ({
        address: `parser.e${i}`,
        action: 'create',
        ok: false,
        skipped: true,
        calls: [],
        id: null,
        error: { code: 'state.io', message: 'not started: state could not be written' },
      })),
    );
    expect(doc.error).toEqual({
      code: 'state.io',
      // Every change named as not started, as when a later write fails (the write before the first call left
      // them out, as it named them before adding them).
      message:
        'cannot write the state file .scrapeform/state.json: no space left on the device (ENOSPC); the state was not changed; apply stopped; not started, nothing sent: parser.e0, parser.e1, parser.e2, parser.e3',
      hint: 'free space on that disk, then run the command again',
    });
    expect(run.stderr).toContain(`error: ${doc.error?.message}\n`);
  });

  it('apply prints its summary and writes --markdown-report with what was done before the stop, and the error', async () => {
    const dir = await workspace('m');
    const report = path.join(dir, 'report.md');
    disk.full = () => created('m').length > 0;
    const run = await slowGenerations(() =>
      runScrapeform(
        ['--chdir', dir, 'apply', '--auto-approve', '--max-generating', '1', '--markdown-report', report],
        { env: env() },
      ),
    ).finally(() => (disk.full = undefined));
    expect(run.code).toBe(1);
    const all = Array.from({ length: PARSERS }, (_, i) => `parser.m${i}`);
    const landed = created('m').map((name) => `parser.${name}`);
    expect(landed.length).toBeGreaterThan(0);
    expect(landed.length).toBeLessThan(PARSERS);
    const neverSent = all.filter((address) => !landed.includes(address));
    const ids = new Map([...emulator.parsers.parsers.values()].map((p) => [`parser.${p.name}`, p.id]));
    // The changes whose own result the failed write ended, as the progress log says.
    const failed = landed.filter((address) => run.stderr.includes(`${address}  failed: `));
    const applied = landed.filter((address) => !failed.includes(address));
    const written =
      'cannot write the state file .scrapeform/state.json: no space left on the device (ENOSPC); the state was not changed';
    const hint = 'free space on that disk, then run the command again';
    const error = run.stderr.slice(run.stderr.indexOf('error: ') + 'error: '.length).split('\n')[0] ?? '';
    expect(error).toContain(`${written}; apply stopped: state does not hold all it did for `);
    const counts = `${applied.length} applied, ${neverSent.length} not started, ${failed.length} failed`;
    expect(run.stdout.slice(run.stdout.indexOf('\nApply '))).toBe(
      [
        '',
        `Apply stopped by a state error: ${counts}.`,
        ...applied.map((address) => `  ✓ ${address} create ${ids.get(address)} version 0`),
        // Its generation was not waited out: nothing the wait would see could be recorded.
        ...failed.map(
          (address) =>
            `  ✗ ${address} create ${ids.get(address)}: not waited for: state could not be written while version 0 of parser ${ids.get(address)} was generating`,
        ),
        ...neverSent.map((address) => `  - ${address} create: not started`),
        `State does not hold all it did for ${landed.join(', ')}: the next apply reads ${landed.length === 1 ? 'it' : 'them'} again.`,
        '',
      ].join('\n'),
    );
    const row = (address: string): string =>
      applied.includes(address)
        ? `| \`${address}\` | create | ok \`${ids.get(address)}\` version 0 |`
        : failed.includes(address)
          ? `| \`${address}\` | create | failed \`${ids.get(address)}\`: \`not waited for: state could not be written while version 0 of parser ${ids.get(address)} was generating\` |`
          : `| \`${address}\` | create | not started |`;
    expect(await readFile(report, 'utf8')).toBe(
      [
        '### scrapeform apply: stopped by a state error',
        '',
        `${counts}.`,
        '',
        `- **Error** \`state.io\`: ${error}`,
        `- **Hint:** ${hint}`,
        '',
        '| object | action | result |',
        '| --- | --- | --- |',
        ...all.map(row),
        '',
      ].join('\n'),
    );
    // The error is still the last thing on stderr, after the report was written.
    expect(run.stderr).toContain(`Wrote the apply report to ${report}\nerror: ${error}\n  hint: ${hint}\n`);
  });

  it('apply --json prints its empty result with the error when a plan of no changes cannot record the protection', async () => {
    const dir = await workspace('z');
    const first = await runScrapeform(['--chdir', dir, 'apply', '--auto-approve'], { env: env() });
    expect(first.code, first.stderr).toBe(0);
    // Protection is recorded in state with no call: the plan has no changes, only that write to make.
    const manifest = path.join(dir, 'p0.yaml');
    await writeFile(manifest, `${await readFile(manifest, 'utf8')}lifecycle: { prevent_destroy: true }\n`);
    const before = emulator.requestLog.length;
    disk.full = () => true;
    const run = await runScrapeform(['--chdir', dir, 'apply', '--auto-approve', '--json'], {
      env: env(),
    }).finally(() => (disk.full = undefined));
    expect(run.code).toBe(1);
    expect(emulator.requestLog.slice(before).filter((e) => e.method !== 'GET')).toEqual([]);
    const message =
      'cannot write the state file .scrapeform/state.json: no space left on the device (ENOSPC); the state was not changed';
    const hint = 'free space on that disk, then run the command again';
    expect(run.stderr).toContain(`error: ${message}\n  hint: ${hint}\n`);
    expect(JSON.parse(run.stdout)).toEqual({
      status: 'failed',
      results: [],
      checks: [],
      result_changes: [],
      error: { code: 'state.io', message, hint },
    });
    // State still holds the parsers, unprotected: the next apply records the protection.
    const state = JSON.parse(await readFile(path.join(dir, '.scrapeform/state.json'), 'utf8')) as {
      resources: Record<string, { preventDestroy?: true }>;
    };
    expect(state.resources['parser.z0']?.preventDestroy).toBeUndefined();
  });

  it('apply with --markdown-report says nothing was sent when the write before the first call fails', async () => {
    const dir = await workspace('n');
    const report = path.join(dir, 'report.md');
    disk.full = () => true;
    const run = await runScrapeform(
      ['--chdir', dir, 'apply', '--auto-approve', '--markdown-report', report],
      {
        env: env(),
      },
    ).finally(() => (disk.full = undefined));
    expect(run.code).toBe(1);
    expect(created('n')).toEqual([]);
    const all = Array.from({ length: PARSERS }, (_, i) => `parser.n${i}`);
    const error = `cannot write the state file .scrapeform/state.json: no space left on the device (ENOSPC); the state was not changed; apply stopped; not started, nothing sent: parser.n0, parser.n1, parser.n2, parser.n3`;
    expect(run.stdout.slice(run.stdout.indexOf('\nApply '))).toBe(
      [
        '',
        `Apply stopped by a state error: 0 applied, ${PARSERS} not started, 0 failed.`,
        ...all.map((address) => `  - ${address} create: not started`),
        '',
      ].join('\n'),
    );
    expect(await readFile(report, 'utf8')).toBe(
      [
        '### scrapeform apply: stopped by a state error',
        '',
        `0 applied, ${PARSERS} not started, 0 failed.`,
        '',
        `- **Error** \`state.io\`: ${error}`,
        '- **Hint:** free space on that disk, then run the command again',
        '',
        '| object | action | result |',
        '| --- | --- | --- |',
        ...all.map((address) => `| \`${address}\` | create | not started |`),
        '',
      ].join('\n'),
    );
    expect(run.stderr).toContain(`error: ${error}\n`);
  });

  it('a --markdown-report that cannot be written when a state error stopped apply is a warning before that error', async () => {
    const dir = await workspace('w');
    const report = path.join(dir, 'missing', 'report.md');
    disk.full = () => true;
    const run = await runScrapeform(
      ['--chdir', dir, 'apply', '--auto-approve', '--markdown-report', report],
      {
        env: env(),
      },
    ).finally(() => (disk.full = undefined));
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `\nApply stopped by a state error: 0 applied, ${PARSERS} not started, 0 failed.\n`,
    );
    expect(run.stderr).toContain(
      `warning: cannot write the apply report to ${report}: no such file or directory (ENOENT); apply stopped on the error below\nerror: cannot write the state file .scrapeform/state.json: no space left on the device (ENOSPC); the state was not changed`,
    );
  });

  it('apply --json prints its result when the write recording an adopted object with its protection fails', async () => {
    const dir = await workspace('q');
    // parser.q0 goes live under another state; this one adopts it, protected, and creates the others.
    await runScrapeform(['--chdir', dir, 'apply', '--auto-approve', '--target', 'parser.q0'], { env: env() });
    await rm(path.join(dir, '.scrapeform'), { recursive: true });
    const manifest = path.join(dir, 'p0.yaml');
    await writeFile(
      manifest,
      `${await readFile(manifest, 'utf8')}adopt: true\nlifecycle: { prevent_destroy: true }\n`,
    );
    // The intents of the creates go through; the adoption is written with its protection, and that write fails.
    disk.fullFor = (text) => text.includes('"preventDestroy":true');
    const run = await runScrapeform(['--chdir', dir, 'apply', '--auto-approve', '--json'], {
      env: env(),
    }).finally(() => (disk.fullFor = undefined));
    expect(run.code).toBe(1);
    const all = Array.from({ length: PARSERS }, (_, i) => `parser.q${i}`);
    const landed = created('q')
      .map((name) => `parser.${name}`)
      .filter((address) => address !== 'parser.q0');
    const message =
      'cannot write the state file .scrapeform/state.json: no space left on the device (ENOSPC); the state was not changed';
    const error = run.stderr.slice(run.stderr.indexOf('error: ') + 'error: '.length).split('\n')[0] ?? '';
    expect(error.startsWith(`${message}; apply stopped`), error).toBe(true);
    expect(run.stderr).toContain(
      `error: ${error}\n  hint: free space on that disk, then run the command again\n`,
    );
    expect(run.stdout, run.stderr).not.toBe('');
    const doc = JSON.parse(run.stdout) as Doc;
    expect(doc.status).toBe('failed');
    expect(doc.results.map((r) => r.address)).toEqual(all);
    expect(doc.results[0]).toMatchObject({ address: 'parser.q0', action: 'adopt', calls: [] });
    for (const r of doc.results.slice(1))
      if (landed.includes(r.address)) expect(r.calls).toEqual([expect.objectContaining({ method: 'POST' })]);
      else expect(r).toMatchObject({ skipped: true, calls: [] });
    expect(doc.error).toEqual({
      code: 'state.io',
      message: error,
      hint: 'free space on that disk, then run the command again',
      ...(landed.length > 0 ? { unrecorded: landed } : {}),
    });
    // The adopted parser was never recorded without its protection: state does not hold it at all.
    const state = JSON.parse(await readFile(path.join(dir, '.scrapeform/state.json'), 'utf8')) as {
      resources: Record<string, unknown>;
    };
    expect(state.resources['parser.q0']).toBeUndefined();
  });

  it('apply --json lists every change as not started when the write before the intents fails', async () => {
    const dir = await workspace('r');
    await runScrapeform(['--chdir', dir, 'apply', '--auto-approve', '--target', 'parser.r0'], { env: env() });
    // parser.r0 is protected from now on, recorded before any call; the others are created.
    const manifest = path.join(dir, 'p0.yaml');
    await writeFile(manifest, `${await readFile(manifest, 'utf8')}lifecycle: { prevent_destroy: true }\n`);
    disk.full = () => true;
    const run = await runScrapeform(['--chdir', dir, 'apply', '--auto-approve', '--json'], {
      env: env(),
    }).finally(() => (disk.full = undefined));
    expect(run.code).toBe(1);
    expect(created('r')).toEqual(['r0']);
    // Named as not started, as when the write of the intents fails.
    const message =
      'cannot write the state file .scrapeform/state.json: no space left on the device (ENOSPC); the state was not changed; apply stopped; not started, nothing sent: parser.r1, parser.r2, parser.r3';
    expect(run.stderr).toContain(`error: ${message}\n`);
    expect(run.stdout, run.stderr).not.toBe('');
    const doc = JSON.parse(run.stdout) as Doc;
    expect(doc.status).toBe('failed');
    expect(doc.results).toEqual(
      Array.from({ length: PARSERS - 1 }, (_, i) => ({
        address: `parser.r${i + 1}`,
        action: 'create',
        ok: false,
        skipped: true,
        calls: [],
        id: null,
        error: { code: 'state.io', message: 'not started: state could not be written' },
      })),
    );
    expect(doc.error).toEqual({
      code: 'state.io',
      message,
      hint: 'free space on that disk, then run the command again',
    });
  });

  it('a lock taken over by another run mid-apply names what was sent and not recorded, and what was not started', async () => {
    const dir = await workspace('l');
    disk.taken = () => created('l').length > 0;
    const run = await slowGenerations(() =>
      runScrapeform(['--chdir', dir, 'apply', '--auto-approve', '--max-generating', '1'], {
        env: env(),
      }),
    ).finally(() => (disk.taken = undefined));
    expect(run.code).toBe(1);
    const landed = created('l').map((name) => `parser.${name}`);
    // The run ended without waiting the generation out: nothing it would see could be recorded.
    expect(
      [...emulator.parsers.parsers.values()]
        .filter((p) => p.name.startsWith('l'))
        .map((p) => p.versions.map((v) => v.status)),
    ).toEqual([['GENERATING']]);
    expect(landed.length).toBeGreaterThan(0);
    expect(landed.length).toBeLessThan(PARSERS);
    const neverSent = Array.from({ length: PARSERS }, (_, i) => `parser.l${i}`).filter(
      (address) => !landed.includes(address),
    );
    const error = run.stderr.slice(run.stderr.indexOf('error: '));
    expect(error).toBe(
      `error: the state lock of .scrapeform/state.json is no longer held by this run (now held by ci@elsewhere (pid 4242, apply, since 2026-11-27T00:00:00.000Z, lock id another-run)): the state was not written; apply stopped: state does not hold all it did for ${landed.map((address) => `${address} (create)`).join(', ')}, which the next apply reads again (a create not recorded is found by name); not started, nothing sent: ${neverSent.join(', ')}\n  hint: someone ran force-unlock while this run was active; check what it did with plan, then apply again\n`,
    );
  });
});
