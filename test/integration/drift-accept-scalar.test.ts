import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { emulatorEnv } from '../helpers/child-cli.js';
import { runScrapeform } from '../helpers/cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { TestWorkspace } from '../helpers/workspace.js';

let h: EmulatorHarness;
beforeAll(async () => {
  h = await startTestEmulator();
});
afterAll(async () => h.emulator.close());

// A manifest indented by four whose webhook is written `null`: a webhook set by hand was accepted by writing the
// whole document in the yaml library's layout (indented by two, `[ … ]`, the key's comment gone).
it('drift --accept of a webhook set by hand where the manifest says null: only that value is written, and the next plan is empty', async () => {
  const ws = await TestWorkspace.create(h);
  const manifest = [
    'kind: Project # nightly',
    'name: crawl',
    'projectType: urls',
    'projectInput:',
    '    type: list',
    '    list: [https://books.example/catalogue/page-2.html]   # pages',
    'webhookOutput: null # none yet',
    'scrapingInterval: daily',
    '',
  ].join('\n');
  await ws.write({ 'crawl.yaml': manifest });
  await ws.converge();
  const id = Number((await ws.state()).resources['project.crawl']?.id);
  await h.projects.update(id, { webhookOutput: { url: 'https://hooks.example/in' } });

  const env = emulatorEnv(h.emulator.url, EMULATOR_KEY);
  const folder = path.join(ws.dir, 'manifests');
  const accepted = await runScrapeform(['drift', folder, '--state', ws.backend.location, '--accept'], {
    env,
  });
  expect(accepted.code, accepted.stderr).toBe(0);
  expect(await readFile(path.join(folder, 'crawl.yaml'), 'utf8')).toBe(
    manifest.replace(
      'webhookOutput: null # none yet\n',
      'webhookOutput: # none yet\n    url: https://hooks.example/in\n',
    ),
  );
  const next = await ws.plan();
  expect([next.status, next.drift]).toEqual(['no_changes', []]);
  await h.emulator.projects.idle();
});
