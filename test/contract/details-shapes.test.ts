import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { parserState, stateOf } from '../helpers/state.js';
import { runScrapeform } from '../helpers/cli.js';
import { contractFolder } from '../helpers/contract-folder.js';
import { ApiError } from '../../src/api/api-error.js';
import {
  KEY_QUERY,
  PARSER_ORIGIN,
  SENTINEL_KEY,
  createTestApi,
  counted,
  useNock,
  withUnmatched,
} from '../helpers/api.js';

useNock();

const folder = contractFolder('scrapeform-details-shapes-');
const { statePath } = folder;
const env = { SCRAPERAPI_API_KEY: SENTINEL_KEY, SCRAPEFORM_PARSER_URL: PARSER_ORIGIN };

const manifest = [
  'kind: Parser',
  'name: a',
  'urls: [https://books.example/a.html]',
  'fields:',
  '  title: { description: Book title }',
  '  reviews:',
  '    description: Reviews',
  '    type: array',
  '    fields:',
  '      author: { description: Author }',
  '',
].join('\n');

/** The seed's shape: one entry per field, children in dot notation, the parent listed with type array. */
const SEED_FIELDS = [
  { name: 'title', type: 'text' },
  { name: 'reviews', type: 'array' },
  { name: 'reviews.author', type: 'text' },
];

/** The same three fields in the other shapes a details answer may use. */
const SHAPES: [string, unknown[]][] = [
  [
    'children nested under `fields`, by their own name',
    [
      { name: 'title', type: 'text' },
      { name: 'reviews', type: 'array', fields: [{ name: 'author', type: 'text' }] },
    ],
  ],
  [
    'children nested under `children`, by their full name',
    [
      { name: 'title', type: 'text' },
      { name: 'reviews', type: 'array', children: [{ name: 'reviews.author', type: 'text' }] },
    ],
  ],
  [
    'a parent only implied by its children',
    [
      { name: 'title', type: 'text' },
      { name: 'reviews.author', type: 'text' },
    ],
  ],
];

function listed(version: number): unknown[] {
  return [{ id: 'p-1', name: 'a', status: 'FINISHED', error: null, generated_at: null, version }];
}

describe('ParsersClient.get: details fields in another shape than the seed', () => {
  it.each(SHAPES)('%s: read as the seed lists them', async (_what, fields) => {
    const api = createTestApi();
    nock(PARSER_ORIGIN)
      .get('/parsers/p-1/2')
      .query(KEY_QUERY)
      .reply(200, { name: 'a', status: 'FINISHED', version: 2, fields, example_result: [] });
    const details = await api.parsers.get('p-1', 2);
    expect(details.fields).toEqual(SEED_FIELDS);
  });
});

/**
 * Parser `a` recorded at version 1 (title, and reviews with its author) while the service shows version 2, moved
 * outside scrapeform, whose details list `fields`; the PATCHes and POSTs sent to it, counted.
 */
async function movedOutside(fields: unknown): Promise<{ patches: { n: number }; posts: { n: number } }> {
  await mkdir(path.dirname(statePath()), { recursive: true });
  await writeFile(path.join(folder.dir(), 'a.yaml'), manifest);
  await writeFile(
    statePath(),
    JSON.stringify(
      stateOf({
        'parser.a': parserState({
          id: 'p-1',
          name: 'a',
          version: 1,
          definition: {
            urls: ['https://books.example/a.html'],
            scraperParams: {},
            fields: [
              { name: 'title', description: 'Book title' },
              { name: 'reviews', description: 'Reviews', type: 'array' },
              { name: 'reviews.author', description: 'Author' },
            ],
          },
        }),
      }),
    ),
  );
  nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, listed(2)).persist();
  nock(PARSER_ORIGIN)
    .get((uri) => uri.startsWith('/parsers/p-1'))
    .query(KEY_QUERY)
    .reply(200, { name: 'a', status: 'FINISHED', version: 2, fields, example_result: [] })
    .persist();
  const patches = counted(nock(PARSER_ORIGIN).patch((uri) => uri.startsWith('/parsers/p-1')));
  const posts = counted(nock(PARSER_ORIGIN).post('/parsers'));
  return { patches, posts };
}

