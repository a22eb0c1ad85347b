import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { ScrapeformError } from '../../src/errors.js';
import type { Services } from '../../src/workspace/open-workspace.js';
import { runProject } from '../../src/workspace/project-jobs.js';
import { KEY_QUERY, PIPELINE_ORIGIN, useNock } from '../helpers/api.js';
import { nightlyServices } from '../helpers/nightly-services.js';

/**
 * Review: a service that lists only active or recent jobs drops the job `run --wait` follows once it ends. The wait
 * kept the last sight of it ("Running") and waited its whole --wait-timeout (30 minutes by default), then said the
 * job keeps running. A job not listed for two minutes now ends the wait, saying its end cannot be seen.
 */
useNock();
const service = () => nock(PIPELINE_ORIGIN);

function services(): Services {
  service().get('/api/projects/522').query(KEY_QUERY).reply(200, { id: 522, name: 'nightly' });
  return nightlyServices();
}

/**
 * A clock that only the polls move: each poll's sleep (up to `pollMs`) moves it on by the poll's time; the wait's own
 * alarm (a longer sleep) never rings, so only the run's answers end it.
 */
function fakeClock(pollMs = 1000): { now: () => number; sleep: (ms: number) => Promise<void> } {
  let at = Date.parse('2026-11-29T12:00:00Z');
  return {
    now: () => at,
    sleep: (ms) => (ms > pollMs ? new Promise<void>(() => {}) : ((at += ms), Promise.resolve())),
  };
}

/** The start, then the job's records, one list answer each, then an empty list for every later look. */
function started(...looks: object[][]): void {
  service().get('/api/projects/522/jobs').query(KEY_QUERY).reply(200, []);
  service().patch('/api/projects/522', { scheduledAt: 'now' }).query(KEY_QUERY).reply(200, {});
  for (const jobs of looks) service().get('/api/projects/522/jobs').query(KEY_QUERY).reply(200, jobs);
}

describe('run --wait: the job followed leaves the list', () => {
  it('not listed for two minutes: run.job-unlisted, the project started, long before the wait timeout', async () => {
    started([{ id: 41, status: 'Running' }]);
    service().get('/api/projects/522/jobs').query(KEY_QUERY).times(121).reply(200, []);
    const clock = fakeClock();
    const began = clock.now();
    const error = await runProject(services(), 'nightly', { wait: true, pollMs: 1000, ...clock }).catch(
      (e: unknown) => e,
    );
    nock.cleanAll();
    expect(error).toBeInstanceOf(ScrapeformError);
    const refused = error as ScrapeformError;
    expect([refused.code, refused.message, refused.hint, refused.details]).toEqual([
      'run.job-unlisted',
      'nightly: job 41 has not been listed for 120s (last seen: Running), so whether it ended, and how, cannot be seen',
      'the project was started (scheduledAt now); do not start it again before checking: scrapeform jobs nightly shows its jobs',
      { started: true, projectId: 522, jobId: 41 },
    ]);
    expect(clock.now() - began).toBe(121_000);
  });

  it('left out for a while and listed again: still followed to its end', async () => {
    const gone = Array.from({ length: 100 }, () => []);
    started([{ id: 41, status: 'Running' }], ...gone, [{ id: 41, status: 'Finished' }]);
    const clock = fakeClock();
    const result = await runProject(services(), 'nightly', { wait: true, pollMs: 1000, ...clock });
    expect(result.job).toEqual({ id: 41, status: 'Finished' });
  });
});
