import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BUILT_CLI, emulatorEnv, runBuiltCli } from '../helpers/child-cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { bookParser, TestWorkspace } from '../helpers/workspace.js';

let h: EmulatorHarness;
let ws: TestWorkspace;
beforeAll(async () => {
  h = await startTestEmulator({ generationDelayMs: 5 });
});
afterAll(async () => h.emulator.close());
beforeEach(async () => {
  h.emulator.reset();
  ws = await TestWorkspace.create(h);
});
afterEach(async () => {
  await h.emulator.projects.idle();
});

/** More than the 1 KiB the child may write (`ulimit -f 1`): a write fails with EFBIG midway, as on a full disk. */
const FIELDS = Array.from(
  { length: 40 },
  (_, i) => `  f${i}: { description: Field number ${i} of the book page, selector: 'td.f${i}' }\n`,
).join('');

/** The built CLI with files limited to 1 KiB. */
function limited(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', 'ulimit -f 1; exec "$0" "$@"', process.execPath, BUILT_CLI, ...args], {
      env: emulatorEnv(h.emulator.url, EMULATOR_KEY),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('commands that rewrite manifests write each file whole or not at all', () => {
  it('drift --accept leaves a manifest as it was when its write fails midway, and state too', async () => {
    const written = bookParser(FIELDS);
    await ws.write({ 'books.yaml': written });
    await ws.converge();
    const parser = String((await ws.state()).resources['parser.books']?.id);
    await h.parsers.update(parser, 0, { rename_fields: [{ name: 'f0', new_name: 'first' }] });
    const before = await readFile(ws.backend.location, 'utf8');
    const folder = path.join(ws.dir, 'manifests');
    const file = path.join(folder, 'books.yaml');

    const run = await limited(['drift', folder, '--state', ws.backend.location, '--accept']);
    // The manifest was cut to its first 1024 bytes: the next plan would plan removing every field cut off.
    expect(await readFile(file, 'utf8')).toBe(written);
    expect(await readFile(ws.backend.location, 'utf8')).toBe(before);
    expect(run.code).toBe(1);
    expect(run.stderr).not.toContain('internal error');
    expect(run.stderr).toContain(
      `error: cannot write the accepted manifest to ${file}: file too large (EFBIG); the file is unchanged, and nothing was accepted\n`,
    );
    expect(await readdir(folder)).toEqual(['books.yaml']);
  });

  it('import leaves no manifest cut short, nor any, when a write fails midway, and records nothing', async () => {
    const fields = Array.from({ length: 40 }, (_, i) => ({
      name: `f${i}`,
      description: `Field number ${i} of the book page`,
      selector: `td.f${i}`,
    }));
    // A small one first, written whole before the write that fails: it goes too, having no state.
    const small = await h.raw('POST', '/parsers', {
      api_key: EMULATOR_KEY,
      name: 'authors',
      urls: ['https://books.example/catalogue/page-2.html'],
      fields: [{ name: 'name', description: 'Author name', selector: 'h1' }],
    });
    expect(small.status).toBeLessThan(300);
    const created = await h.raw('POST', '/parsers', {
      api_key: EMULATOR_KEY,
      name: 'books',
      urls: ['https://books.example/catalogue/page-1.html'],
      fields,
    });
    expect(created.status).toBeLessThan(300);
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-manifest-writes-'));
    const out = path.join(dir, 'imported');
    const stateFile = path.join(dir, 'state.json');

    const run = await limited(['import', '--out', out, '--state', stateFile]);
    expect(run.code).toBe(1);
    expect(run.stderr).not.toContain('internal error');
    expect(run.stderr).toContain(
      `error: cannot write the imported manifest to ${path.join(out, 'parser-books.yaml')}: file too large (EFBIG); nothing was imported\n`,
    );
    // A manifest left without its state: the next plan would create the live parser again.
    expect(await readdir(out).catch(() => [])).toEqual([]);
    expect(await readdir(dir)).not.toContain('state.json');
  });

  it('import gives a manifest it writes the mode any new file gets, as a plain write did', async () => {
    const created = await h.raw('POST', '/parsers', {
      api_key: EMULATOR_KEY,
      name: 'authors',
      urls: ['https://books.example/catalogue/page-2.html'],
      fields: [{ name: 'name', description: 'Author name', selector: 'h1' }],
    });
    expect(created.status).toBeLessThan(300);
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-manifest-writes-'));
    const out = path.join(dir, 'imported');
    const run = await runBuiltCli(['import', '--out', out, '--state', path.join(dir, 'state.json')], {
      cwd: dir,
      env: emulatorEnv(h.emulator.url, EMULATOR_KEY),
    });
    expect(run.code, run.stderr).toBe(0);
    await writeFile(path.join(dir, 'plain.txt'), '');
    expect((await stat(path.join(out, 'parser-authors.yaml'))).mode & 0o777).toBe(
      (await stat(path.join(dir, 'plain.txt'))).mode & 0o777,
    );
    expect(await readdir(out)).toEqual(['parser-authors.yaml']);
  });
});
