import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { loadManifests } from '../../src/manifest/load-manifests.js';
import { runWatch } from '../../src/workspace/watch-loop.js';
import type { WatchStatus } from '../../src/workspace/watch-loop.js';
import { BOOK_A, TestWorkspace } from '../helpers/workspace.js';

/**
 * Review: archiving a project, or pausing its schedule, is how a person stops what it spends. A `watch --heal` with
 * the default budget ("only free heals") made the archived project again (with `scheduledAt: now`, a paid run at
 * once) and turned the paused schedule back on, at every interval, with no one asked. Both are now left out and
 * reported (`starts-runs`); an `apply` makes them.
 */
let h: EmulatorHarness;
beforeAll(async () => {
  h = await startTestEmulator({ generationDelayMs: 5 });
});
afterAll(async () => h.emulator.close());

const NIGHTLY = `kind: Project\nname: nightly\nprojectType: urls\nprojectInput: { type: list, list: ['${BOOK_A}'] }\nscrapingInterval: hourly\nscheduledAt: now\n`;

async function healOnce(ws: TestWorkspace): Promise<{ status: WatchStatus; events: string[] }> {
  const manifests = await loadManifests({ paths: [path.join(ws.dir, 'manifests')], env: {} });
  const events: string[] = [];
  const status = await runWatch(
    { clients: ws.clients, backend: ws.backend, warnings: [], close: async () => undefined },
    {
      intervalMs: 60_000,
      maxRuns: 1,
      signal: new AbortController().signal,
      heal: { maxRegenerations: 0, loadManifests: async () => manifests },
      sleep: async () => undefined,
      onEvent: (e) => events.push(e.type),
    },
  );
  return { status, events };
}

it('a project archived outside scrapeform is not made again by a heal: left out as starting runs', async () => {
  h.emulator.reset();
  const ws = await TestWorkspace.create(h);
  await ws.write({ 'nightly.yaml': NIGHTLY });
  await ws.converge();
  const id = Number((await ws.state()).resources['project.nightly']?.id);
  await h.projects.archive(id);
  const { status, events } = await healOnce(ws);
  expect(status.notHealed).toEqual([{ address: 'project.nightly', action: 'create', reason: 'starts-runs' }]);
  expect(events).toContain('heal-left');
  // No project made again, so no run started.
  expect((await h.projects.list()).map((p) => p.id)).toEqual([]);
  expect(Number((await ws.state()).resources['project.nightly']?.id)).toBe(id);
  // An apply makes it, as the report says.
  const plan = await ws.plan();
  expect(plan.resource_changes.map((c) => [c.address, c.action])).toEqual([['project.nightly', 'create']]);
});

it('a schedule paused outside scrapeform is not turned back on by a heal; other project edits are healed', async () => {
  h.emulator.reset();
  const ws = await TestWorkspace.create(h);
  await ws.write({ 'nightly.yaml': NIGHTLY });
  await ws.converge();
  const id = Number((await ws.state()).resources['project.nightly']?.id);
  await h.projects.update(id, { schedulingEnabled: false });
  const paused = await healOnce(ws);
  expect(paused.status.notHealed).toEqual([
    { address: 'project.nightly', action: 'update', reason: 'starts-runs' },
  ]);
  expect((await h.projects.get(id))?.schedulingEnabled).toBe(false);

  await h.projects.update(id, { schedulingEnabled: true, scrapingInterval: 'daily' });
  const edited = await healOnce(ws);
  expect(edited.status.notHealed).toEqual([]);
  expect((await h.projects.get(id))?.scrapingInterval).toBe('hourly');
});
