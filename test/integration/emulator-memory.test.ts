import { afterEach, describe, expect, it } from 'vitest';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';

// What the emulator keeps per request beyond the objects it was asked to make: counted in entries, not bytes.

let h: EmulatorHarness | undefined;
const q = `api_key=${EMULATOR_KEY}`;

afterEach(async () => {
  await h?.emulator.close();
  h = undefined;
});

async function createProject(harness: EmulatorHarness): Promise<number> {
  const created = await harness.raw('POST', `/api/projects?${q}`, {
    projectInput: { type: 'list', list: [] },
  });
  expect(created.status).toBe(201);
  return (created.body as { id: number }).id;
}

describe('emulator memory per request', () => {
  it('a PATCH that leaves the next run where it was adds no timer', async () => {
    h = await startTestEmulator();
    const id = await createProject(h);
    await h.emulator.projects.idle();
    const pending = h.emulator.clock.pending;
    for (let i = 0; i < 50; i++) {
      const patched = await h.raw('PATCH', `/api/projects/${id}?${q}`, { name: `renamed ${i}` });
      expect(patched.status).toBe(200);
    }
    expect(h.emulator.clock.pending).toBe(pending);
  });

  it('a PATCH that moves the next run replaces its timer: 100 moves keep one, and one run falls due', async () => {
    h = await startTestEmulator();
    const id = await createProject(h);
    await h.emulator.projects.idle();
    const pending = h.emulator.clock.pending;
    const start = h.emulator.clock.now() + 3_600_000;
    for (let i = 0; i < 100; i++) {
      const scheduledAt = new Date(start + (i % 2 === 0 ? i : 200 - i) * 60_000).toISOString();
      const patched = await h.raw('PATCH', `/api/projects/${id}?${q}`, { scheduledAt });
      expect(patched.status).toBe(200);
    }
    expect(h.emulator.clock.pending).toBe(pending);
    const jobsBefore = h.emulator.projects.jobs.size;
    h.emulator.clock.advance(4 * 3_600_000);
    expect(h.emulator.projects.jobs.size).toBe(jobsBefore + 1);
  });

  it('archiving a project drops its scheduled run: no timer is left for it and no job is made when it falls due', async () => {
    h = await startTestEmulator();
    const pending = h.emulator.clock.pending;
    const created = await h.raw('POST', `/api/projects?${q}`, {
      projectInput: { type: 'list', list: [] },
      scrapingInterval: 'hourly',
      scheduledAt: new Date(h.emulator.clock.now() + 3_600_000).toISOString(),
    });
    expect(created.status).toBe(201);
    const id = (created.body as { id: number }).id;
    expect(h.emulator.clock.pending).toBe(pending + 1);
    expect((await h.raw('DELETE', `/api/projects/${id}?${q}`)).status).toBe(204);
    expect(h.emulator.clock.pending).toBe(pending);
    h.emulator.clock.advance(3 * 3_600_000);
    expect([...h.emulator.projects.jobs.values()].filter((j) => j.projectId === id)).toEqual([]);
    expect(h.emulator.clock.pending).toBe(pending);
  });

  it('a reset after many creates leaves no timer, project, job or logged request', async () => {
    h = await startTestEmulator();
    for (let i = 0; i < 50; i++) await createProject(h);
    await h.emulator.projects.idle();
    expect(h.emulator.clock.pending).toBeGreaterThan(0);
    expect((await h.raw('POST', '/_emulator/reset')).status).toBe(200);
    expect(h.emulator.clock.pending).toBe(0);
    expect(h.emulator.projects.projects.size).toBe(0);
    expect(h.emulator.projects.jobs.size).toBe(0);
    expect(h.emulator.requestLog.length).toBe(0);
  });
});
