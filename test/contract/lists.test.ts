import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import type { ApiError } from '../../src/api/api-error.js';
import { readList } from '../../src/api/read-list.js';
import { JobSchema } from '../../src/api/wire-schemas.js';
import { runScrapeform } from '../helpers/cli.js';
import {
  KEY_QUERY,
  PARSER_ORIGIN,
  PIPELINE_ORIGIN,
  SENTINEL_KEY,
  createTestApi,
  everythingShown,
  useNock,
  withUnmatched,
} from '../helpers/api.js';

useNock();

const parser = (id: string, status = 'FINISHED') => ({
  id,
  name: `n-${id}`,
  status,
  error: null,
  generated_at: null,
  version: 1,
});
const project = (id: number) => ({ id, name: `p-${id}` });

describe('lists: wrapped answers are read (issue 13: a list is not proof of absence)', () => {
  it.each(['data', 'items', 'results', 'parsers'])('parsers under %s', async (key) => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, { [key]: [parser('a'), parser('b')], total: 2 });
    expect((await createTestApi().parsers.list()).map((p) => p.id)).toEqual(['a', 'b']);
  });

  it.each(['data', 'projects'])('projects under %s', async (key) => {
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, { [key]: [project(1)] });
    expect((await createTestApi().projects.list()).map((p) => p.id)).toEqual([1]);
  });

  it('jobs under data', async () => {
    nock(PIPELINE_ORIGIN)
      .get('/api/projects/5/jobs')
      .query(KEY_QUERY)
      .reply(200, { data: [{ id: 'j-1', status: null }] });
    expect(await createTestApi().projects.listJobs(5)).toEqual([{ id: 'j-1' }]);
  });

  it('an object holding no array is a bad response, not an empty list', async () => {
    nock(PARSER_ORIGIN).get('/parsers').query(true).reply(200, { parsers: 'none', count: 0 });
    const error = (await createTestApi()
      .parsers.list()
      .catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('api.bad-response');
    expect(error.message).toBe(
      `GET ${PARSER_ORIGIN}/parsers?api_key=***: 200: unexpected response from GET /parsers: field (body): expected an array, or an object holding one under data, items, results, parsers`,
    );
  });

  it('lists under two keys that differ are a bad response: read as the empty one, every object would be created again', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(true)
      .reply(200, { data: [], parsers: [parser('a')] });
    const error = (await createTestApi()
      .parsers.list()
      .catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('api.bad-response');
    expect(error.message).toBe(
      `GET ${PARSER_ORIGIN}/parsers?api_key=***: 200: unexpected response from GET /parsers: field (body): the answer holds a different list under each of data, parsers; which one is the list cannot be told, so nothing is planned from it`,
    );
  });

  it('the same list under two keys is that list', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(true)
      .reply(200, { items: [parser('a')], parsers: [parser('a')] });
    expect((await createTestApi().parsers.list()).map((p) => p.id)).toEqual(['a']);
  });

  it('a bad item names its path inside the wrapper', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(true)
      .reply(200, { data: [parser('a'), { name: 'x' }] });
    const error = (await createTestApi()
      .parsers.list()
      .catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('api.bad-response');
    expect(error.message).toContain('unexpected response from GET /parsers: field data.1.id:');
  });

  it('normalises list statuses (FINISED is FINISHED; unknown values pass unchanged)', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(true)
      .reply(200, [parser('a', 'FINISED'), parser('b', 'generating'), parser('c', 'QUEUED')]);
    expect((await createTestApi().parsers.list()).map((p) => p.status)).toEqual([
      'FINISHED',
      'GENERATING',
      'QUEUED',
    ]);
  });
});

