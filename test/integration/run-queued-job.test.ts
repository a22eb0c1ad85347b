import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/server.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { emulatorEnv, runBuiltCli } from '../helpers/child-cli.js';
import type { ChildRun } from '../helpers/child-cli.js';
import { until } from '../helpers/until.js';

/**
 * `run` over loopback against an emulator that lists a job started a moment ago as Queued before a worker takes it
 * (the queued-jobs quirk): the reading the run guard holds a start back for, which the contract tests only fake.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const KEY = 'queued-job-key';
const QUEUED_MS = 600_000;

let emulator: RunningEmulator;
let dir: string;

function scrapeform(args: string[]): Promise<ChildRun> {
  return runBuiltCli(args, { cwd: dir, env: emulatorEnv(emulator.url, KEY) });
}

beforeAll(async () => {
  emulator = await startEmulator({
    apiKeys: [KEY],
    generationDelayMs: 30,
    quirks: ['queued-jobs'],
    quirkSettings: { jobQueuedMs: QUEUED_MS },
  });
  dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-queued-job-'));
  await cp(path.join(ROOT, 'examples/quickstart'), dir, { recursive: true });
});
afterAll(async () => {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

describe('run against a service that lists a job queued before it runs (queued-jobs quirk)', () => {
  it('a queued job holds the start back, its cancel is refused, and once it ran, run --wait follows a queued one to its end', async () => {
    // The quickstart project runs at its create (scheduledAt: now): its job 1 is listed Queued for 10 minutes.
    const applied = await scrapeform(['apply', '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    await until('job 1 is listed', () => emulator.projects.jobs.get(1) !== undefined);
    expect(emulator.projects.jobs.get(1)?.status).toBe('Queued');
    const state = JSON.parse(await readFile(path.join(dir, '.scrapeform/state.json'), 'utf8')) as {
      resources: Record<string, { id: number }>;
    };
    const projectId = state.resources['project.nightly-book-pages']?.id;

    const before = emulator.requestLog.length;
    const refused = await scrapeform(['run', 'nightly-book-pages']);
    expect(refused.stderr).toBe(
      'error: project.nightly-book-pages was not started: job 1 waits to run (Queued, and no supposedToRunAt or scheduledAt says when), and only one job of a project runs at a time: a start now would wait behind it and run again, paid per page, or be dropped\n' +
        "  hint: wait for it to run and end (scrapeform jobs nightly-book-pages shows it), or cancel it (scrapeform cancel nightly-book-pages JOB_ID; a service may refuse to cancel a job that has not started), then run again; if a waiting job is the project's next scheduled run rather than a start, --allow-concurrent starts it anyway\n",
    );
    expect(refused.code).toBe(3);
    // The read of the project and the list of its jobs: no start.
    expect(emulator.requestLog.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /api/projects/${projectId}?api_key=***`,
      `GET /api/projects/${projectId}/jobs?api_key=***`,
    ]);

    // The emulator cancels only a running job, as a service may: the refusal is said, and the job stays queued.
    const cancel = await scrapeform(['cancel', 'nightly-book-pages', '1']);
    expect(cancel.code).toBe(1);
    expect(cancel.stderr).toBe(
      'error: job 1 of nightly-book-pages cannot be cancelled: job 1 is not running (Queued)\n' +
        '  hint: scrapeform jobs nightly-book-pages lists the jobs and their status\n',
    );
    expect(emulator.projects.jobs.get(1)?.status).toBe('Queued');

    // A worker takes it and it ends; from now on a job waits a moment queued, and run --wait follows it through.
    emulator.quirks.set(['queued-jobs'], { jobQueuedMs: 200 });
    emulator.clock.advance(QUEUED_MS);
    await emulator.projects.idle();
    expect(emulator.projects.jobs.get(1)?.status).toBe('Finished');
    const run = await scrapeform(['run', 'nightly-book-pages', '--wait']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^id\s+status.*\n2\s+Finished/);
    // It was listed Queued first: it began 200 ms (emulated) after it fell due.
    const job = emulator.projects.jobs.get(2);
    expect(Date.parse(job?.startedAt ?? '') - Date.parse(job?.scheduledFor ?? '')).toBeGreaterThanOrEqual(
      200,
    );
    // Neither the refused start, the refused cancel nor the runs leave anything for a plan to do.
    const plan = await scrapeform(['plan', '--detailed-exitcode']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });
});
