import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { contractFolder } from '../helpers/contract-folder.js';
import { KEY_QUERY, NOCK_ENV, PIPELINE_ORIGIN, useNock, withUnmatched } from '../helpers/api.js';

/**
 * Review: a service that writes back an enum in its own case (`csv`, `DAILY`) or a scraping parameter as the text it
 * travels as (`"true"`) was read as holding other values: the create warned that the service had not taken them,
 * every plan warned again, and a project made elsewhere in that spelling was sent a needless PATCH.
 */
useNock();
const folder = contractFolder('scrapeform-value-spelling-');

const MANIFEST =
  "kind: Project\nname: nightly\nprojectType: urls\nprojectInput: { type: list, list: ['https://books.example/'] }\noutput_format: CSV\napiParams: { render: true, session_number: 5 }\nnotificationConfig: { notifyOnSuccess: daily }\n";

const answered = {
  id: 9,
  name: 'nightly',
  projectType: 'urls',
  projectInput: { type: 'list', list: ['https://books.example/'] },
  schedulingEnabled: false,
  scrapingInterval: 'weekly',
  output_format: 'csv',
  apiParams: { render: 'true', session_number: '5' },
  notificationConfig: { notifyOnSuccess: 'DAILY', notifyOnFailure: 'WITH_EVERY_RUN' },
};

describe('values answered in another spelling of what was sent', () => {
  it('the create is taken without a warning, and the next plan and drift are empty and quiet', async () => {
    await writeFile(path.join(folder.dir(), 'p.yaml'), MANIFEST);
    const args = ['--state', folder.statePath(), folder.dir()];
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, []);
    nock(PIPELINE_ORIGIN).post('/api/projects').query(KEY_QUERY).reply(201, answered);
    const { result: applied, unmatched } = await withUnmatched(() =>
      runScrapeform(['apply', '--auto-approve', ...args], { env: NOCK_ENV }),
    );
    expect(unmatched).toEqual([]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout + applied.stderr).not.toContain('warning');
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).times(2).reply(200, [answered]);
    const plan = await runScrapeform(['plan', '--detailed-exitcode', ...args], { env: NOCK_ENV });
    expect([plan.code, plan.stdout, plan.stderr]).toEqual([
      0,
      'No changes. The live services match the manifests.\n',
      '',
    ]);
    const drift = await runScrapeform(['drift', ...args], { env: NOCK_ENV });
    expect([drift.code, drift.stderr]).toEqual([0, '']);
  });

  it('a live project in that spelling is adopted with no PATCH', async () => {
    await writeFile(path.join(folder.dir(), 'p.yaml'), MANIFEST);
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, [answered]);
    const plan = await runScrapeform(['plan', '--state', folder.statePath(), folder.dir()], {
      env: NOCK_ENV,
    });
    expect(plan.stdout).toContain('adopted: the live project 9 has this name');
    expect(plan.stdout).not.toContain('PATCH');
  });

  it('a value that differs otherwise is still sent', async () => {
    await writeFile(path.join(folder.dir(), 'p.yaml'), MANIFEST);
    const args = ['--state', folder.statePath(), folder.dir()];
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, []);
    nock(PIPELINE_ORIGIN).post('/api/projects').query(KEY_QUERY).reply(201, answered);
    expect((await runScrapeform(['apply', '--auto-approve', ...args], { env: NOCK_ENV })).code).toBe(0);
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, [{ ...answered, apiParams: { render: 'false', session_number: '5' } }]);
    const plan = await runScrapeform(['plan', '--detailed-exitcode', ...args], { env: NOCK_ENV });
    expect(plan.code, plan.stdout + plan.stderr).toBe(2);
    expect(plan.stdout).toContain('apiParams.render: "false" -> true');
  });
});

describe('import of a project that holds values in another spelling', () => {
  it('writes them as a manifest spells them, and the next plan is empty', async () => {
    // The list leaves the webhook out: import reads the project by id before taking it as none.
    const whole = { ...answered, webhookOutput: null };
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, [answered]);
    nock(PIPELINE_ORIGIN).get('/api/projects/9').query(KEY_QUERY).reply(200, whole);
    const out = path.join(folder.dir(), 'imported');
    const imported = await runScrapeform(
      ['import', '--out', out, '--only', 'projects', '--state', folder.statePath()],
      { env: NOCK_ENV },
    );
    expect(imported.code, imported.stdout + imported.stderr).toBe(0);
    const written = await readFile(path.join(out, 'project-nightly.yaml'), 'utf8');
    expect(written).toContain('output_format: CSV');
    expect(written).toContain('notifyOnSuccess: daily');
    expect(written).toContain('notifyOnFailure: with_every_run');
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, [whole]);
    const plan = await runScrapeform(['plan', '--detailed-exitcode', '--state', folder.statePath(), out], {
      env: NOCK_ENV,
    });
    expect([plan.code, plan.stdout]).toEqual([0, 'No changes. The live services match the manifests.\n']);
  });
});
