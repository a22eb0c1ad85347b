import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifest/load-manifests.js';
import { buildPlan, projectPayload } from '../../src/plan/build-plan.js';
import { FileStateBackend } from '../../src/state/file-backend.js';
import { readLive } from '../../src/workspace/read-live.js';
import { startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';

let h: EmulatorHarness;
beforeAll(async () => {
  h = await startTestEmulator();
});
afterAll(async () => h.emulator.close());

/** Seeds the emulator and the state as a previous apply would have left them, without 1,000 generations. */
it('an unchanged workspace of 500 parsers and 500 projects plans with 2 HTTP calls', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-count-'));
  await mkdir(path.join(dir, 'm'));
  for (let i = 0; i < 500; i++) {
    await writeFile(
      path.join(dir, 'm', `p${i}.yaml`),
      `kind: Parser\nname: p${i}\nurls: [https://books.example/p/${i}.html]\nfields:\n  title: { description: Title ${i} }\n  reviews:\n    description: Reviews\n    fields:\n      author: { description: Author }\n---\nkind: Project\nname: j${i}\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/p/${i}.html] }\nscrapingInterval: hourly\n`,
    );
  }
  const loaded = await loadManifests({ paths: [path.join(dir, 'm')], env: {} });
  expect(loaded.valid).toBe(true);
  const backend = new FileStateBackend(path.join(dir, 'state.json'));
  const state = await backend.read();
  const now = h.emulator.clock.iso();
  for (const [i, parser] of loaded.parsers.entries()) {
    const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    h.emulator.parsers.parsers.set(id, {
      id,
      name: parser.name,
      account: 'test-key-7c1e',
      createdAt: now,
      urls: parser.urls,
      scraperParams: {},
      versions: [
        {
          version: 0,
          status: 'FINISHED',
          error: null,
          createdAt: now,
          generatedAt: now,
          fields: parser.fields,
          compiled: [],
          exampleResult: [],
          pages: [],
        },
      ],
    });
    state.resources[parser.address] = {
      kind: 'Parser',
      id,
      name: parser.name,
      version: 0,
      definition: { urls: parser.urls, scraperParams: parser.scraperParams, fields: parser.fields },
      descriptionsKnown: true,
    };
  }
  for (const project of loaded.projects) {
    const created = await h.projects.create({
      ...projectPayload(project),
      scheduledAt: '2099-01-01T00:00:00Z',
    });
    state.resources[project.address] = {
      kind: 'Project',
      id: created.id,
      name: project.name,
      definition: projectPayload(project),
    };
  }
  await backend.write(state);
  h.emulator.requestLog.length = 0;

  const read = await backend.read();
  const live = await readLive(
    { parsers: h.parsers, projects: h.projects, close: async () => undefined },
    loaded,
    read,
  );
  const plan = buildPlan({ parsers: loaded.parsers, projects: loaded.projects, state: read, live });
  expect(plan.status).toBe('no_changes');
  expect(h.emulator.requestLog.map((e) => `${e.method} ${e.path.split('?')[0] ?? ''}`).sort()).toEqual([
    'GET /api/projects',
    'GET /parsers',
  ]);
}, 60_000);
