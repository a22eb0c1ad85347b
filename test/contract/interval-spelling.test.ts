import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { contractFolder } from '../helpers/contract-folder.js';
import { KEY_QUERY, NOCK_ENV, PIPELINE_ORIGIN, useNock, withUnmatched } from '../helpers/api.js';

/**
 * Review: a service that answers a cron in its own spelling (`0 6 * * 1` for `0 6 * * mon`, the same schedule) was
 * read as on another schedule: the create failed with apply.schedule-not-taken, and every later apply sent the
 * interval again and failed the same way, so CI stayed red.
 */
useNock();
const folder = contractFolder('scrapeform-interval-spelling-');

const live = {
  id: 9,
  name: 'nightly',
  projectType: 'urls',
  projectInput: { type: 'list', list: ['https://books.example/'] },
  schedulingEnabled: true,
  scrapingInterval: '0 6 * * 1',
};

describe('a cron answered in another spelling of the same schedule', () => {
  it('the create is taken, and the next plan and drift are empty', async () => {
    await writeFile(
      path.join(folder.dir(), 'p.yaml'),
      "kind: Project\nname: nightly\nprojectType: urls\nprojectInput: { type: list, list: ['https://books.example/'] }\nscrapingInterval: '0 6 * * mon'\n",
    );
    const args = ['--state', folder.statePath(), folder.dir()];
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, []);
    nock(PIPELINE_ORIGIN).post('/api/projects').query(KEY_QUERY).reply(201, live);
    const { result: applied, unmatched } = await withUnmatched(() =>
      runScrapeform(['apply', '--auto-approve', ...args], { env: NOCK_ENV }),
    );
    expect(unmatched).toEqual([]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout + applied.stderr).not.toContain('schedule-not-taken');
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).times(2).reply(200, [live]);
    const plan = await runScrapeform(['plan', ...args], { env: NOCK_ENV });
    expect(plan.stdout).toContain('No changes.');
    const drift = await runScrapeform(['drift', ...args], { env: NOCK_ENV });
    expect(drift.code, drift.stdout + drift.stderr).toBe(0);
  });
});