describe('plan and apply: a parser whose details list its fields in another shape', () => {
  it.each(SHAPES)(
    '%s, at a version moved outside scrapeform: no field reads as removed, and no add_fields is sent',
    async (_what, fields) => {
      const { patches, posts } = await movedOutside(fields);
      const run = await runScrapeform(['apply', '--auto-approve', '--state', statePath(), folder.dir()], {
        env,
      });
      nock.cleanAll();
      expect([patches.n, posts.n]).toEqual([0, 0]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(
        'No changes. The live services match the manifests.\n\nDrift: changed outside scrapeform\n  ! parser.a: version moved from 1 to 2 outside scrapeform\n',
      );
      expect(run.stdout).not.toContain('add_fields');
    },
  );

  it.each(SHAPES)('%s, adopted: the adoption is free, no add_fields', async (_what, fields) => {
    await writeFile(path.join(folder.dir(), 'a.yaml'), manifest);
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, listed(3));
    nock(PARSER_ORIGIN)
      .get('/parsers/p-1')
      .query(KEY_QUERY)
      .reply(200, { name: 'a', status: 'FINISHED', version: 3, fields, example_result: [] });
    const run = await runScrapeform(['plan', '--state', statePath(), folder.dir()], {
      env,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'Plan: 1 to adopt (no regeneration, no credits).\n\n<= parser.a (p-1)  adopt\n',
    );
    expect(run.stdout).not.toContain('add_fields');
  });
});

/**
 * Children nested under a key spelled in another case than `fields` or `children`, or under another key that lists
 * named entries: not read, so refused.
 */
const MISCASED: [string, unknown[], string][] = [
  [
    '`Fields`',
    [
      { name: 'title', type: 'text' },
      { name: 'reviews', type: 'array', Fields: [{ name: 'author', type: 'text' }] },
    ],
    'fields.1.Fields',
  ],
  [
    '`Children`, under a child nested as the code reads it',
    [
      { name: 'title', type: 'text' },
      {
        name: 'reviews',
        type: 'array',
        fields: [{ name: 'author', type: 'object', Children: [{ name: 'name', type: 'text' }] }],
      },
    ],
    'fields.1.fields.0.Children',
  ],
  // Review: children under a key of another name were dropped, and adoption sent them again as add_fields.
  [
    '`subfields`',
    [
      { name: 'title', type: 'text' },
      { name: 'reviews', type: 'array', subfields: [{ name: 'author', type: 'text' }] },
    ],
    'fields.1.subfields',
  ],
  [
    '`properties`',
    [{ name: 'reviews', type: 'array', properties: [{ name: 'author', type: 'text' }] }],
    'fields.0.properties',
  ],
];

const miscasedMessage = (version: number, path: string, key: string): string =>
  `GET ${PARSER_ORIGIN}/parsers/p-1${version === 0 ? '' : `/${version}`}?api_key=***: 200: unexpected response from GET /parsers/p-1${version === 0 ? '' : `/${version}`}: field ${path}: children listed under "${key}" are not read (only "fields" and "children" are): read without them, they would be planned as new fields, a paid regeneration; nothing is planned from this answer`;

describe('details fields: children nested under a key of another case are refused, never dropped', () => {
  it.each(MISCASED)(
    'ParsersClient.get, children under %s: api.bad-response naming the path',
    async (_what, fields, at) => {
      const api = createTestApi();
      nock(PARSER_ORIGIN)
        .get('/parsers/p-1/2')
        .query(KEY_QUERY)
        .reply(200, { name: 'a', status: 'FINISHED', version: 2, fields, example_result: [] });
      const error = await api.parsers.get('p-1', 2).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).code).toBe('api.bad-response');
      expect((error as ApiError).message).toBe(miscasedMessage(2, at, at.slice(at.lastIndexOf('.') + 1)));
    },
  );

  it('ParsersClient.get, a key spelled so holding no list (`Children: 2`, a count; `Fields: "x"`), or a list of other things than named entries: read as it is, not refused', async () => {
    const api = createTestApi();
    nock(PARSER_ORIGIN)
      .get('/parsers/p-1/2')
      .query(KEY_QUERY)
      .reply(200, {
        name: 'a',
        status: 'FINISHED',
        version: 2,
        fields: [
          { name: 'title', type: 'text', Children: 2, examples: ['Dune', 'Emma'] },
          { name: 'tags', type: 'array', Fields: 'x', CHILDREN: { count: 1 }, options: [{ value: 1 }] },
        ],
        example_result: [],
      });
    const details = await api.parsers.get('p-1', 2);
    expect(details.fields.map((field) => field.name)).toEqual(['title', 'tags']);
  });

  it('ParsersClient.get with fieldsUnread (a wait, a parse): the fields are not read, so not refused', async () => {
    const api = createTestApi();
    nock(PARSER_ORIGIN).get('/parsers/p-1/2').query(KEY_QUERY).reply(200, {
      name: 'a',
      status: 'FINISHED',
      version: 2,
      fields: MISCASED[0]?.[1],
      example_result: [],
    });
    const details = await api.parsers.get('p-1', 2, undefined, { fieldsUnread: true });
    expect(details.status).toBe('FINISHED');
  });

  it('adoption (plan): refused naming the path, nothing planned (not the child as a new field)', async () => {
    await writeFile(path.join(folder.dir(), 'a.yaml'), manifest);
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, listed(3));
    nock(PARSER_ORIGIN).get('/parsers/p-1').query(KEY_QUERY).reply(200, {
      name: 'a',
      status: 'FINISHED',
      version: 3,
      fields: MISCASED[0]?.[1],
      example_result: [],
    });
    const { result: run, unmatched } = await withUnmatched(() =>
      runScrapeform(['plan', '--state', statePath(), folder.dir()], { env }),
    );
    expect(unmatched).toEqual([]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(miscasedMessage(0, 'fields.1.Fields', 'Fields'));
    expect(run.stderr).not.toContain(SENTINEL_KEY);
  });

  it('apply after a version moved outside scrapeform: refused, no PATCH (add_fields) and no POST', async () => {
    const { patches, posts } = await movedOutside(MISCASED[0]?.[1]);
    const run = await runScrapeform(['apply', '--auto-approve', '--state', statePath(), folder.dir()], {
      env,
    });
    nock.cleanAll();
    expect([patches.n, posts.n]).toEqual([0, 0]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('field fields.1.Fields: children listed under "Fields" are not read');
  });
});