describe('lists: paging', () => {
  it('follows `next` as a URL on the same origin, with the key in the query of every page', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, { data: [parser('a')], next: `${PARSER_ORIGIN}/parsers?after=a&api_key=${SENTINEL_KEY}` });
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query({ ...KEY_QUERY, after: 'a' })
      .reply(200, { data: [parser('b')], next: '/parsers?after=b' });
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query({ ...KEY_QUERY, after: 'b' })
      .reply(200, { data: [parser('c')], next: null });
    const { parsers, events } = createTestApi();
    expect((await parsers.list()).map((p) => p.id)).toEqual(['a', 'b', 'c']);
    expect(JSON.stringify(events)).not.toContain(SENTINEL_KEY);
  });

  it('follows `next_page` as a page number and `nextPage` as a cursor', async () => {
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, { data: [project(1)], next_page: 2 });
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query({ ...KEY_QUERY, page: '2' })
      .reply(200, { data: [project(2)], nextPage: 'eyJpZCI6Mn0' });
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query({ ...KEY_QUERY, cursor: 'eyJpZCI6Mn0' })
      .reply(200, { data: [project(3)], nextPage: '' });
    expect((await createTestApi().projects.list()).map((p) => p.id)).toEqual([1, 2, 3]);
  });

  it('follows has_more / hasMore with page', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, { data: [parser('a')], page: 1, has_more: true });
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query({ ...KEY_QUERY, page: '2' })
      .reply(200, { data: [parser('b')], page: 2, hasMore: true });
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query({ ...KEY_QUERY, page: '3' })
      .reply(200, { data: [], page: 3, has_more: false, total_pages: 9 });
    expect((await createTestApi().parsers.list()).map((p) => p.id)).toEqual(['a', 'b']);
  });

  it('follows page with total_pages', async () => {
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, { projects: [project(1)], page: 1, total_pages: 2 });
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query({ ...KEY_QUERY, page: '2' })
      .reply(200, { projects: [project(2)], page: 2, total_pages: 2 });
    expect((await createTestApi().projects.list()).map((p) => p.id)).toEqual([1, 2]);
  });

  it("follows Laravel's paginator: next_page_url, and links.next with meta", async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, {
        data: [parser('a'), parser('b')],
        current_page: 1,
        last_page: 2,
        per_page: 2,
        total: 3,
        links: [{ url: null, label: 'Previous', active: false }],
        next_page_url: `${PARSER_ORIGIN}/parsers?page=2`,
      });
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query({ ...KEY_QUERY, page: '2' })
      .reply(200, { data: [parser('c')], current_page: 2, last_page: 2, total: 3, next_page_url: null });
    expect((await createTestApi().parsers.list()).map((p) => p.id)).toEqual(['a', 'b', 'c']);

    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, {
        data: [project(1)],
        links: { first: '/api/projects?page=1', next: '/api/projects?page=2' },
        meta: { current_page: 1, last_page: 2, total: 2 },
      });
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query({ ...KEY_QUERY, page: '2' })
      .reply(200, {
        data: [project(2)],
        links: { next: null },
        meta: { current_page: 2, last_page: 2, total: 2 },
      });
    expect((await createTestApi().projects.list()).map((p) => p.id)).toEqual([1, 2]);
  });

  it('follows a page number with the last page inside meta', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, { items: [parser('a')], meta: { currentPage: 1, lastPage: 2 } });
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query({ ...KEY_QUERY, page: '2' })
      .reply(200, { items: [parser('b')], meta: { currentPage: 2, lastPage: 2 } });
    expect((await createTestApi().parsers.list()).map((p) => p.id)).toEqual(['a', 'b']);
  });

  it('follows offset paging: offset and a total beyond what was read', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, { data: [parser('a'), parser('b')], total: 3, limit: 2, offset: 0 });
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query({ ...KEY_QUERY, offset: '2' })
      .reply(200, { data: [parser('c')], total: 3, limit: 2, offset: 2 });
    expect((await createTestApi().parsers.list()).map((p) => p.id)).toEqual(['a', 'b', 'c']);
  });

  it('an object listed again on a later page (objects added while paging) is one object, kept once', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, { data: [parser('a'), parser('b')], next: 2 });
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query({ ...KEY_QUERY, page: '2' })
      .reply(200, { data: [parser('b'), parser('c')], next: null });
    expect((await createTestApi().parsers.list()).map((p) => p.id)).toEqual(['a', 'b', 'c']);
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, [project(7), { ...project(7), id: '7' }, project(8)]);
    expect((await createTestApi().projects.list()).map((p) => p.id)).toEqual([7, 8]);
  });

  it('a stated total is compared with the objects read once: a repeat that stands for one left out is an error', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, { data: [parser('a'), parser('b')], total: 3, limit: 2, offset: 0 });
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query({ ...KEY_QUERY, offset: '2' })
      .reply(200, { data: [parser('b')], total: 3, limit: 2, offset: 2 });
    const error = (await createTestApi()
      .parsers.list()
      .catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('api.pagination');
    expect(error.message).toContain(
      'the answer says the list holds 3 but 2 were read, with no next page given in a way scrapeform reads; the list is incomplete and nothing is planned from it',
    );
  });

  it.each([
    ['total', { data: [parser('a'), parser('b')], total: 3 }],
    ['meta.total_count', { results: [parser('a'), parser('b')], meta: { total_count: 3 } }],
  ])(
    'a list stating a larger %s than was read, with no next page it can follow, is an error',
    async (_, body) => {
      nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, body);
      const error = (await createTestApi()
        .parsers.list()
        .catch((e: unknown) => e)) as ApiError;
      expect([error.code, error.retryable]).toEqual(['api.pagination', false]);
      expect(error.message).toBe(
        `GET ${PARSER_ORIGIN}/parsers?api_key=***: 200: unexpected response from GET /parsers: the answer says the list holds 3 but 2 were read, with no next page given in a way scrapeform reads; the list is incomplete and nothing is planned from it`,
      );
    },
  );

  it("a project's jobs are read whatever total their answer states: they plan nothing, and it may count every job", async () => {
    nock(PIPELINE_ORIGIN)
      .get('/api/projects/5/jobs')
      .query(KEY_QUERY)
      .reply(200, { jobs: [{ id: 'j-2' }, { id: 'j-1' }], total: 57 });
    expect((await createTestApi().projects.listJobs(5)).map((j) => j.id)).toEqual(['j-2', 'j-1']);
  });

  it('apply refuses such a list before any call: the object on a page it cannot read is not created again', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-pages-'));
    try {
      await writeFile(
        path.join(dir, 'nightly.yaml'),
        'kind: Project\nname: p-3\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/] }\nscrapingInterval: daily\nscheduledAt: "2099-01-01T00:00:00Z"\n',
      );
      nock(PIPELINE_ORIGIN)
        .get('/api/projects')
        .query(KEY_QUERY)
        .reply(200, { data: [project(1), project(2)], total: 3, per_page: 2, current: 1 });
      const { result: run, unmatched } = await withUnmatched(() =>
        runScrapeform(['apply', '--auto-approve', '--state', path.join(dir, 'state.json'), dir], {
          env: { SCRAPERAPI_API_KEY: SENTINEL_KEY, SCRAPEFORM_PIPELINE_URL: PIPELINE_ORIGIN },
        }),
      );
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        'the answer says the list holds 3 but 2 were read, with no next page given in a way scrapeform reads; the list is incomplete and nothing is planned from it',
      );
      expect(unmatched).toEqual([]);
      expect(run.stdout + run.stderr).not.toContain(SENTINEL_KEY);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a server that ignores the page parameter is an error, never a partial or endless list', async () => {
    const same = { data: [parser('a')], page: 1, total_pages: 3 };
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, same);
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query({ ...KEY_QUERY, page: '2' })
      .reply(200, same);
    const error = (await createTestApi()
      .parsers.list()
      .catch((e: unknown) => e)) as ApiError;
    expect([error.code, error.retryable]).toEqual(['api.pagination', false]);
    expect(error.message).toContain(
      'the same page came back twice while paging; the list is incomplete and nothing is planned from it',
    );
  });

  it('a next page pointing back to a page already read is an error', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, { data: [parser('a')], next: '/parsers?after=a' });
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query({ ...KEY_QUERY, after: 'a' })
      .reply(200, { data: [parser('b')], next: `/parsers?api_key=${SENTINEL_KEY}` });
    const error = (await createTestApi()
      .parsers.list()
      .catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('api.pagination');
    expect(error.message).toContain(
      `the answer points back to a page already read (${PARSER_ORIGIN}/parsers); the list is incomplete`,
    );
    expect(everythingShown(error)).not.toContain(SENTINEL_KEY);
  });

  it('a next page on another origin is not fetched: the key would go with it', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, {
        data: [parser('a')],
        next: `https://elsewhere.test/parsers?page=2&api_key=${SENTINEL_KEY}`,
      });
    const error = (await createTestApi()
      .parsers.list()
      .catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('api.pagination');
    expect(error.message).toContain(
      'the next page is on another origin (https://elsewhere.test/parsers?page=2&api_key=***); not followed, so the key was not sent there',
    );
    expect(everythingShown(error)).not.toContain(SENTINEL_KEY);
  });

  it('"has more" without a way to get it is an error', async () => {
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, { data: [project(1)], hasMore: true });
    const error = (await createTestApi()
      .projects.list()
      .catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('api.pagination');
    expect(error.message).toContain('says it has more but gives no next page or page number');
  });

  it.each([
    ['"true"', 'true'],
    ['1', 1],
    ['"1"', '1'],
  ])(
    'a "has more" written as %s without a way to get it is an error, not the end of the list',
    async (_, value) => {
      nock(PIPELINE_ORIGIN)
        .get('/api/projects')
        .query(KEY_QUERY)
        .reply(200, { data: [project(1)], hasMore: value });
      const error = await listError(() => createTestApi().projects.list());
      expect(error.code).toBe('api.pagination');
      expect(error.message).toBe(
        `GET ${PIPELINE_ORIGIN}/api/projects?api_key=***: 200: unexpected response from GET /api/projects: the answer says it has more but gives no next page or page number; the list is incomplete and nothing is planned from it`,
      );
    },
  );

  /** Parser `a` on a page whose has_more is "True", then `b` on page 2, whose has_more is "false", with `paging`. */
  const twoPages = (paging: Record<string, number>): void => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, { data: [parser('a')], has_more: 'True', page: 1, per_page: 5 });
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query({ ...KEY_QUERY, page: '2' })
      .reply(200, { data: [parser('b')], has_more: 'false', ...paging });
  };

  it('a "has more" written as a string is followed with its page, and "false" ends the list', async () => {
    twoPages({ page: 2, per_page: 5, total_pages: 2 });
    expect((await createTestApi().parsers.list()).map((p) => p.id)).toEqual(['a', 'b']);
  });

  it.each([
    ['a page below the last', { page: 2, per_page: 5, total_pages: 9 }, 'it is page 2 of 9'],
    [
      'a total not reached',
      { page: 2, per_page: 5, total: 12 },
      'the list holds 12 objects, of which 2 were read',
    ],
  ])(
    'a "has more" of "false" that the same answer contradicts (%s) is refused, not read as the end',
    async (_what, paging, said) => {
      twoPages(paging);
      const error = await listError(() => createTestApi().parsers.list());
      expect(error.code).toBe('api.pagination');
      expect(error.message).toBe(
        `GET ${PARSER_ORIGIN}/parsers?page=2&api_key=***: 200: unexpected response from GET /parsers: has_more says the list ends, but the same answer says ${said}; the list is incomplete and nothing is planned from it`,
      );
    },
  );

  it('a "has more" of no readable value is an error naming it, never read as the end', async () => {
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, { data: [project(1)], has_more: 'maybe' });
    const error = await listError(() => createTestApi().projects.list());
    expect(error.code).toBe('api.pagination');
    expect(error.message).toBe(
      `GET ${PIPELINE_ORIGIN}/api/projects?api_key=***: 200: unexpected response from GET /api/projects: field has_more: expected true or false, got "maybe"; the list is incomplete and nothing is planned from it`,
    );
  });

  it('stops at the page bound with an error', async () => {
    const { transport } = createTestApi();
    for (let page = 1; page <= 3; page++) {
      nock(PIPELINE_ORIGIN)
        .get('/api/projects/5/jobs')
        .query(page === 1 ? KEY_QUERY : { ...KEY_QUERY, page: String(page) })
        .reply(200, { data: [{ id: page }], next: page + 1 });
    }
    const error = (await readList(
      transport,
      {
        method: 'GET',
        url: `${PIPELINE_ORIGIN}/api/projects/5/jobs`,
        keyIn: 'query',
        expect: [200],
        idempotent: true,
      },
      JobSchema,
      'jobs',
      { maxPages: 3 },
    ).catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('api.pagination');
    expect(error.message).toContain('still more pages after 3; the list is incomplete');
  });
});

