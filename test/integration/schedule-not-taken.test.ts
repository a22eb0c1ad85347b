import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ApiClients } from '../../src/api/create-clients.js';
import { loadManifests } from '../../src/manifest/load-manifests.js';
import { detectDrift } from '../../src/plan/drift.js';
import { readLive } from '../../src/workspace/read-live.js';
import { startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { BOOK_A, TestWorkspace } from '../helpers/workspace.js';

/*
 * A schedule the service did not take when scrapeform sent it (apply.schedule-not-taken) is no edit made outside
 * scrapeform: plan and drift say the service did not take it. The service here keeps every project scheduled, over
 * the emulator on 127.0.0.1: its answers to the create, the list and reads say schedulingEnabled true.
 */

let h: EmulatorHarness;
beforeAll(async () => {
  h = await startTestEmulator({});
});
afterAll(async () => h.emulator.close());

it('a schedule the service did not take at the create is said so by plan and drift, not "edited outside scrapeform"', async () => {
  const ws = await TestWorkspace.create(h);
  await ws.write({
    'paused.yaml': `kind: Project\nname: paused\nprojectType: urls\nprojectInput: { type: list, list: ['${BOOK_A}'] }\nschedulingEnabled: false\n`,
  });
  const scheduled = <T extends { schedulingEnabled?: unknown }>(p: T): T => ({
    ...p,
    schedulingEnabled: true,
  });
  const projects = new Proxy(h.projects, {
    get: (target, key) => {
      if (key === 'list') return async () => (await target.list()).map(scheduled);
      if (key === 'get') return async (id: number) => scheduled(await target.get(id));
      if (key === 'create' || key === 'update')
        return async (...args: unknown[]) =>
          scheduled(
            await (Reflect.get(target, key, target) as (...a: unknown[]) => Promise<object>).apply(
              target,
              args,
            ),
          );
      return Reflect.get(target, key, target) as unknown;
    },
  });
  (ws as { clients: ApiClients }).clients = { ...ws.clients, projects };

  const created = await ws.applyChanges();
  expect(created.results.map((r) => [r.address, r.ok, r.error?.code])).toEqual([
    ['project.paused', false, 'apply.schedule-not-taken'],
  ]);
  // State records the project as sent, and what the service answered for the schedule it did not take.
  expect((await ws.state()).resources['project.paused']).toMatchObject({
    definition: { schedulingEnabled: false },
    refused: { schedulingEnabled: true },
  });

  const plan = await ws.plan();
  expect(plan.drift).toEqual([]);
  expect(plan.warnings).toEqual([
    'project.paused: the service did not take schedulingEnabled = false when scrapeform last sent it, and reports schedulingEnabled = true: sent again (check the project in the ScraperAPI dashboard)',
  ]);
  expect(plan.resource_changes.map((c) => [c.address, c.action, c.reasons])).toEqual([
    ['project.paused', 'update', ['changed: schedulingEnabled']],
  ]);

  const loaded = await loadManifests({ paths: [path.join(ws.dir, 'manifests')], env: {} });
  const state = await ws.state();
  const report = detectDrift({ state, live: await readLive(ws.clients, loaded, state) });
  expect(report.drift.map((d) => [d.address, d.drift, d.message])).toEqual([
    [
      'project.paused',
      'edited',
      'the service did not take schedulingEnabled = false when scrapeform last sent it, and reports schedulingEnabled = true',
    ],
  ]);

  // The next apply sends it again and fails the same way: still not taken, never an edit made outside scrapeform.
  const again = await ws.applyChanges();
  expect(again.results.map((r) => [r.address, r.ok, r.error?.code])).toEqual([
    ['project.paused', false, 'apply.schedule-not-taken'],
  ]);
  expect((await ws.plan()).drift).toEqual([]);
});
