import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { contractFolder } from '../helpers/contract-folder.js';
import {
  PARSER_ORIGIN,
  PIPELINE_ORIGIN,
  SENTINEL_KEY,
  counted,
  useNock,
  withUnmatched,
} from '../helpers/api.js';

/**
 * A project's `projectInput.list` is an array of entries (seed 2, "projectInput variants"). The seed shows no
 * project answer, and a service that keeps the entries as one newline-delimited text (as a webhook input's address
 * returns them) would answer a string there. The plan summarises a changed input from the live entries, so an
 * answer of another shape is a bad response naming the field, never an internal error with a stack trace.
 */
useNock();

const folder = contractFolder('scrapeform-input-shapes-');
const env = {
  SCRAPERAPI_API_KEY: SENTINEL_KEY,
  SCRAPEFORM_PARSER_URL: PARSER_ORIGIN,
  SCRAPEFORM_PIPELINE_URL: PIPELINE_ORIGIN,
};

describe('plan: a project whose input entries are not a list', () => {
  it.each([
    ['a newline-delimited string', 'https://books.example/\nhttps://books.example/x', 'string'],
    ['an object', { 0: 'https://books.example/' }, 'object'],
  ])('%s: api.bad-response naming the field, no stack trace, nothing sent', async (_what, list, received) => {
    await writeFile(
      path.join(folder.dir(), 'p.yaml'),
      'kind: Project\nname: nightly\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/] }\nscrapingInterval: daily\n',
    );
    const listed = nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query({ api_key: SENTINEL_KEY })
      .reply(200, [
        {
          id: 522,
          name: 'nightly',
          projectType: 'urls',
          scrapingInterval: 'daily',
          schedulingEnabled: true,
          projectInput: { type: 'list', list },
        },
      ]);
    const { result: run, unmatched } = await withUnmatched(() =>
      runScrapeform(['plan', '--state', path.join(folder.dir(), 'state.json'), folder.dir()], { env }),
    );
    expect([run.code, listed.isDone(), unmatched]).toEqual([1, true, []]);
    expect(run.stderr.split('\n')[0]).toBe(
      `error: GET ${PIPELINE_ORIGIN}/api/projects?api_key=***: 200: unexpected response from GET /api/projects: field 0.projectInput.list: Invalid input: expected array, received ${received}`,
    );
    expect(run.stderr).not.toContain('internal error');
    expect(run.stderr).not.toContain(SENTINEL_KEY);
  });
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
        runScrapeform(['plan', '--json', '--state', statePath, folder.dir()], { env }),
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
      env,
    });
    expect([applied.code, posts.n]).toEqual([0, 1]);
    expect(applied.stdout).toContain('✓ project.nightly create 522');
    expect(applied.stdout + applied.stderr).not.toContain('warning');
    expect(applied.stdout + applied.stderr).not.toContain(SENTINEL_KEY);
    await expectEmptyPlans(statePath);
  });
});