/** The error of a list that could not be read whole. */
async function listError(read: () => Promise<unknown>): Promise<ApiError> {
  return (await read().then(
    () => {
      throw new Error('the list was read as complete');
    },
    (e: unknown) => e,
  )) as ApiError;
}

describe('lists: paging the answer does not rule out is followed or refused, never read as the end', () => {
  it('a bare array with no paging headers is the whole list, read in one call', async () => {
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, [project(1), project(2)]);
    expect((await createTestApi().projects.list()).map((p) => p.id)).toEqual([1, 2]);
  });

  it('follows an RFC 8288 Link header rel="next" (bare array pages), relative or absolute, with X-Total-Count', async () => {
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, [project(1)], {
        link: `<${PIPELINE_ORIGIN}/api/projects?page=2>; rel="next", <${PIPELINE_ORIGIN}/api/projects?page=3>; rel="last"`,
        'x-total-count': '3',
      });
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query({ ...KEY_QUERY, page: '2' })
      .reply(200, [project(2)], { link: '</api/projects?page=3>; rel=next', 'x-total-count': '3' });
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query({ ...KEY_QUERY, page: '3' })
      .reply(200, [project(3)], { link: '</api/projects?page=1>; rel="first prev"', 'x-total-count': '3' });
    expect((await createTestApi().projects.list()).map((p) => p.id)).toEqual([1, 2, 3]);
  });

  it('an X-Total-Count larger than the bare array, with no Link to the rest, is an error', async () => {
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, [project(1)], { 'x-total-count': '2' });
    const error = await listError(() => createTestApi().projects.list());
    expect([error.code, error.retryable]).toEqual(['api.pagination', false]);
    expect(error.message).toBe(
      `GET ${PIPELINE_ORIGIN}/api/projects?api_key=***: 200: unexpected response from GET /api/projects: the answer says the list holds 2 but 1 was read, with no next page given in a way scrapeform reads; the list is incomplete and nothing is planned from it`,
    );
  });

  it('a Link rel="next" on another origin is not followed: the key would go with it', async () => {
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, [project(1)], { link: '<https://elsewhere.test/api/projects?page=2>; rel="next"' });
    const error = await listError(() => createTestApi().projects.list());
    expect(error.code).toBe('api.pagination');
    expect(error.message).toContain(
      'the next page is on another origin (https://elsewhere.test/api/projects?page=2); not followed, so the key was not sent there',
    );
  });

  it('a full page (per_page) with a page number and no total or next: the next page is read, and a short one ends the list', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, { data: [parser('a'), parser('b')], page: 1, per_page: 2 });
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query({ ...KEY_QUERY, page: '2' })
      .reply(200, { data: [parser('c')], page: 2, per_page: 2 });
    expect((await createTestApi().parsers.list()).map((p) => p.id)).toEqual(['a', 'b', 'c']);
  });

  it('a page short of its per_page ends the list in one call', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, { data: [parser('a')], page: 1, per_page: 2 });
    expect((await createTestApi().parsers.list()).map((p) => p.id)).toEqual(['a']);
  });

  it('a page number with no size, total or next: pages are read until an empty one', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, { data: [parser('a'), parser('b')], page: 1 });
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query({ ...KEY_QUERY, page: '2' })
      .reply(200, { data: [parser('c'), parser('d')], page: 2 });
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query({ ...KEY_QUERY, page: '3' })
      .reply(200, { data: [], page: 3 });
    expect((await createTestApi().parsers.list()).map((p) => p.id)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('a page number with a total and no last page: pages are read until the total', async () => {
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, { data: [project(1), project(2)], page: 1, total: 3 });
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query({ ...KEY_QUERY, page: '2' })
      .reply(200, { data: [project(3)], page: 2, total: 3 });
    expect((await createTestApi().projects.list()).map((p) => p.id)).toEqual([1, 2, 3]);
  });

  it('offset and limit with a full page and no total: the next offset is read, and a short page ends the list', async () => {
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, { projects: [project(1), project(2)], offset: 0, limit: 2 });
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query({ ...KEY_QUERY, offset: '2' })
      .reply(200, { projects: [project(3)], offset: 2, limit: 2 });
    expect((await createTestApi().projects.list()).map((p) => p.id)).toEqual([1, 2, 3]);
  });

  it('a full page whose server ignores the page asked for is an error, not the whole list', async () => {
    const same = { data: [parser('a'), parser('b')], page: 1, per_page: 2 };
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, same);
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query({ ...KEY_QUERY, page: '2' })
      .reply(200, same);
    const error = await listError(() => createTestApi().parsers.list());
    expect(error.code).toBe('api.pagination');
    expect(error.message).toContain('the same page came back twice while paging');
  });

  it('a full page stating its size but no page number, offset, total or next is an error', async () => {
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, { projects: [project(1), project(2)], limit: 2 });
    const error = await listError(() => createTestApi().projects.list());
    expect([error.code, error.retryable]).toEqual(['api.pagination', false]);
    expect(error.message).toBe(
      `GET ${PIPELINE_ORIGIN}/api/projects?api_key=***: 200: unexpected response from GET /api/projects: the page is full (2 of at most 2) and the answer gives no total, next page, page number or offset; the list may go on, so it is incomplete and nothing is planned from it`,
    );
  });

  it('an explicit "no next page" ends the list without another call', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, { data: [parser('a'), parser('b')], page: 1, per_page: 2, links: { next: null } });
    expect((await createTestApi().parsers.list()).map((p) => p.id)).toEqual(['a', 'b']);
  });
});

