import { readdir, readFile } from 'node:fs/promises';
import type * as FsPromises from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { emulatorEnv } from '../helpers/child-cli.js';
import { runScrapeform } from '../helpers/cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { bookParser, TestWorkspace } from '../helpers/workspace.js';

/** The file whose removal fails, as an open file on Windows or a folder this user may not change makes it fail. */
const busy = vi.hoisted(() => ({ file: '' }));

// chmod 0555 on the folder stops no one running as root, so the failure is made where the file is removed.
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof FsPromises>();
  return {
    ...fs,
    rm: async (...args: Parameters<typeof fs.rm>) => {
      if (busy.file !== '' && path.resolve(String(args[0])) === busy.file)
        throw Object.assign(new Error(`EBUSY: resource busy or locked, unlink '${busy.file}'`), {
          code: 'EBUSY',
          errno: -16,
          syscall: 'unlink',
          path: busy.file,
        });
      return fs.rm(...args);
    },
  };
});

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
  busy.file = '';
  await h.emulator.projects.idle();
});

describe('drift --accept of an object whose document was the only one in its file', () => {
  it('says the file could not be removed, and what it did, when the removal fails: no stack, state unchanged', async () => {
    const written = bookParser('  title: { description: Book title, selector: h1 }\n');
    await ws.write({ 'books.yaml': written });
    await ws.converge();
    await h.parsers.delete(String((await ws.state()).resources['parser.books']?.id));
    const before = await readFile(ws.backend.location, 'utf8');
    const folder = path.join(ws.dir, 'manifests');
    const file = path.join(folder, 'books.yaml');
    busy.file = path.resolve(file);

    const run = await runScrapeform(['drift', folder, '--state', ws.backend.location, '--accept'], {
      env: emulatorEnv(h.emulator.url, EMULATOR_KEY),
    });
    expect(run.stderr).not.toContain('internal error');
    expect(run.stderr).toContain(
      `error: cannot remove ${file}, whose only document was of an object deleted outside scrapeform: resource busy or locked (EBUSY); the file is unchanged, and nothing was accepted\n`,
    );
    expect(run.stderr).toContain(
      'hint: give this user the right to change that folder, or close what holds the file open',
    );
    expect(run.code).toBe(1);
    expect(await readFile(file, 'utf8')).toBe(written);
    expect(await readdir(folder)).toEqual(['books.yaml']);
    expect(await readFile(ws.backend.location, 'utf8')).toBe(before);

    // Once the file can be removed, accepting again finishes it.
    busy.file = '';
    const again = await runScrapeform(['drift', folder, '--state', ws.backend.location, '--accept'], {
      env: emulatorEnv(h.emulator.url, EMULATOR_KEY),
    });
    expect(again.code, again.stderr).toBe(0);
    expect(await readdir(folder)).toEqual([]);
    expect((await ws.state()).resources['parser.books']).toBeUndefined();
  });
});
