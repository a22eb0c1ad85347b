import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { contractFolder } from '../helpers/contract-folder.js';
import { NOCK_ENV, PIPELINE_ORIGIN, SENTINEL_KEY, counted, useNock, withUnmatched } from '../helpers/api.js';

/**
 * A project's `projectInput.list` is an array of entries (seed 2, "projectInput variants"). The seed shows no
 * project answer, and a service that keeps the entries as one newline-delimited text (as a webhook input's address
 * returns them) would answer a string there. Such entries say nothing scrapeform can read: unknown, as entries left
 * out are (project-fields.ts), never an internal error (the plan's summary of a changed input counted them as an
 * array), and never a refusal of the whole list: one project of the account, managed or not, would stop every plan.
 */
useNock();

const folder = contractFolder('scrapeform-input-shapes-');
const manifest =
  'kind: Project\nname: nightly\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/] }\nscrapingInterval: daily\n';
const project = (id: number, name: string, list: unknown) => ({
  id,
  name,
  projectType: 'urls',
  scrapingInterval: 'daily',
  schedulingEnabled: true,
  projectInput: { type: 'list', list },
});
const shapes = [
  ['a newline-delimited string', 'https://books.example/\nhttps://books.example/x'],
  ['an object', { 0: 'https://books.example/' }],
] as const;

async function plan(listed: unknown[]): Promise<{ code: number; stdout: string; stderr: string }> {
  await writeFile(path.join(folder.dir(), 'p.yaml'), manifest);
  const list = nock(PIPELINE_ORIGIN).get('/api/projects').query({ api_key: SENTINEL_KEY }).reply(200, listed);
  const { result: run, unmatched } = await withUnmatched(() =>
    runScrapeform(['plan', '--state', path.join(folder.dir(), 'state.json'), folder.dir()], {
      env: NOCK_ENV,
    }),
  );
  expect([list.isDone(), unmatched]).toEqual([true, []]);
  expect(run.stderr).not.toContain('internal error');
  expect(JSON.stringify(run)).not.toContain(SENTINEL_KEY);
  return run;
}

