import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/api-error.js';
import { ScrapeformError } from '../../src/errors.js';
import { VERSION } from '../../src/version.js';
import {
  KEY_QUERY,
  PARSER_ORIGIN,
  SENTINEL_KEY,
  createTestApi,
  everythingShown,
  useNock,
} from '../helpers/api.js';

useNock();

const service = () => nock(PARSER_ORIGIN);

const details = {
  name: 'books-product',
  created_at: '2026-11-01T10:00:00.000Z',
  generated_at: '2026-11-01T10:00:41.000Z',
  status: 'FINISHED',
  error: null,
  example_result: [{ url: 'https://books.example/a.html', result: { title: 'A' } }],
  fields: [
    { name: 'title', type: 'text' },
    { name: 'reviews', type: 'array' },
    { name: 'reviews.author', type: 'text' },
  ],
  version: 3,
};

describe('ParsersClient: each endpoint of seed 1', () => {
  it('list: GET /parsers with the key in the query', async () => {
    const item = {
      id: 'p-1',
      name: 'books',
      status: 'FINISHED',
      error: null,
      generated_at: null,
      version: 2,
    };
    service()
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, [item, { ...item, id: 'p-2', extra: true }]);
    const { parsers } = createTestApi();
    const list = await parsers.list();
    expect(list.map((p) => [p.id, p.version])).toEqual([
      ['p-1', 2],
      ['p-2', 2],
    ]);
  });

  it('get: latest version without a version segment, a given version with one', async () => {
    service().get('/parsers/p-1').query(KEY_QUERY).reply(200, details);
    service()
      .get('/parsers/p-1/2')
      .query(KEY_QUERY)
      .reply(200, { ...details, version: 2 });
    const { parsers } = createTestApi();
    const latest = await parsers.get('p-1');
    expect(latest).toEqual({
      id: 'p-1',
      name: 'books-product',
      version: 3,
      status: 'FINISHED',
      error: null,
      createdAt: '2026-11-01T10:00:00.000Z',
      generatedAt: '2026-11-01T10:00:41.000Z',
      exampleResult: [{ url: 'https://books.example/a.html', result: { title: 'A' } }],
      fields: [
        { name: 'title', type: 'text' },
        { name: 'reviews', type: 'array' },
        { name: 'reviews.author', type: 'text' },
      ],
    });
    expect((await parsers.get('p-1', 2)).version).toBe(2);
  });

  it('get: reads example_results too, and a FAILED version with null results', async () => {
    const { example_result: results, ...rest } = details;
    service()
      .get('/parsers/p-1')
      .query(KEY_QUERY)
      .reply(200, { ...rest, example_results: results });
    service()
      .get('/parsers/p-2')
      .query(KEY_QUERY)
      .reply(200, {
        ...rest,
        status: 'FAILED',
        error: 'DownloadError: Failed to download https://x.example/ after 3 retries',
        example_result: null,
        fields: [],
        generated_at: null,
      });
    const { parsers } = createTestApi();
    expect((await parsers.get('p-1')).exampleResult).toEqual(results);
    const failed = await parsers.get('p-2');
    expect([failed.status, failed.error, failed.exampleResult, failed.fields]).toEqual([
      'FAILED',
      'DownloadError: Failed to download https://x.example/ after 3 retries',
      null,
      [],
    ]);
  });

  it('create: POST /parsers with the key in the JSON body; 201 {id, version: 0}', async () => {
    service()
      .post('/parsers', {
        name: 'books',
        urls: ['https://books.example/a.html'],
        scraper_params: { render: true },
        fields: [
          { name: 'title', description: 'Title', type: 'string', selector: 'h1' },
          { name: 'price', description: 'Price' },
        ],
        api_key: SENTINEL_KEY,
      })
      .reply(201, { id: 'p-9', version: 0 });
    const { parsers } = createTestApi();
    const created = await parsers.create({
      name: 'books',
      urls: ['https://books.example/a.html'],
      scraper_params: { render: true },
      fields: [
        { name: 'title', description: 'Title', type: 'string', selector: 'h1' },
        { name: 'price', description: 'Price' },
      ],
    });
    expect(created).toEqual({ id: 'p-9', version: 0 });
  });

  it.each([200, 202])(
    'create: a %i with {id, version} is the create landed too (the seed leaves the code open)',
    async (code) => {
      service()
        .post('/parsers', { name: 'b', urls: ['https://b.example/'], api_key: SENTINEL_KEY })
        .reply(code, { id: 'p-2', version: 0 });
      const created = await createTestApi().parsers.create({ name: 'b', urls: ['https://b.example/'] });
      expect(created).toEqual({ id: 'p-2', version: 0 });
    },
  );

  it('create: leaves out empty scraper_params and fields', async () => {
    service()
      .post('/parsers', { name: 'b', urls: ['https://b.example/'], api_key: SENTINEL_KEY })
      .reply(201, { id: 'p-1', version: 0 });
    await createTestApi().parsers.create({
      name: 'b',
      urls: ['https://b.example/'],
      scraper_params: {},
      fields: [],
    });
  });

  it('update: PATCH /parsers/{id}/{base version}; 200 means ready, with only the operations given', async () => {
    service()
      .patch('/parsers/p-1/3', {
        rename_fields: [{ name: 'subtitle', new_name: 'headline' }],
        remove_fields: ['old'],
        api_key: SENTINEL_KEY,
      })
      .reply(200, { id: 'p-1', version: 4 });
    const { parsers } = createTestApi();
    const result = await parsers.update('p-1', 3, {
      add_fields: [],
      rename_fields: [{ name: 'subtitle', new_name: 'headline' }],
      remove_fields: ['old'],
    });
    expect(result).toEqual({ id: 'p-1', version: 4, ready: true, status: 200 });
  });

  it('update: 202 means the new version is generating', async () => {
    service()
      .patch('/parsers/p-1/4', {
        add_fields: [{ name: 'isbn', description: 'ISBN', type: 'string' }],
        modify_fields: [{ name: 'price', description: 'Price incl. tax', type: 'number' }],
        api_key: SENTINEL_KEY,
      })
      .reply(202, { version: 5 });
    const result = await createTestApi().parsers.update('p-1', 4, {
      add_fields: [{ name: 'isbn', description: 'ISBN', type: 'string' }],
      modify_fields: [{ name: 'price', description: 'Price incl. tax', type: 'number' }],
    });
    expect(result).toEqual({ id: 'p-1', version: 5, ready: false, status: 202 });
  });

  it('update: refuses a PATCH with no operation, and sends nothing', async () => {
    const { parsers, events } = createTestApi();
    const error = await parsers
      .update('p-1', 4, { add_fields: [], remove_fields: [] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScrapeformError);
    expect((error as ScrapeformError).code).toBe('api.empty-patch');
    expect(events).toEqual([]);
  });

  it('delete: DELETE /parsers/{id} with the key in the query; 204', async () => {
    service().delete('/parsers/p-1').query(KEY_QUERY).reply(204);
    expect(await createTestApi().parsers.delete('p-1')).toEqual({ status: 204 });
  });

  it('delete answered 200 or 202 Accepted (taken, perhaps not done yet): a delete that landed, its status returned', async () => {
    // A 202 was an api.unexpected-status: apply failed on a delete the service had taken, and state kept the parser.
    for (const status of [200, 202]) {
      service().delete('/parsers/p-1').query(KEY_QUERY).reply(status);
      expect(await createTestApi().parsers.delete('p-1')).toEqual({ status });
    }
    service().delete('/parsers/p-1').query(KEY_QUERY).reply(201, { id: 'p-1' });
    const error = (await createTestApi()
      .parsers.delete('p-1')
      .catch((e: unknown) => e)) as ApiError;
    expect([error.code, error.status]).toEqual(['api.unexpected-status', 201]);
  });

  it('the key inside what the service answers (an error text, example and parse results) is never passed on', async () => {
    const link = `https://books.example/a.html?api_key=${SENTINEL_KEY}`;
    const failed = {
      ...details,
      status: 'FAILED',
      error: `could not fetch ${link}`,
      example_result: [{ url: link, result: { seen: link } }],
    };
    service()
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, [
        {
          id: 'p-1',
          name: 'b',
          status: 'FAILED',
          error: `key ${SENTINEL_KEY}`,
          generated_at: null,
          version: 3,
        },
      ]);
    service().get('/parsers/p-1').query(KEY_QUERY).reply(200, failed);
    service()
      .get('/parse/p-1')
      .query({ ...KEY_QUERY, url: 'https://books.example/a.html' })
      .reply(200, { parser: 'p-1', version: 3, result: { seen: link, id: 7 } });
    const { parsers } = createTestApi();
    const read = [
      await parsers.list(),
      await parsers.get('p-1'),
      await parsers.parse('p-1', undefined, 'https://books.example/a.html'),
    ];
    expect(JSON.stringify(read)).not.toContain(SENTINEL_KEY);
    expect(read[2]).toMatchObject({ result: { seen: 'https://books.example/a.html?api_key=***', id: 7 } });
    // The details are marked, so import passes the parser over instead of writing *** into its urls.
    expect(read[1]).toMatchObject({
      keyRedacted: true,
      exampleResult: [{ url: link.replace(SENTINEL_KEY, '***') }],
    });
  });

  it('a key too short to look for in data (an emulator key) leaves answers as they are', async () => {
    service()
      .get('/parse/p-1')
      .query({ api_key: 'k1', url: 'https://books.example/a.html' })
      .reply(200, { parser: 'p-1', version: 1, result: { k1: 'k1', id: 1 } });
    const { parsers } = createTestApi({ apiKey: 'k1' });
    expect((await parsers.parse('p-1', undefined, 'https://books.example/a.html')).result).toEqual({
      k1: 'k1',
      id: 1,
    });
  });

  it('parse: GET /parse/{id}/{version} with url and the scraping parameters flattened into the query', async () => {
    service()
      .get('/parse/p-1/3')
      .query({ ...KEY_QUERY, url: 'https://books.example/a.html', render: 'true', country_code: 'us' })
      .reply(200, { parser: 'p-1', version: 3, result: { title: 'A' } });
    service()
      .get('/parse/p-1')
      .query({ ...KEY_QUERY, url: 'https://books.example/b.html' })
      .reply(200, { parser: 'p-1', version: 4, result: {} });
    const { parsers } = createTestApi();
    expect(
      await parsers.parse('p-1', 3, 'https://books.example/a.html', { render: true, country_code: 'us' }),
    ).toEqual({ parser: 'p-1', version: 3, result: { title: 'A' } });
    expect((await parsers.parse('p-1', undefined, 'https://books.example/b.html')).version).toBe(4);
  });

  it('identifies itself as scrapeform/<version> and asks for JSON', async () => {
    service()
      .get('/parsers')
      .query(KEY_QUERY)
      .matchHeader('user-agent', `scrapeform/${VERSION}`)
      .matchHeader('accept', 'application/json')
      .reply(200, []);
    expect(await createTestApi().parsers.list()).toEqual([]);
  });

  it('encodes ids in paths', async () => {
    service().get('/parsers/a%2Fb').query(KEY_QUERY).reply(200, details);
    expect((await createTestApi().parsers.get('a/b')).id).toBe('a/b');
  });
});