describe('lists: a cursor alone says where the next page is (Stripe, Slack, Google)', () => {
  it('follows next_cursor and nextCursor as `cursor`; null ends the list', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, { data: [parser('a')], next_cursor: 'cur_b' });
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query({ ...KEY_QUERY, cursor: 'cur_b' })
      .reply(200, { data: [parser('b')], meta: { nextCursor: 'cur_c' } });
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query({ ...KEY_QUERY, cursor: 'cur_c' })
      .reply(200, { data: [parser('c')], next_cursor: null });
    expect((await createTestApi().parsers.list()).map((p) => p.id)).toEqual(['a', 'b', 'c']);
  });

  it("follows Slack's response_metadata.next_cursor; an empty one ends the list", async () => {
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, { ok: true, projects: [project(1)], response_metadata: { next_cursor: 'dXNlcjpVMDYx' } });
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query({ ...KEY_QUERY, cursor: 'dXNlcjpVMDYx' })
      .reply(200, { ok: true, projects: [project(2)], response_metadata: { next_cursor: '' } });
    expect((await createTestApi().projects.list()).map((p) => p.id)).toEqual([1, 2]);
  });

  it('follows nextPageToken and next_page_token as `page_token`; a page without one ends the list', async () => {
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, { items: [project(1)], nextPageToken: 'CgQIARAB' });
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query({ ...KEY_QUERY, page_token: 'CgQIARAB' })
      .reply(200, { items: [project(2)], pagination: { next_page_token: '2' } });
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query({ ...KEY_QUERY, page_token: '2' })
      .reply(200, { items: [project(3)], pagination: { next_page_token: false } });
    expect((await createTestApi().projects.list()).map((p) => p.id)).toEqual([1, 2, 3]);
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, { items: [parser('a')], nextPageToken: 'tok' });
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query({ ...KEY_QUERY, page_token: 'tok' })
      .reply(200, { items: [parser('b')] });
    expect((await createTestApi().parsers.list()).map((p) => p.id)).toEqual(['a', 'b']);
  });

  it('a cursor given again after it was followed is an error, never a loop', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, { data: [parser('a')], next_cursor: 'c1' });
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query({ ...KEY_QUERY, cursor: 'c1' })
      .reply(200, { data: [parser('b')], next_cursor: 'c2' });
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query({ ...KEY_QUERY, cursor: 'c2' })
      .reply(200, { data: [parser('c')], next_cursor: 'c1' });
    const error = await listError(() => createTestApi().parsers.list());
    expect([error.code, error.retryable]).toEqual(['api.pagination', false]);
    expect(error.message).toBe(
      `GET ${PARSER_ORIGIN}/parsers?cursor=c2&api_key=***: 200: unexpected response from GET /parsers: the answer gives a cursor already followed (cursor=c1); the list is incomplete and nothing is planned from it`,
    );
    expect(everythingShown(error)).not.toContain(SENTINEL_KEY);
  });

  it('a server that ignores the cursor but names a new one each time: the third page, the second all read already, ends it', async () => {
    // Review: neither the body nor the cursor repeated, and the list was followed for 1,000 pages.
    let n = 0;
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(true)
      .times(4)
      .reply(() => [200, { data: [parser('a'), parser('b')], next_cursor: `c${++n}` }]);
    const error = await listError(() => createTestApi().parsers.list());
    expect(n).toBe(3);
    expect([error.code, error.retryable]).toEqual(['api.pagination', false]);
    expect(error.message).toBe(
      `GET ${PARSER_ORIGIN}/parsers?cursor=c2&api_key=***: 200: unexpected response from GET /parsers: pages 2 and 3 hold only objects already read, and give a next page; the list is incomplete and nothing is planned from it`,
    );
    nock.cleanAll();
  });

  it('paging by offset while a whole page of parsers is added between two reads: the page shown again is followed, and the list read whole', async () => {
    // Review: page 2 showed page 1's parsers again (two were added, newest first), and the list was refused.
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, { data: [parser('d'), parser('c')], next: '/parsers?offset=2' });
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query({ ...KEY_QUERY, offset: '2' })
      .reply(200, { data: [parser('d'), parser('c')], next: '/parsers?offset=4' });
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query({ ...KEY_QUERY, offset: '4' })
      .reply(200, { data: [parser('b'), parser('a')] });
    const names = (await createTestApi().parsers.list()).map((p) => p.name);
    expect(names).toEqual(['n-d', 'n-c', 'n-b', 'n-a']);
    expect(nock.isDone()).toBe(true);
  });

  it('the same page token again, on a page that differs, is an error too', async () => {
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, { items: [project(1)], nextPageToken: 't1' });
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query({ ...KEY_QUERY, page_token: 't1' })
      .reply(200, { items: [project(2)], nextPageToken: 't1' });
    const error = await listError(() => createTestApi().projects.list());
    expect(error.code).toBe('api.pagination');
    expect(error.message).toContain('the answer gives a cursor already followed (page_token=t1)');
  });

  it.each([
    ['next_cursor', 42],
    ['nextCursor', true],
    ['next_page_token', { id: 'x' }],
    ['nextPageToken', ['x']],
  ])('a %s that is not a string, null, false or "" is an error', async (key, value) => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, { data: [parser('a')], [key]: value });
    const error = await listError(() => createTestApi().parsers.list());
    expect([error.code, error.retryable]).toEqual(['api.pagination', false]);
    expect(error.message).toBe(
      `GET ${PARSER_ORIGIN}/parsers?api_key=***: 200: unexpected response from GET /parsers: field ${key}: expected a cursor (a string), or null, false or "" for none, got ${JSON.stringify(value)}; the list is incomplete`,
    );
  });
});