describe('plan: a project whose input entries are not a list', () => {
  it.each(shapes)(
    "%s, on the project adopted: the entries read as unknown, and the manifest's are sent",
    async (_what, list) => {
      const run = await plan([project(522, 'nightly', list)]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('# changed: projectInput');
      // Unknown, not empty: the plan does not claim the service holds none of the entries.
      expect(run.stdout).toContain(
        "~ inputs: 1 entry sent (the service's entries are unknown: its answer left them out or gave no list)\n        + https://books.example/\n",
      );
      expect(run.stdout).not.toContain('+1 −0');
      expect(run.stdout).toContain(
        'PATCH /api/projects/522 {"projectInput":{"type":"list","list":["https://books.example/"]}}',
      );
    },
  );

  it.each(shapes)(
    '%s, on a project scrapeform does not manage: the plan is not touched by it',
    async (_what, list) => {
      const run = await plan([
        project(522, 'nightly', ['https://books.example/']),
        project(600, 'someone-elses', list),
      ]);
      expect(run.code).toBe(0);
      expect(run.stdout.split('\n')[0]).toBe('Plan: 1 to adopt (no regeneration, no credits).');
    },
  );
});

describe('apply: a project adopted whose input entries are not a list', () => {
  it.each(shapes)(
    "%s: the manifest's entries are sent once, and the next plans are empty",
    async (_what, list) => {
      await writeFile(path.join(folder.dir(), 'p.yaml'), manifest);
      const statePath = path.join(folder.dir(), 'state.json');
      // The service keeps answering the entries in its own shape, before the PATCH and after it.
      const live = project(522, 'nightly', list);
      nock(PIPELINE_ORIGIN).get('/api/projects').query({ api_key: SENTINEL_KEY }).times(3).reply(200, [live]);
      const patches = counted(
        nock(PIPELINE_ORIGIN).patch('/api/projects/522').query({ api_key: SENTINEL_KEY }),
        [200, live],
      );
      // The answer does not report the entries in a shape read: apply reads the project by id to check them.
      nock(PIPELINE_ORIGIN).get('/api/projects/522').query({ api_key: SENTINEL_KEY }).reply(200, live);
      const { result: applied, unmatched } = await withUnmatched(() =>
        runScrapeform(['apply', '--auto-approve', '--allow-adopt', '--state', statePath, folder.dir()], {
          env: NOCK_ENV,
        }),
      );
      expect([applied.code, patches.n, unmatched], applied.stdout + applied.stderr).toEqual([0, 1, []]);
      for (const run of [1, 2]) {
        const plan = await runScrapeform(['plan', '--json', '--state', statePath, folder.dir()], {
          env: NOCK_ENV,
        });
        expect([run, plan.code, (JSON.parse(plan.stdout) as { status: string }).status]).toEqual([
          run,
          0,
          'no_changes',
        ]);
      }
      expect(patches.n).toBe(1);
      nock.cleanAll();
    },
  );
});

describe('plan: a project whose answer says its input entries are null', () => {
  const manifest =
    'kind: Project\nname: nightly\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/] }\nscrapingInterval: daily\n';
  const live = {
    id: 522,
    name: 'nightly',
    projectType: 'urls',
    scrapingInterval: 'daily',
    schedulingEnabled: true,
    projectInput: { type: 'list', list: null },
  };

  /** Two plans of the workspace against a service answering `live`: both empty, without a warning. */
  async function expectEmptyPlans(statePath: string): Promise<void> {
    for (const run of [1, 2]) {
      const listed = nock(PIPELINE_ORIGIN)
        .get('/api/projects')
        .query({ api_key: SENTINEL_KEY })
        .reply(200, [live]);
      const { result: plan, unmatched } = await withUnmatched(() =>
        runScrapeform(['plan', '--json', '--state', statePath, folder.dir()], { env: NOCK_ENV }),
      );
      const json = JSON.parse(plan.stdout) as { status: string; warnings: string[] };
      expect([run, plan.code, listed.isDone(), unmatched, json.status, json.warnings]).toEqual([
        run,
        0,
        true,
        [],
        'no_changes',
        [],
      ]);
      expect(plan.stdout + plan.stderr).not.toContain(SENTINEL_KEY);
    }
  }

  it('a project state records: no PATCH of the input is planned, run after run', async () => {
    await writeFile(path.join(folder.dir(), 'p.yaml'), manifest);
    const statePath = path.join(folder.dir(), 'state.json');
    const definition = {
      name: 'nightly',
      projectType: 'urls',
      projectInput: { type: 'list', list: ['https://books.example/'] },
      scrapingInterval: 'daily',
      schedulingEnabled: true,
    };
    const resources = { 'project.nightly': { kind: 'Project', id: 522, name: 'nightly', definition } };
    await writeFile(
      statePath,
      JSON.stringify({ format_version: 1, serial: 1, lineage: 'null-list', resources }),
    );
    await expectEmptyPlans(statePath);
  });

  it('a create answered with them null: no warning that the input was not taken, and the next plans are empty', async () => {
    await writeFile(path.join(folder.dir(), 'p.yaml'), manifest);
    const statePath = path.join(folder.dir(), 'state.json');
    nock(PIPELINE_ORIGIN).get('/api/projects').query({ api_key: SENTINEL_KEY }).reply(200, []);
    const posts = counted(nock(PIPELINE_ORIGIN).post('/api/projects').query({ api_key: SENTINEL_KEY }), [
      201,
      live,
    ]);
    const applied = await runScrapeform(['apply', '--auto-approve', '--state', statePath, folder.dir()], {
      env: NOCK_ENV,
    });
    expect([applied.code, posts.n]).toEqual([0, 1]);
    expect(applied.stdout).toContain('✓ project.nightly create 522');
    expect(applied.stdout + applied.stderr).not.toContain('warning');
    expect(applied.stdout + applied.stderr).not.toContain(SENTINEL_KEY);
    await expectEmptyPlans(statePath);
  });
});
