import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { contractFolder } from '../helpers/contract-folder.js';
import { KEY_QUERY, NOCK_ENV, PIPELINE_ORIGIN, useNock, withUnmatched } from '../helpers/api.js';

/**
 * Review: a project list whose items say null for values the project holds (a summary list: apiParams,
 * notificationConfig, output format, schedule and webhook left null), while the project read by id holds them. Read
 * as the service's defaults, every plan proposed a PATCH sending the same values again, and `drift --accept` would
 * have written the defaults into the manifest. A null that would make a difference is now looked at again by id.
 */
useNock();
const folder = contractFolder('scrapeform-list-nulls-');

const MANIFEST = [
  'kind: Project',
  'name: nightly',
  'projectType: urls',
  "projectInput: { type: list, list: ['https://books.example/'] }",
  'scrapingInterval: daily',
  'output_format: CSV',
  'apiParams: { country_code: us }',
  'notificationConfig: { notifyOnSuccess: daily }',
  "webhookOutput: { url: 'https://hooks.example/in' }",
  '',
].join('\n');

const whole = {
  id: 9,
  name: 'nightly',
  projectType: 'urls',
  projectInput: { type: 'list', list: ['https://books.example/'] },
  schedulingEnabled: true,
  scrapingInterval: 'daily',
  output_format: 'CSV',
  apiParams: { country_code: 'us' },
  notificationConfig: { notifyOnSuccess: 'daily', notifyOnFailure: 'with_every_run' },
  webhookOutput: { url: 'https://hooks.example/in' },
};

/** The same project as a summary list shows it: every value it holds besides its identity said as null. */
const summary = {
  ...whole,
  scrapingInterval: null,
  output_format: null,
  apiParams: null,
  notificationConfig: null,
  webhookOutput: null,
};

async function applied(): Promise<string[]> {
  await writeFile(path.join(folder.dir(), 'p.yaml'), MANIFEST);
  nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, []);
  nock(PIPELINE_ORIGIN).post('/api/projects').query(KEY_QUERY).reply(201, whole);
  const args = ['--state', folder.statePath(), folder.dir()];
  const { result, unmatched } = await withUnmatched(() =>
    runScrapeform(['apply', '--auto-approve', ...args], { env: NOCK_ENV }),
  );
  expect(unmatched).toEqual([]);
  expect(result.code, result.stdout + result.stderr).toBe(0);
  return args;
}

describe('a project list that says null for values the project holds', () => {
  it('plan reads the project by id and proposes nothing', async () => {
    const args = await applied();
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, [summary]);
    nock(PIPELINE_ORIGIN).get('/api/projects/9').query(KEY_QUERY).reply(200, whole);
    const { result: plan, unmatched } = await withUnmatched(() =>
      runScrapeform(['plan', '--detailed-exitcode', ...args], { env: NOCK_ENV }),
    );
    expect(unmatched).toEqual([]);
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('drift reads it by id too, and --accept leaves the manifest as it is', async () => {
    const args = await applied();
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, [summary]);
    nock(PIPELINE_ORIGIN).get('/api/projects/9').query(KEY_QUERY).reply(200, whole);
    const { result: drift, unmatched } = await withUnmatched(() =>
      runScrapeform(['drift', '--accept', ...args], { env: NOCK_ENV }),
    );
    expect(unmatched).toEqual([]);
    expect(drift.code, drift.stdout + drift.stderr).toBe(0);
    expect(await readFile(path.join(folder.dir(), 'p.yaml'), 'utf8')).toBe(MANIFEST);
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('a null the read by id says too is the default said out loud: the PATCH is planned', async () => {
    const args = await applied();
    const reset = { ...whole, apiParams: null };
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, [reset]);
    nock(PIPELINE_ORIGIN).get('/api/projects/9').query(KEY_QUERY).reply(200, reset);
    const { result: plan, unmatched } = await withUnmatched(() =>
      runScrapeform(['plan', '--detailed-exitcode', ...args], { env: NOCK_ENV }),
    );
    expect(unmatched).toEqual([]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(2);
    expect(plan.stdout).toContain('apiParams');
    expect(plan.stdout).toContain('country_code');
  });

  it('a null that reads as the value wanted costs no read by id: an unchanged workspace stays one call', async () => {
    await writeFile(
      path.join(folder.dir(), 'p.yaml'),
      "kind: Project\nname: nightly\nprojectType: urls\nprojectInput: { type: list, list: ['https://books.example/'] }\n",
    );
    const plain = {
      ...summary,
      schedulingEnabled: false,
      scrapingInterval: 'weekly',
      notificationConfig: null,
      apiParams: null,
      output_format: null,
    };
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, []);
    nock(PIPELINE_ORIGIN).post('/api/projects').query(KEY_QUERY).reply(201, plain);
    const args = ['--state', folder.statePath(), folder.dir()];
    const apply = await runScrapeform(['apply', '--auto-approve', ...args], { env: NOCK_ENV });
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, [plain]);
    const { result: plan, unmatched } = await withUnmatched(() =>
      runScrapeform(['plan', '--detailed-exitcode', ...args], { env: NOCK_ENV }),
    );
    expect(unmatched).toEqual([]);
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });
});

describe('import of a project its list shows with nulls', () => {
  it('reads the project by id and writes what it holds, not the defaults', async () => {
    // The output format said (a null one reads as not said, and was read by id before).
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, [{ ...summary, output_format: 'CSV' }]);
    nock(PIPELINE_ORIGIN).get('/api/projects/9').query(KEY_QUERY).reply(200, whole);
    const out = path.join(folder.dir(), 'imported');
    const { result: imported, unmatched } = await withUnmatched(() =>
      runScrapeform(['import', '--out', out, '--only', 'projects', '--state', folder.statePath()], {
        env: NOCK_ENV,
      }),
    );
    expect(unmatched).toEqual([]);
    expect(imported.code, imported.stdout + imported.stderr).toBe(0);
    const written = await readFile(path.join(out, 'project-nightly.yaml'), 'utf8');
    expect(written).toContain('country_code: us');
    expect(written).toContain('notifyOnSuccess: daily');
    expect(written).toContain('https://hooks.example/in');
    expect(nock.pendingMocks()).toEqual([]);
  });
});

describe('a listed null for a key lifecycle.ignore_changes names', () => {
  it('costs no read by id, in plan or drift: nothing is planned or reported from that key', async () => {
    await writeFile(
      path.join(folder.dir(), 'p.yaml'),
      `${MANIFEST}lifecycle: { ignore_changes: [apiParams] }\n`,
    );
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, []);
    nock(PIPELINE_ORIGIN).post('/api/projects').query(KEY_QUERY).reply(201, whole);
    const args = ['--state', folder.statePath(), folder.dir()];
    const apply = await runScrapeform(['apply', '--auto-approve', ...args], { env: NOCK_ENV });
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .times(2)
      .reply(200, [{ ...whole, apiParams: null }]);
    const { result: plan, unmatched } = await withUnmatched(() =>
      runScrapeform(['plan', '--detailed-exitcode', ...args], { env: NOCK_ENV }),
    );
    expect(unmatched).toEqual([]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    const drift = await runScrapeform(['drift', ...args], { env: NOCK_ENV });
    expect(drift.code, drift.stdout + drift.stderr).toBe(0);
  });
});