describe("lists: a `count` may be the page's, not the list's", () => {
  it('a page number with a count equal to the objects on the page: the next page is read, and a shorter one ends the list', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, { data: [parser('a'), parser('b')], page: 1, count: 2 });
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query({ ...KEY_QUERY, page: '2' })
      .reply(200, { data: [parser('c')], page: 2, count: 1 });
    expect((await createTestApi().parsers.list()).map((p) => p.id)).toEqual(['a', 'b', 'c']);
  });

  it('an offset with such a count: the next offset is read, and an empty page ends the list', async () => {
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, { data: [project(1), project(2)], meta: { offset: 0, count: 2 } });
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query({ ...KEY_QUERY, offset: '2' })
      .reply(200, { data: [], meta: { offset: 2, count: 0 } });
    expect((await createTestApi().projects.list()).map((p) => p.id)).toEqual([1, 2]);
  });

  it('a count larger than the page is the total, read to its end', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, { data: [parser('a'), parser('b')], page: 1, count: 3 });
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query({ ...KEY_QUERY, page: '2' })
      .reply(200, { data: [parser('c')], page: 2, count: 3 });
    expect((await createTestApi().parsers.list()).map((p) => p.id)).toEqual(['a', 'b', 'c']);
  });

  it.each([
    ['total beside the page number', { data: [parser('a'), parser('b')], page: 1, total: 2 }],
    [
      'total_count beside the page number',
      { data: [parser('a'), parser('b')], page: 1, meta: { total_count: 2 } },
    ],
    ['count beside a total', { data: [parser('a'), parser('b')], page: 1, count: 2, meta: { total: 2 } }],
    ['count with no page number or offset', { data: [parser('a'), parser('b')], count: 2 }],
  ])('%s: the list ends in one call', async (_, body) => {
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, body);
    expect((await createTestApi().parsers.list()).map((p) => p.id)).toEqual(['a', 'b']);
  });

  it('a count that is a total beside a page number and X-Total-Count: the header is the total', async () => {
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, { data: [project(1), project(2)], page: 1, count: 2 }, { 'x-total-count': '2' });
    expect((await createTestApi().projects.list()).map((p) => p.id)).toEqual([1, 2]);
  });
});
