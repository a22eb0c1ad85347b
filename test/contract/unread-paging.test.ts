import nock from 'nock';
import { describe, expect, it } from 'vitest';
import {
  KEY_QUERY,
  PARSER_ORIGIN,
  PIPELINE_ORIGIN,
  SENTINEL_KEY,
  createTestApi,
  useNock,
} from '../helpers/api.js';

/**
 * Review: list answers paged in shapes scrapeform does not follow (Strapi's nested `meta.pagination`, AWS's
 * `nextToken`, GraphQL's `pageInfo`, `has_next` with `next_offset`, `total_records`) were read as ending on their
 * first page, and each object on a later page was planned as a paid create. Such a page is now refused, naming what
 * says the list goes on; answers that say no more in those shapes are read as before.
 */
useNock();

const parser = (id: string) => ({ id, name: `n-${id}`, status: 'FINISHED', version: 1 });
const two = [parser('a'), parser('b')];

describe('a list page that says, in a form not followed, that the list goes on', () => {
  it.each([
    [
      'meta.pagination.pageCount',
      { data: two, meta: { pagination: { page: 1, pageSize: 2, pageCount: 2, total: 3 } } },
      '2',
    ],
    ['nextToken', { items: two, nextToken: 'abc' }, '"abc"'],
    ['pageInfo.hasNextPage', { data: two, pageInfo: { hasNextPage: true, endCursor: 'abc' } }, 'true'],
    ['has_next', { results: two, has_next: true, next_offset: 2 }, 'true'],
    ['total_records', { data: two, total_records: 3 }, '3'],
    [
      '@odata.nextLink',
      { data: two, '@odata.nextLink': `${PARSER_ORIGIN}/parsers?$skip=2&api_key=${SENTINEL_KEY}` },
      '"',
    ],
  ])('%s: refused as incomplete, naming the field', async (field, body, shown) => {
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, body);
    const error = (await createTestApi()
      .parsers.list()
      .catch((e: unknown) => e)) as { code: string; message: string };
    expect(error.code).toBe('api.pagination');
    expect(error.message).toContain(`field ${field}: ${shown}`);
    expect(error.message).toContain(
      'says the list goes on, in a way scrapeform does not follow; the list is incomplete and nothing is planned from it',
    );
    expect(error.message).not.toContain(SENTINEL_KEY);
  });

  it('a projects list too', async () => {
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, {
        data: [{ id: 1, name: 'p-1' }],
        meta: { pagination: { page: 1, pageSize: 1, pageCount: 2, total: 2 } },
      });
    await expect(createTestApi().projects.list()).rejects.toMatchObject({ code: 'api.pagination' });
  });
});

describe('the same shapes saying the list ends, and counts of other things: read as the whole list', () => {
  it.each([
    ['pageCount 1', { data: two, meta: { pagination: { page: 1, pageSize: 25, pageCount: 1, total: 2 } } }],
    ['pageInfo with no next page', { data: two, pageInfo: { hasNextPage: false, endCursor: 'abc' } }],
    ['nextToken null', { items: two, nextToken: null }],
    ['has_next false', { results: two, has_next: false, next_offset: null }],
    ['total_records equal', { data: two, total_records: 2 }],
    [
      'a total of something else',
      { data: two, meta: { credits: { total: 1000 } }, stats: { totalRequests: 5000 } },
    ],
  ])('%s', async (_what, body) => {
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, body);
    expect((await createTestApi().parsers.list()).map((p) => p.name)).toEqual(['n-a', 'n-b']);
  });
});
