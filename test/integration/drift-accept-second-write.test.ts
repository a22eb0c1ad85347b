import { readFile } from 'node:fs/promises';
import type * as FsPromises from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { emulatorEnv } from '../helpers/child-cli.js';
import { runScrapeform } from '../helpers/cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { TestWorkspace } from '../helpers/workspace.js';

/** The manifest whose second write fails (a full disk between the two writes of drift --accept). */
const full = vi.hoisted(() => ({ file: '', writes: 0 }));

// The write of a manifest opens a temporary file beside it (replaceFile): the second one for `full.file` fails.
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof FsPromises>();
  return {
    ...fs,
    open: async (...args: Parameters<typeof fs.open>) => {
      const name = String(args[0]);
      if (
        full.file !== '' &&
        path.dirname(path.resolve(name)) === path.dirname(full.file) &&
        path.basename(name).startsWith(`.${path.basename(full.file)}.`) &&
        ++full.writes === 2
      )
        throw Object.assign(new Error(`ENOSPC: no space left on device, open '${name}'`), {
          code: 'ENOSPC',
          errno: -28,
          syscall: 'open',
          path: name,
        });
      return fs.open(...args);
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
  full.file = '';
  full.writes = 0;
  await h.emulator.projects.idle();
});

const TEMPLATE = `kind: ProjectTemplate
name: nightly
projectType: urls
apiParams: { country_code: us }
`;
const PROJECTS = `kind: Project
name: partners
extends: nightly
projectInput: { type: list, list: [https://books.example/catalogue/page-2.html] }
---
kind: Project
name: weekly
projectType: urls
projectInput: { type: list, list: [https://books.example/catalogue/page-3.html] }
scrapingInterval: daily
`;

describe('drift --accept whose second write of a manifest fails', () => {
  it('says the file holds the first write, with the edit that did not take, and that state was not written', async () => {
    await ws.write({ 'crawl.yaml': TEMPLATE, 'projects.yaml': PROJECTS });
    await ws.converge();
    const resources = (await ws.state()).resources;
    // partners' edit does not take (the template merges its apiParams in); weekly's does.
    await h.projects.update(Number(resources['project.partners']?.id), { apiParams: { render: true } });
    await h.projects.update(Number(resources['project.weekly']?.id), { scrapingInterval: 'hourly' });
    const stateBefore = await readFile(ws.backend.location, 'utf8');
    const file = path.join(ws.dir, 'manifests', 'projects.yaml');
    full.file = path.resolve(file);

    const run = await runScrapeform(
      ['drift', path.join(ws.dir, 'manifests'), '--state', ws.backend.location, '--accept'],
      { env: emulatorEnv(h.emulator.url, EMULATOR_KEY) },
    );
    expect(run.stderr).not.toContain('internal error');
    expect(run.stderr).toContain(
      `error: cannot write the accepted manifest to ${file}: no space left on device (ENOSPC); the file holds the edits this run wrote first, and nothing was accepted; the edit of project.partners did not take and is still written: take it out by hand, then run drift --accept again to finish\n`,
    );
    expect(run.code).toBe(1);
    expect(full.writes).toBe(2);
    // On disk: the first write, both edits.
    const onDisk = await readFile(file, 'utf8');
    expect(onDisk).toContain('scrapingInterval: hourly');
    expect(onDisk).toContain('render: true');
    expect(await readFile(ws.backend.location, 'utf8')).toBe(stateBefore);

    // With space again, accepting again finishes weekly; partners' edit, already written, still does not take.
    full.file = '';
    const again = await runScrapeform(
      ['drift', path.join(ws.dir, 'manifests'), '--state', ws.backend.location, '--accept'],
      { env: emulatorEnv(h.emulator.url, EMULATOR_KEY) },
    );
    expect(again.code, again.stderr).toBe(4);
    expect(again.stderr).toContain('accepted project.weekly');
    expect(again.stderr).toContain('not accepted: project.partners');
    expect(await readFile(file, 'utf8')).toBe(onDisk);
  });
});
