import { getEventListeners } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { until } from '../helpers/until.js';

/** The queued-jobs quirk: a job started is listed Queued for jobQueuedMs of emulated time before it runs. */
const q = `api_key=${EMULATOR_KEY}`;
const QUEUED_MS = 600_000;

const open: EmulatorHarness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.emulator.close();
});

async function start(jobQueuedMs: number, dataDir?: string): Promise<EmulatorHarness> {
  const h = await startTestEmulator({
    quirks: ['queued-jobs'],
    quirkSettings: { jobQueuedMs },
    ...(dataDir !== undefined ? { dataDir } : {}),
  });
  open.push(h);
  return h;
}

/** A project of no inputs that runs now: its job ends as soon as it runs. */
async function startedProject(h: EmulatorHarness): Promise<number> {
  const created = await h.raw('POST', `/api/projects?${q}`, {
    projectInput: { type: 'list', list: [] },
    scheduledAt: 'now',
  });
  expect(created.status).toBe(201);
  const id = (created.body as { id: number }).id;
  await until(`a job of project ${id} is listed`, () =>
    [...h.emulator.projects.jobs.values()].some((j) => j.projectId === id),
  );
  return id;
}

describe('emulator quirk queued-jobs', () => {
  it('lists a job Queued, refuses its cancel, then runs it once jobQueuedMs passed, its startedAt then', async () => {
    const h = await start(QUEUED_MS);
    const id = await startedProject(h);
    const listed = (await h.raw('GET', `/api/projects/${id}/jobs?${q}`)).body as {
      id: number;
      status: string;
    }[];
    expect(listed.map((j) => [j.id, j.status])).toEqual([[1, 'Queued']]);
    expect(await h.raw('DELETE', `/api/projects/${id}/jobs/1?${q}`)).toMatchObject({
      status: 400,
      body: { error: 'job 1 is not running (Queued)' },
    });
    const queuedAt = Date.parse(h.emulator.projects.jobs.get(1)?.startedAt ?? '');
    h.emulator.clock.advance(QUEUED_MS);
    await h.emulator.projects.idle();
    const job = h.emulator.projects.jobs.get(1);
    expect(job?.status).toBe('Finished');
    expect(Date.parse(job?.startedAt ?? '') - queuedAt).toBeGreaterThanOrEqual(QUEUED_MS);
  });

  // Review: each queued job added a listener to the clock's stop signal and never took it off.
  it('leaves nothing on the clock once the jobs ran', async () => {
    const h = await start(50);
    const listeners = getEventListeners(h.emulator.clock.stopped, 'abort').length;
    for (let i = 0; i < 12; i++) await startedProject(h);
    await h.emulator.projects.idle();
    expect([...h.emulator.projects.jobs.values()].map((j) => j.status)).toEqual(Array(12).fill('Finished'));
    expect(getEventListeners(h.emulator.clock.stopped, 'abort').length).toBe(listeners);
  });

  // Review: a reset dropped the job's timer with the others, and its wait never ended: idle() hung until close.
  it('a reset drops a Queued job, and the emulator is idle at once', async () => {
    const h = await start(QUEUED_MS);
    await startedProject(h);
    h.emulator.reset();
    await h.emulator.projects.idle();
    expect(h.emulator.projects.jobs.size).toBe(0);
  });

  it('closed with a job Queued and a run behind it: reloaded, the job was interrupted and the run behind it starts', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'scrapeform-queued-jobs-'));
    try {
      const first = await start(QUEUED_MS, dataDir);
      const id = await startedProject(first);
      // A second start while job 1 holds the project's slot waits behind it, unlisted.
      expect((await first.raw('PATCH', `/api/projects/${id}?${q}`, { scheduledAt: 'now' })).status).toBe(200);
      await until(
        'the second run waits behind job 1',
        () => first.emulator.projects.projects.get(id)?.queued.length === 1,
      );
      await first.emulator.close();
      open.splice(open.indexOf(first), 1);
      const second = await start(0, dataDir);
      await second.emulator.projects.idle();
      expect([...second.emulator.projects.jobs.values()].map((j) => [j.id, j.status, j.error])).toEqual([
        [1, 'Failed', 'interrupted: the emulator stopped while the job ran'],
        [2, 'Finished', null],
      ]);
    } finally {
      for (const h of open.splice(0)) await h.emulator.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
