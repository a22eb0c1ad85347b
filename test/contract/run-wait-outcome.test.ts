import nock from 'nock';
import { afterEach, describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import type { CliRun } from '../helpers/cli.js';
import { KEY_QUERY, PIPELINE_ORIGIN, SENTINEL_KEY, useNock } from '../helpers/api.js';
import { stateOf } from '../helpers/state.js';
import { tempProjects } from '../helpers/temp-projects.js';

/**
 * `run --wait` follows the new job to its end and exits by how it ended: 0 only for a job that finished. One that
 * failed, or was cancelled (by `scrapeform cancel`, the dashboard, the service), did not scrape what the run was for:
 * CI must not read it as done.
 */

useNock();

const project = tempProjects('scrapeform-run-wait-');
const home = process.cwd();
afterEach(() => process.chdir(home));

const nightly = stateOf({ 'project.nightly': { kind: 'Project', id: 522, name: 'nightly', definition: {} } });

async function runWaitEndingIn(status: string): Promise<CliRun> {
  const jobs = nock(PIPELINE_ORIGIN);
  jobs.get('/api/projects/522').query(KEY_QUERY).reply(200, { id: 522, name: 'nightly' });
  jobs.get('/api/projects/522/jobs').query(KEY_QUERY).reply(200, []);
  jobs.patch('/api/projects/522', { scheduledAt: 'now' }).query(KEY_QUERY).reply(200, {});
  jobs
    .get('/api/projects/522/jobs')
    .query(KEY_QUERY)
    .reply(200, [{ id: 7, status: 'Running' }]);
  jobs
    .get('/api/projects/522/jobs')
    .query(KEY_QUERY)
    .reply(200, [{ id: 7, status }]);
  const dir = await project({ '.scrapeform/state.json': JSON.stringify(nightly) });
  return runScrapeform(['--chdir', dir, 'run', 'nightly', '--wait'], {
    env: {
      SCRAPERAPI_API_KEY: SENTINEL_KEY,
      SCRAPEFORM_PIPELINE_URL: PIPELINE_ORIGIN,
      SCRAPEFORM_POLL_INTERVAL: '1ms',
    },
  });
}

describe('run --wait: the exit code says how the job ended', () => {
  it('0 for a job that finished', async () => {
    const run = await runWaitEndingIn('Finished');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/\n7\s+Finished/);
  });

  it.each(['Failed', 'Timed out'])('1 for a job that ended %s, saying so', async (status) => {
    const run = await runWaitEndingIn(status);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`\\n7\\s+${status}`));
    expect(run.stderr).toContain(
      `error: job 7 of nightly failed (${status}): the run is not done\n  hint: scrapeform jobs nightly lists it; the dashboard says why it failed\n`,
    );
  });

  it.each(['Cancelled', 'Stopped'])(
    '1 for a job that ended %s: it did not scrape to its end',
    async (status) => {
      const run = await runWaitEndingIn(status);
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(new RegExp(`\\n7\\s+${status}`));
      expect(run.stderr).toContain(
        `error: job 7 of nightly was cancelled (${status}) before it scraped every page: the run is not done\n  hint: run it again once nothing cancels it (scrapeform jobs nightly lists its jobs)\n`,
      );
    },
  );
});