describe('ParsersClient: details as the real service may send them (issue 13)', () => {
  const { version: _version, ...withoutVersion } = details;

  it('no version: the version asked for, else the list version the caller passes', async () => {
    service().get('/parsers/p-1/2').query(KEY_QUERY).reply(200, withoutVersion);
    service().get('/parsers/p-1').query(KEY_QUERY).reply(200, withoutVersion);
    const { parsers } = createTestApi();
    expect((await parsers.get('p-1', 2)).version).toBe(2);
    expect((await parsers.get('p-1', undefined, undefined, { version: 7 })).version).toBe(7);
  });

  it("the answer's version wins over the ones known", async () => {
    service().get('/parsers/p-1').query(KEY_QUERY).reply(200, details);
    expect((await createTestApi().parsers.get('p-1', undefined, undefined, { version: 7 })).version).toBe(3);
  });

  it('no version anywhere is a bad response that says nothing is planned from it', async () => {
    service().get('/parsers/p-1').query(KEY_QUERY).reply(200, withoutVersion);
    const error = (await createTestApi()
      .parsers.get('p-1')
      .catch((e: unknown) => e)) as ApiError;
    expect([error.code, error.retryable]).toEqual(['api.bad-response', false]);
    expect(error.message).toBe(
      `GET ${PARSER_ORIGIN}/parsers/p-1?api_key=***: 200: unexpected response from GET /parsers/p-1: the answer has no version and none was asked for or listed; nothing is planned from it`,
    );
  });

  it('no id and no name, as in the published example: the id asked for, the name from the list', async () => {
    const { name: _name, ...unnamed } = details;
    service().get('/parsers/p-1/3').query(KEY_QUERY).reply(200, unnamed);
    service().get('/parsers/p-1/3').query(KEY_QUERY).reply(200, unnamed);
    const { parsers } = createTestApi();
    const live = await parsers.get('p-1', 3, undefined, { name: 'books-product' });
    expect([live.id, live.name, live.version]).toEqual(['p-1', 'books-product', 3]);
    expect((await parsers.get('p-1', 3)).name).toBe('');
  });

  it("reads FINISED (the docs' spelling) and other cases as FINISHED; unknown statuses pass unchanged", async () => {
    service()
      .get('/parsers/p-1/3')
      .query(KEY_QUERY)
      .reply(200, { ...details, status: 'FINISED' });
    service()
      .get('/parsers/p-1/4')
      .query(KEY_QUERY)
      .reply(200, { ...details, version: 4, status: 'finished' });
    service()
      .get('/parsers/p-1/5')
      .query(KEY_QUERY)
      .reply(200, { ...details, version: 5, status: 'QUEUED', fields: undefined });
    const { parsers } = createTestApi();
    expect((await parsers.get('p-1', 3)).status).toBe('FINISHED');
    expect((await parsers.get('p-1', 4)).status).toBe('FINISHED');
    expect(await parsers.get('p-1', 5)).toMatchObject({ status: 'QUEUED', fields: [] });
  });

  it.each([
    ['without a fields key', undefined],
    ['with fields null', null],
    ['with an empty fields list (the seed empties it only for a FAILED one)', []],
  ])('a FINISHED version %s is a bad response, never "no fields"', async (_case, fields) => {
    service()
      .get('/parsers/p-1/3')
      .query(KEY_QUERY)
      .reply(200, { ...details, status: 'FINISED', fields });
    const error = (await createTestApi()
      .parsers.get('p-1', 3)
      .catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('api.bad-response');
    expect(error.message).toBe(
      `GET ${PARSER_ORIGIN}/parsers/p-1/3?api_key=***: 200: unexpected response from GET /parsers/p-1/3: version 3 is FINISHED but the answer has no fields; nothing is planned from it`,
    );
    expect(everythingShown(error)).not.toContain(SENTINEL_KEY);
  });

  it('a version still generating may have no fields yet', async () => {
    const { fields: _fields, ...noFields } = details;
    service()
      .get('/parsers/p-1/4')
      .query(KEY_QUERY)
      .reply(200, { ...noFields, version: 4, status: 'GENERATING', example_result: null });
    expect(await createTestApi().parsers.get('p-1', 4)).toMatchObject({
      status: 'GENERATING',
      fields: [],
      version: 4,
    });
  });
});

describe('ParsersClient: failures become one ApiError', () => {
  const cases: [number, string, unknown, string][] = [
    [400, 'api.bad-request', { error: 'urls is required' }, 'urls is required'],
    [
      401,
      'api.unauthorized',
      { error: 'Invalid api_key' },
      'the AI Parser service refused the API key: Invalid api_key',
    ],
    [403, 'api.forbidden', 'Forbidden', 'forbidden or out of credits at the AI Parser service: Forbidden'],
    [402, 'api.credits-exhausted', 'Payment Required', 'Payment Required'],
    [404, 'api.not-found', { message: 'parser not found' }, 'parser not found'],
    [500, 'api.server-error', { error: 'Extraction failed' }, 'Extraction failed'],
  ];

  it.each(cases)('%i -> %s, with the body excerpt and advice', async (status, code, body, shown) => {
    service()
      .post('/parsers')
      .reply(status, body as nock.Body);
    const error = (await createTestApi()
      .parsers.create({ name: 'b', urls: ['https://b.example/'] })
      .catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect([error.code, error.status, error.method, error.retryable]).toEqual([
      code,
      status,
      'POST',
      status >= 500,
    ]);
    expect(error.message).toBe(`POST ${PARSER_ORIGIN}/parsers: ${status}: ${shown}`);
    expect(error.body).toEqual(body);
    expect(error.hint.length).toBeGreaterThan(10);
    expect(everythingShown(error)).not.toContain(SENTINEL_KEY);
  });

  it('401 advice names the three ways to give the key', async () => {
    service().get('/parsers').query(true).reply(401, '');
    const error = (await createTestApi()
      .parsers.list()
      .catch((e: unknown) => e)) as ApiError;
    expect(error.hint).toBe(
      'the API key was refused: check SCRAPERAPI_API_KEY (or --api-key-env / --api-key-file)',
    );
    expect(error.url).toBe(`${PARSER_ORIGIN}/parsers?api_key=***`);
  });

  it('a non-JSON body where JSON is expected is api.bad-response', async () => {
    service().get('/parsers').query(true).reply(200, '<html>maintenance</html>');
    const error = (await createTestApi()
      .parsers.list()
      .catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('api.bad-response');
    expect(error.message).toBe(
      `GET ${PARSER_ORIGIN}/parsers?api_key=***: 200: unexpected response from GET /parsers: field (body): Invalid input: expected array, received string`,
    );
  });

  it('a body of the wrong shape names the field and the endpoint', async () => {
    service()
      .get('/parsers/p-1')
      .query(true)
      .reply(200, { ...details, version: 'three' });
    const error = (await createTestApi()
      .parsers.get('p-1')
      .catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('api.bad-response');
    expect(error.message).toContain('unexpected response from GET /parsers/p-1: field version:');
    expect(error.retryable).toBe(false);
  });

  it('a dropped connection is api.network with status 0, and its cause is kept (redacted)', async () => {
    service()
      .post('/parsers')
      .replyWithError(
        Object.assign(new Error(`socket hang up at /parsers?api_key=${SENTINEL_KEY}`), {
          code: 'ECONNRESET',
        }),
      );
    const error = (await createTestApi()
      .parsers.create({ name: 'b', urls: ['https://b.example/'] })
      .catch((e: unknown) => e)) as ApiError;
    expect([error.code, error.status]).toEqual(['api.network', 0]);
    expect(error.cause).toBeInstanceOf(Error);
    expect(everythingShown(error)).not.toContain(SENTINEL_KEY);
    expect(everythingShown(error)).toContain('api_key=***');
  });

  it('the key stays hidden even when the configured URL embeds it', async () => {
    const { parsers, events } = createTestApi({ parserUrl: `https://${SENTINEL_KEY}@aiparser.test` });
    const error = await parsers.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(everythingShown(error)).not.toContain(SENTINEL_KEY);
    expect(JSON.stringify(events)).not.toContain(SENTINEL_KEY);
  });

  it('a server that echoes the key back in its error body does not leak it', async () => {
    service()
      .get('/parsers')
      .query(true)
      .reply(400, { error: `bad key ${SENTINEL_KEY}`, request: { api_key: SENTINEL_KEY } });
    const { parsers, events } = createTestApi();
    const error = await parsers.list().catch((e: unknown) => e);
    expect(everythingShown(error)).not.toContain(SENTINEL_KEY);
    expect(JSON.stringify(events)).not.toContain(SENTINEL_KEY);
  });
});
