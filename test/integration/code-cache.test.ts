import { spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorEnv } from '../helpers/child-cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';

// The bin loads the CLI through a code cache kept in dist/cli/code-cache (src/cli/code-cache.ts). Each test runs a
// copy of the built CLI of its own, so what other tests' runs cache meanwhile does not count.
const ROOT = path.resolve(import.meta.dirname, '../..');

let work: string;
let manifests: string;

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'scrapeform-code-cache-'));
  manifests = path.join(work, 'manifests');
  await cp(path.join(ROOT, 'examples', 'quickstart'), manifests, { recursive: true });
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** A fresh copy of the package's built CLI (its dependencies through a link), with no cache yet. */
async function freshCopy(name: string): Promise<string> {
  const folder = path.join(work, name);
  await cp(path.join(ROOT, 'dist', 'cli'), path.join(folder, 'dist', 'cli'), {
    recursive: true,
    filter: (source) => !source.includes(`${path.sep}code-cache`),
  });
  await cp(path.join(ROOT, 'package.json'), path.join(folder, 'package.json'));
  await symlink(path.join(ROOT, 'node_modules'), path.join(folder, 'node_modules'), 'dir');
  return folder;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function runCopy(folder: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(folder, 'dist', 'cli', 'bin.cjs'), ...args], {
      cwd: work,
      env: { PATH: process.env.PATH ?? '', CI: 'true', SCRAPEFORM_CODE_CACHE_DEBUG: '1', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** The counts the bin reports at exit with SCRAPEFORM_CODE_CACHE_DEBUG=1. */
function tally(run: Run): { used: number; refused: number; missing: number; written: number } {
  const m = /code cache: (\d+) used, (\d+) refused, (\d+) missing, (\d+) written/.exec(run.stderr);
  if (m === null) throw new Error(`no code cache line in: ${run.stderr}`);
  return { used: Number(m[1]), refused: Number(m[2]), missing: Number(m[3]), written: Number(m[4]) };
}

const cacheOf = (folder: string): string => path.join(folder, 'dist', 'cli', 'code-cache');

describe('the code cache of the bin', () => {
  it('is made by the first run and used by the next, which says exactly the same', async () => {
    const folder = await freshCopy('made-then-used');
    const first = await runCopy(folder, ['validate', manifests]);
    expect(first.code).toBe(0);
    const made = tally(first);
    expect(made).toMatchObject({ used: 0, refused: 0 });
    expect(made.missing).toBeGreaterThan(5);
    expect(made.written).toBe(made.missing);
    const entries = await readdir(cacheOf(folder));
    expect(entries).toContain('main.cjs.cache');
    expect(entries.filter((e) => e.startsWith('chunks~')).length).toBe(made.written - 1);

    const second = await runCopy(folder, ['validate', manifests]);
    expect(tally(second)).toEqual({ used: made.written, refused: 0, missing: 0, written: 0 });
    const uncached = await runCopy(folder, ['validate', manifests], { SCRAPEFORM_CODE_CACHE: '0' });
    expect(uncached.stderr).not.toMatch(/code cache:/);
    expect(second.stdout).toBe(first.stdout);
    expect(uncached.stdout).toBe(first.stdout);
  });

  it('is not used for a file changed since, even at the same length, and is made again', async () => {
    const folder = await freshCopy('changed-source');
    expect((await runCopy(folder, ['validate', manifests])).code).toBe(0);
    // One word of the validate command's chunk changed in place: V8 itself would take the old bytecode (it checks
    // only the length).
    const chunks = path.join(folder, 'dist', 'cli', 'chunks');
    const name = (await readdir(chunks)).find((f) => f.startsWith('validate-'));
    expect(name).toBeDefined();
    const chunk = path.join(chunks, name ?? '');
    const text = await readFile(chunk, 'utf8');
    expect(text).toContain('"Valid:"');
    await writeFile(chunk, text.replace('"Valid:"', '"VALID:"'));
    const run = await runCopy(folder, ['validate', manifests]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^VALID: /);
    expect(tally(run)).toMatchObject({ missing: 1, written: 1, refused: 0 });
    expect(tally(await runCopy(folder, ['validate', manifests]))).toMatchObject({ missing: 0, written: 0 });
  });

  it('refuses an entry V8 cannot read, compiles the file as usual and writes the entry again', async () => {
    const folder = await freshCopy('corrupt-entry');
    expect((await runCopy(folder, ['validate', manifests])).code).toBe(0);
    const entry = path.join(cacheOf(folder), 'main.cjs.cache');
    const bytes = await readFile(entry);
    // The header (CRC-32 and length of the source) is kept; what follows is not V8's.
    await writeFile(entry, Buffer.concat([bytes.subarray(0, 8), Buffer.alloc(bytes.length - 8, 7)]));
    const run = await runCopy(folder, ['validate', manifests]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Valid: /);
    expect(tally(run)).toMatchObject({ refused: 1, written: 1 });
    expect(tally(await runCopy(folder, ['validate', manifests]))).toMatchObject({ refused: 0, written: 0 });
  });

  it('takes out temporary entries left by a run killed while writing, when it writes, but not one being written', async () => {
    const folder = await freshCopy('leftovers');
    expect((await runCopy(folder, ['validate', manifests])).code).toBe(0);
    const dir = cacheOf(folder);
    const left = path.join(dir, 'main.cjs.cache.4242.tmp');
    const writing = path.join(dir, 'main.cjs.cache.4343.tmp');
    await writeFile(left, 'half an entry');
    await writeFile(writing, 'an entry being written');
    const old = new Date(Date.now() - 2 * 60_000);
    await utimes(left, old, old);
    // Nothing to write: the folder is not even read.
    expect(tally(await runCopy(folder, ['validate', manifests]))).toMatchObject({ written: 0 });
    expect((await readdir(dir)).filter((n) => n.endsWith('.tmp')).sort()).toEqual([
      'main.cjs.cache.4242.tmp',
      'main.cjs.cache.4343.tmp',
    ]);
    // An entry to write (the source changed): the old leftover goes, the fresh one stays.
    const main = path.join(folder, 'dist', 'cli', 'main.cjs');
    await writeFile(main, `${await readFile(main, 'utf8')}\n`);
    expect(tally(await runCopy(folder, ['validate', manifests]))).toMatchObject({ written: 1 });
    expect((await readdir(dir)).filter((n) => n.endsWith('.tmp'))).toEqual(['main.cjs.cache.4343.tmp']);
  });

  it("stays usable after an apply, which tunes V8's flags for its calls and puts them back before the cache is written", async () => {
    // V8 keys cached code by its flags (src/cli/v8-flags.ts): entries written under the flag apply tunes for its
    // calls would be refused by the next run's start.
    const folder = await freshCopy('after-apply');
    const { emulator } = await startTestEmulator();
    try {
      const env = { ...emulatorEnv(emulator.url, EMULATOR_KEY), SCRAPEFORM_CODE_CACHE_DEBUG: '1' } as Record<
        string,
        string
      >;
      const state = path.join(work, 'after-apply.state.json');
      const applied = await runCopy(folder, ['apply', manifests, '--auto-approve', '--state', state], env);
      expect(applied.code, applied.stderr).toBe(0);
      expect(applied.stdout).toMatch(/create/);
      expect(tally(applied)).toMatchObject({ used: 0, refused: 0 });
      const next = await runCopy(folder, ['apply', manifests, '--auto-approve', '--state', state], env);
      expect(next.code, next.stderr).toBe(0);
      expect(tally(next)).toMatchObject({ refused: 0, missing: 0, written: 0 });
      expect(tally(next).used).toBeGreaterThan(0);
    } finally {
      await emulator.close();
    }
  });

  it('writes nothing with SCRAPEFORM_CODE_CACHE=0', async () => {
    const folder = await freshCopy('off');
    const run = await runCopy(folder, ['validate', manifests], { SCRAPEFORM_CODE_CACHE: '0' });
    expect(run.code).toBe(0);
    await expect(readdir(cacheOf(folder))).rejects.toThrow(/ENOENT/);
  });

  it("keeps a module's dynamic imports working when it comes from the cache (pg for a database state)", async () => {
    const folder = await freshCopy('dynamic-import');
    const args = ['plan', manifests, '--state', 'postgres://scrapeform@127.0.0.1:1/none'];
    const env = {
      SCRAPERAPI_API_KEY: 'code-cache-test-key-0123456789',
      SCRAPEFORM_STATE_TIMEOUT: '2s',
    };
    for (const round of ['made', 'used']) {
      const run = await runCopy(folder, args, env);
      // The state database refuses the connection: a state error (exit 1), not an internal error about the loader.
      expect(run.code, round).toBe(1);
      expect(run.stderr, round).toMatch(/state/i);
      expect(run.stderr, round).toMatch(/cannot connect to the state database .*ECONNREFUSED/);
      expect(run.stderr, round).not.toMatch(/dynamic import|internal error|Warning/);
    }
  });
});
