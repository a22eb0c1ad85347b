// Projects are adopted, created and recovered by name; a list that leaves names out (the seed shows no project
// answer) must not read as "no project of that name", or a duplicate is created beside the live one.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import type { ApiError } from '../../src/api/api-error.js';
import { runScrapeform } from '../helpers/cli.js';
import {
  KEY_QUERY,
  PIPELINE_ORIGIN,
  SENTINEL_KEY,
  createTestApi,
  useNock,
  withUnmatched,
} from '../helpers/api.js';

useNock();

const nightly = {
  id: 102,
  name: 'nightly',
  projectType: 'urls',
  projectInput: { type: 'list', list: ['https://books.example/p1.html'] },
};

describe('a project list whose items have no name', () => {
  it('reads each nameless project by id for its name', async () => {
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, [
        { id: 101, name: 'other' },
        { id: 102, projectType: 'urls' },
        { id: 103, name: null },
      ]);
    nock(PIPELINE_ORIGIN).get('/api/projects/102').query(KEY_QUERY).reply(200, nightly);
    nock(PIPELINE_ORIGIN).get('/api/projects/103').query(KEY_QUERY).reply(200, { id: 103, name: 'weekly' });
    const listed = await createTestApi().projects.list();
    expect(listed.map((p) => [p.id, p.name])).toEqual([
      [101, 'other'],
      [102, 'nightly'],
      [103, 'weekly'],
    ]);
    expect(listed[1]).toEqual(nightly);
  });

  it.each([
    [404, { error: 'not found' }, 'reading it by id answered 404'],
    [200, { id: 102, projectType: 'urls' }, 'reading it by id gives no name either'],
  ])(
    'a nameless project whose read by id (%s) gives no name is a bad response: nothing is planned from the list',
    async (status, body, why) => {
      nock(PIPELINE_ORIGIN)
        .get('/api/projects')
        .query(KEY_QUERY)
        .reply(200, [{ id: 102, projectType: 'urls' }]);
      nock(PIPELINE_ORIGIN).get('/api/projects/102').query(KEY_QUERY).reply(status, body);
      const error = (await createTestApi()
        .projects.list()
        .catch((e: unknown) => e)) as ApiError;
      expect([error.code, error.retryable]).toEqual(['api.bad-response', false]);
      expect(error.message).toBe(
        `GET ${PIPELINE_ORIGIN}/api/projects/102?api_key=***: ${status}: unexpected response from GET /api/projects/102: the project list shows project 102 without a name, and ${why}; projects are adopted and created by name, so no project is adopted or created from this list`,
      );
    },
  );

  it('plan adopts the live project instead of creating a duplicate beside it', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-nameless-'));
    try {
      await writeFile(
        path.join(dir, 'p.yaml'),
        'kind: Project\nname: nightly\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/p1.html] }\n',
      );
      nock(PIPELINE_ORIGIN)
        .get('/api/projects')
        .query(KEY_QUERY)
        .reply(200, [{ id: 102, projectType: 'urls' }]);
      nock(PIPELINE_ORIGIN).get('/api/projects/102').query(KEY_QUERY).reply(200, nightly);
      const { result: run, unmatched } = await withUnmatched(() =>
        runScrapeform(['plan', '--state', path.join(dir, 'state.json'), dir], {
          env: { SCRAPERAPI_API_KEY: SENTINEL_KEY, SCRAPEFORM_PIPELINE_URL: PIPELINE_ORIGIN },
        }),
      );
      expect(unmatched).toEqual([]);
      expect(run.stdout).toContain('adopted: the live project 102 has this name');
      expect(run.stdout).not.toContain('not yet created');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
