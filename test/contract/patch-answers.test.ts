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

// The seed documents no answer to a project PATCH: it may be the project, the project without its schedule, a
// message, or nothing (204). What the service holds is what apply checks, so such an answer is looked past.
useNock();

const folder = contractFolder('scrapeform-patch-answers-');
const { statePath, readState } = folder;

function apply() {
  return runScrapeform(['apply', '--auto-approve', '--state', statePath(), folder.dir()], {
    env: NOCK_ENV,
  });
}

const input = { type: 'list', list: ['https://books.example/'] };
const daily = {
  name: 'nightly',
  projectType: 'urls',
  projectInput: input,
  scrapingInterval: 'daily',
  schedulingEnabled: true,
};
const off = { name: 'nightly', projectType: 'urls', projectInput: input, schedulingEnabled: false };

/** project.nightly (7) applied running daily; its manifest now asks for no schedule (scheduling off). */
async function scheduleDropped(): Promise<void> {
  await mkdir(path.join(folder.dir(), '.scrapeform'), { recursive: true });
  const resource = { kind: 'Project', id: 7, name: 'nightly', definition: daily };
  const state = { format_version: 1, serial: 1, lineage: 'l', resources: { 'project.nightly': resource } };
  await writeFile(statePath(), JSON.stringify(state));
  await writeFile(path.join(folder.dir(), 'nightly.yaml'), booksProjectYaml('nightly'));
  nock(PIPELINE_ORIGIN)
    .get('/api/projects')
    .query(KEY_QUERY)
    .reply(200, [{ id: 7, ...daily }]);
}

function patched(status: number, body: unknown): void {
  nock(PIPELINE_ORIGIN)
    .patch('/api/projects/7', { schedulingEnabled: false })
    .query(KEY_QUERY)
    .reply(status, body as nock.Body);
}

describe('apply: a project PATCH answered without the schedule sent', () => {
  it('the project is read by id, and a schedule it does not hold fails the change (apply.schedule-not-taken), not assumed applied', async () => {
    await scheduleDropped();
    patched(200, { id: 7, name: 'nightly' });
    nock(PIPELINE_ORIGIN)
      .get('/api/projects/7')
      .query(KEY_QUERY)
      .reply(200, { id: 7, ...daily });
    const { result: run, unmatched } = await withUnmatched(apply);
    expect(unmatched).toEqual([]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      '✗ project.nightly update 7: project 7 was updated, but the service reports schedulingEnabled = true, not the schedule the manifest asks for (schedulingEnabled = false): it may run, at the price of its pages, when the manifest says it must not',
    );
    const state = await readState();
    expect(state.resources['project.nightly'].refused).toEqual({ schedulingEnabled: true });
    expect(run.stdout + run.stderr).not.toContain(SENTINEL_KEY);
  });

  it('a read by id that holds it: applied, and recorded', async () => {
    await scheduleDropped();
    patched(200, { id: 7 });
    nock(PIPELINE_ORIGIN)
      .get('/api/projects/7')
      .query(KEY_QUERY)
      .reply(200, { id: 7, ...off, scrapingInterval: 'daily' });
    const { result: run, unmatched } = await withUnmatched(apply);
    expect(unmatched).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('✓ project.nightly update 7');
    expect((await readState()).resources['project.nightly'].definition).toEqual(off);
  });

  it('a read by id that does not report it either: applied, with a warning that it cannot be seen', async () => {
    await scheduleDropped();
    patched(200, { id: 7 });
    nock(PIPELINE_ORIGIN).get('/api/projects/7').query(KEY_QUERY).reply(200, { id: 7, name: 'nightly' });
    const { result: run, unmatched } = await withUnmatched(apply);
    expect(unmatched).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.stdout + run.stderr).toContain(
      "schedulingEnabled was sent as false but neither the service's answer nor a read of project 7 reports it: whether the project runs on the schedule the manifest asks for cannot be seen (check it in the ScraperAPI dashboard)",
    );
  });
});

describe('apply: a project PATCH answered with no project at all', () => {
  for (const [what, status, body] of [
    ['a 204', 204, ''],
    ['a message', 200, { message: 'Project updated' }],
  ] as const) {
    it(`${what}: the change was taken (a 2xx), so it is not reported failed; the project is read by id to check it`, async () => {
      await scheduleDropped();
      patched(status, body);
      nock(PIPELINE_ORIGIN)
        .get('/api/projects/7')
        .query(KEY_QUERY)
        .reply(200, { id: 7, ...off });
      const { result: run, unmatched } = await withUnmatched(apply);
      expect(unmatched).toEqual([]);
      expect(run.stdout).not.toContain('unexpected response from PATCH');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('✓ project.nightly update 7');
      expect((await readState()).resources['project.nightly'].definition).toEqual(off);
    });
  }
});

// Review: a PATCH answered with a cut-down project ({id, name}) hid that the service kept another format than the
// one sent; nothing recorded what it holds, and every later apply sent the same PATCH again.
describe('apply: a project PATCH answered without a field sent that is no schedule', () => {
  it('the project is read by id; what it holds is recorded, and the next apply sends nothing', async () => {
    await mkdir(path.join(folder.dir(), '.scrapeform'), { recursive: true });
    const applied = { ...off, output_format: 'CSV' };
    const resource = { kind: 'Project', id: 7, name: 'nightly', definition: applied };
    const state = { format_version: 1, serial: 1, lineage: 'l', resources: { 'project.nightly': resource } };
    await writeFile(statePath(), JSON.stringify(state));
    await writeFile(
      path.join(folder.dir(), 'nightly.yaml'),
      `${booksProjectYaml('nightly')}output_format: CSV\n`,
    );
    const held = { id: 7, ...off, output_format: 'JSON' };
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, [held]);
    nock(PIPELINE_ORIGIN)
      .patch('/api/projects/7', { output_format: 'CSV' })
      .query(KEY_QUERY)
      .reply(200, { id: 7, name: 'nightly' });
    nock(PIPELINE_ORIGIN).get('/api/projects/7').query(KEY_QUERY).reply(200, held);
    const { result: first, unmatched } = await withUnmatched(apply);
    expect(unmatched).toEqual([]);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout + first.stderr).toContain(
      'output_format was sent as "CSV" but the service answered "JSON"; state records what the service holds, and plan does not send it again until the manifest changes',
    );
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, [held]);
    const { result: second, unmatched: after } = await withUnmatched(apply);
    expect(after).toEqual([]);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(second.stdout).toContain('No changes.');
  });
});
