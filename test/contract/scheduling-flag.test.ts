import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { contractFolder } from '../helpers/contract-folder.js';
import {
  KEY_QUERY,
  NOCK_ENV,
  PIPELINE_ORIGIN,
  SENTINEL_KEY,
  useNock,
  withUnmatched,
} from '../helpers/api.js';
import { booksProjectYaml } from '../helpers/books-project.js';

// A project's schedulingEnabled written as "false", "True", 0 or "1" (a service on string-typed or integer columns,
// as has_more and the archive marks are read: read-flag.ts) is read as the yes or no it says. Refused before, every
// plan of such an account failed; read as-is, it would be drift that is none. Any other value is still refused.
useNock();

const folder = contractFolder('scrapeform-scheduling-');
const { statePath } = folder;

const nightly = {
  name: 'nightly',
  projectType: 'urls',
  projectInput: { type: 'list', list: ['https://books.example/'] },
  schedulingEnabled: false,
};

/** State recording project.nightly (id 7, scraped once: scheduling off), declared by a manifest. */
async function recorded(): Promise<void> {
  await mkdir(path.join(folder.dir(), '.scrapeform'), { recursive: true });
  const resource = { kind: 'Project', id: 7, name: 'nightly', definition: nightly };
  const state = { format_version: 1, serial: 1, lineage: 'l', resources: { 'project.nightly': resource } };
  await writeFile(statePath(), JSON.stringify(state));
  await writeFile(path.join(folder.dir(), 'nightly.yaml'), booksProjectYaml('nightly'));
}

function plan() {
  return runScrapeform(['plan', '--detailed-exitcode', '--state', statePath(), folder.dir()], {
    env: NOCK_ENV,
  });
}

describe('a project whose schedulingEnabled is written as a string or a number', () => {
  it.each([['false'], ['FALSE '], [0], ['0']])('%j reads as false: no change, no drift', async (written) => {
    await recorded();
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, [{ id: 7, ...nightly, schedulingEnabled: written }]);
    const { result: run, unmatched } = await withUnmatched(plan);
    expect(unmatched).toEqual([]);
    expect(run.stdout).toContain('No changes. The live services match the manifests.');
    expect(run.code, run.stdout + run.stderr).toBe(0);
  });

  it.each([['true'], [1]])('%j reads as true: drift, scheduling put back off', async (written) => {
    await recorded();
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, [{ id: 7, ...nightly, schedulingEnabled: written }]);
    const { result: run, unmatched } = await withUnmatched(plan);
    expect(unmatched).toEqual([]);
    expect(run.code, run.stdout + run.stderr).toBe(2);
    expect(run.stdout).toContain('PATCH /api/projects/7 {"schedulingEnabled":false}');
  });

  it('a value of neither meaning is refused naming the field and the value, and nothing is planned', async () => {
    await recorded();
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, [{ id: 7, ...nightly, schedulingEnabled: 'sometimes' }]);
    const { result: run, unmatched } = await withUnmatched(plan);
    expect(unmatched).toEqual([]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('field 0.schedulingEnabled: expected true or false, got "sometimes"');
    expect(run.stdout + run.stderr).not.toContain(SENTINEL_KEY);
  });
});
