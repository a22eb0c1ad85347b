import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiError } from '../../src/api/api-error.js';
import { loadManifests } from '../../src/manifest/load-manifests.js';
import { EMULATOR_KEY, startTestEmulator, waitForVersion } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';

const BOOK_A = 'https://books.example/catalogue/a-light-in-the-attic_1000/index.html';
const BOOK_B = 'https://books.example/catalogue/tipping-the-velvet_999/index.html';
const BOOK_OUT = 'https://books.example/catalogue/soumission_998/index.html';
const SHOP = 'https://shop.example/products/trail-runner-2.html';
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let h: EmulatorHarness;
beforeAll(async () => {
  h = await startTestEmulator();
});
afterAll(async () => h.emulator.close());
afterEach(() => h.emulator.reset());

const q = `api_key=${EMULATOR_KEY}`;
const bookFields = [
  { name: 'title', description: 'Book title', type: 'string' as const, selector: 'h1' },
  { name: 'price', description: 'Price including tax', type: 'number' as const },
  { name: 'reviews', description: 'Customer reviews', type: 'array' as const },
  { name: 'reviews.author', description: 'Name of the reviewer' },
  { name: 'reviews.rating', description: 'Stars from 1 to 5', type: 'number' as const },
];

async function createBooks(): Promise<string> {
  const { id } = await h.parsers.create({ name: 'books', urls: [BOOK_A, BOOK_B], fields: bookFields });
  expect(await waitForVersion(h.parsers, id, 0)).toBe('FINISHED');
  return id;
}

function credits(): number {
  return h.emulator.accounts.list().find((a) => a.key === EMULATOR_KEY)?.credits ?? -1;
}

describe('states and transitions (seed 1)', () => {
  it('POST /parsers: 201 {id, version 0}, GENERATING, then FINISHED with example_result and fields', async () => {
    h.emulator.setFaults({ generationDelayMs: 60_000 });
    const created = await h.raw('POST', '/parsers', {
      api_key: EMULATOR_KEY,
      name: 'books',
      urls: [BOOK_A],
      fields: bookFields,
    });
    expect(created.status).toBe(201);
    const { id, version } = created.body as { id: string; version: number };
    expect(version).toBe(0);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const generating = await h.parsers.get(id);
    expect([generating.status, generating.exampleResult, generating.generatedAt]).toEqual([
      'GENERATING',
      null,
      null,
    ]);
    h.emulator.clock.advance(60_000);
    expect(await waitForVersion(h.parsers, id, 0)).toBe('FINISHED');
    const raw = await h.raw('GET', `/parsers/${id}?${q}`);
    const details = raw.body as Record<string, unknown>;
    expect(Object.keys(details).sort()).toEqual(
      ['created_at', 'error', 'example_result', 'fields', 'generated_at', 'name', 'status', 'version'].sort(),
    );
    expect(details.created_at).toMatch(ISO_MS);
    expect(details.generated_at).toMatch(ISO_MS);
    expect(details.fields).toEqual([
      { name: 'title', type: 'text' },
      { name: 'price', type: 'text' },
      { name: 'reviews', type: 'array' },
      { name: 'reviews.author', type: 'text' },
      { name: 'reviews.rating', type: 'text' },
    ]);
  });

  it('FAILED: an example page that cannot be downloaded after 3 tries', async () => {
    const url = 'https://books.example/catalogue/no-such-book/index.html';
    const { id } = await h.parsers.create({ name: 'broken', urls: [url] });
    expect(await waitForVersion(h.parsers, id, 0)).toBe('FAILED');
    const details = await h.parsers.get(id);
    expect(details.error).toBe(`DownloadError: Failed to download ${url} after 3 retries`);
    expect(details.exampleResult).toBeNull();
    expect(details.fields).toEqual([]);
    const listed = (await h.parsers.list()).find((p) => p.id === id);
    expect([listed?.status, listed?.error]).toEqual([
      'FAILED',
      `DownloadError: Failed to download ${url} after 3 retries`,
    ]);
  });

  it('a page that needs JavaScript fails without render and works with it', async () => {
    const fields = [{ name: 'name', description: 'Product name', selector: '[itemprop=name]' }];
    const without = await h.parsers.create({ name: 'shop', urls: [SHOP], fields });
    expect(await waitForVersion(h.parsers, without.id, 0)).toBe('FAILED');
    expect((await h.parsers.get(without.id)).error).toBe(
      `RenderError: ${SHOP} builds its content with JavaScript; set render to true in scraper_params`,
    );
    const withRender = await h.parsers.create({
      name: 'shop',
      urls: [SHOP],
      scraper_params: { render: true },
      fields,
    });
    expect(await waitForVersion(h.parsers, withRender.id, 0)).toBe('FINISHED');
    expect((await h.parsers.get(withRender.id)).exampleResult).toEqual([
      { url: SHOP, result: { name: 'Trail Runner 2' } },
    ]);
  });

  it('PATCH with rename/remove only: 200, the new version applied at once, results re-keyed', async () => {
    const id = await createBooks();
    const before = credits();
    const result = await h.parsers.update(id, 0, {
      rename_fields: [{ name: 'reviews', new_name: 'comments' }],
      remove_fields: ['price'],
    });
    expect(result).toEqual({ id, version: 1, ready: true, status: 200 });
    const v1 = await h.parsers.get(id, 1);
    expect(v1.status).toBe('FINISHED');
    expect(v1.fields.map((f) => f.name)).toEqual(['title', 'comments', 'comments.author', 'comments.rating']);
    expect(v1.exampleResult?.[0]?.result).toEqual({
      title: 'A Light in the Attic',
      comments: [
        { author: 'Maya R.', rating: 5 },
        { author: 'Jonas K.', rating: 4 },
      ],
    });
    expect(credits()).toBe(before);
    // Each version keeps its own fields.
    expect((await h.parsers.get(id, 0)).fields.map((f) => f.name)).toContain('price');
  });

  it('PATCH with add/modify: 202, the new version generates, 30,000 credits', async () => {
    const id = await createBooks();
    const before = credits();
    h.emulator.setFaults({ generationDelayMs: 60_000 });
    const result = await h.parsers.update(id, 0, {
      add_fields: [{ name: 'availability', description: 'Stock availability text' }],
      modify_fields: [{ name: 'price', description: 'Price as printed', type: 'string' }],
    });
    expect(result).toEqual({ id, version: 1, ready: false, status: 202 });
    expect((await h.parsers.get(id)).status).toBe('GENERATING');
    expect((await h.parsers.list())[0]?.version).toBe(1);
    expect(credits()).toBe(before - 30_000);
    h.emulator.clock.advance(60_000);
    expect(await waitForVersion(h.parsers, id, 1)).toBe('FINISHED');
    expect((await h.parsers.get(id, 1)).exampleResult?.[0]?.result).toMatchObject({
      price: '£51.77',
      availability: 'In stock (22 available)',
    });
  });

  it('PATCH without a version segment is based on the latest version', async () => {
    const id = await createBooks();
    const response = await h.raw('PATCH', `/parsers/${id}`, {
      api_key: EMULATOR_KEY,
      remove_fields: ['title'],
    });
    expect(response).toMatchObject({ status: 200, body: { version: 1 } });
  });

  it('a parent removed takes its children; renames chain through a free name (a swap)', async () => {
    const id = await createBooks();
    await h.parsers.update(id, 0, {
      rename_fields: [
        { name: 'title', new_name: 'tmp' },
        { name: 'price', new_name: 'title' },
        { name: 'tmp', new_name: 'price' },
      ],
      remove_fields: ['reviews'],
    });
    const v1 = await h.parsers.get(id, 1);
    expect(v1.fields.map((f) => f.name)).toEqual(['price', 'title']);
    expect(v1.exampleResult?.[0]?.result).toEqual({ price: 'A Light in the Attic', title: 51.77 });
  });

  it('DELETE /parsers/{id}: 204, then every version is gone (404)', async () => {
    const id = await createBooks();
    const deleted = await h.raw('DELETE', `/parsers/${id}?${q}`);
    expect([deleted.status, deleted.body]).toEqual([204, undefined]);
    await expect(h.parsers.get(id)).rejects.toMatchObject({ status: 404 });
    await expect(h.parsers.get(id, 0)).rejects.toMatchObject({ status: 404 });
    expect(await h.parsers.list()).toEqual([]);
  });
});

describe('versioning rules 1-4 (seed 1)', () => {
  it('versions start at 0, count up, and omitted versions and the list mean the latest', async () => {
    const id = await createBooks();
    await h.parsers.update(id, 0, { remove_fields: ['price'] });
    await h.parsers.update(id, 1, { remove_fields: ['title'] });
    expect((await h.parsers.get(id)).version).toBe(2);
    expect((await h.parsers.list()).map((p) => p.version)).toEqual([2]);
    const parsed = await h.parsers.parse(id, undefined, BOOK_A);
    expect(parsed.version).toBe(2);
    expect(Object.keys(parsed.result)).toEqual(['reviews']);
    expect(Object.keys((await h.parsers.parse(id, 0, BOOK_A)).result)).toEqual(['title', 'price', 'reviews']);
  });
});

describe('parse (seed 1, endpoint 4)', () => {
  it('parses a page with a finished version, 1 credit each', async () => {
    const id = await createBooks();
    const before = credits();
    expect(await h.parsers.parse(id, 0, BOOK_OUT)).toEqual({
      parser: id,
      version: 0,
      result: { title: 'Soumission', price: 50.1, reviews: [] },
    });
    expect(credits()).toBe(before - 1);
  });

  it('answers an empty result while the version is generating', async () => {
    h.emulator.setFaults({ generationDelayMs: 60_000 });
    const { id } = await h.parsers.create({ name: 'b', urls: [BOOK_A], fields: bookFields });
    expect(await h.parsers.parse(id, 0, BOOK_A)).toEqual({ parser: id, version: 0, result: {} });
  });

  it('500 when the version FAILED, or the page cannot be fetched', async () => {
    const failed = await h.parsers.create({ name: 'x', urls: ['https://books.example/missing.html'] });
    await waitForVersion(h.parsers, failed.id, 0);
    await expect(h.parsers.parse(failed.id, 0, BOOK_A)).rejects.toMatchObject({
      status: 500,
      code: 'api.server-error',
    });
    const id = await createBooks();
    const error = (await h.parsers
      .parse(id, 0, 'https://books.example/missing.html')
      .catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(500);
    expect(error.message).toContain(
      'Extraction failed: DownloadError: Failed to download https://books.example/missing.html after 3 retries',
    );
  });

  it('takes scraping parameters from the parse query (render), and only from it: not the creation ones', async () => {
    // Seed 1: creation scraper_params are "used when fetching the example pages"; whether the service reuses them
    // at parse time is not documented, so the emulator plays the stricter reading.
    const { id } = await h.parsers.create({
      name: 'shop',
      urls: [SHOP],
      scraper_params: { render: true },
      fields: [{ name: 'price', description: 'Current price', type: 'number', selector: '.price-current' }],
    });
    await waitForVersion(h.parsers, id, 0);
    const page = 'https://shop.example/products/canvas-tote.html';
    expect((await h.parsers.parse(id, 0, page)).result).toEqual({ price: null });
    expect((await h.parsers.parse(id, 0, page, { render: true })).result).toEqual({ price: 24.5 });
  });

  it.each([
    ['device_type=tablet', 'device_type must be desktop or mobile, got "tablet"'],
    ['session_number=0', 'session_number must be an integer of at least 1, got "0"'],
    ['session_number=1.5', 'session_number must be an integer of at least 1, got "1.5"'],
    ['render=yes', 'render must be true or false, got "yes"'],
    ['country_code=usa', 'country_code must be a two-letter country code, got "usa"'],
  ])('a parse with %s in its query is 400 and costs nothing', async (param, message) => {
    const id = await createBooks();
    const before = credits();
    const response = await h.raw('GET', `/parse/${id}/0?${q}&url=${encodeURIComponent(BOOK_OUT)}&${param}`);
    expect([response.status, response.body]).toEqual([400, { error: message }]);
    expect(credits()).toBe(before);
  });

  it('400 without a url', async () => {
    const id = await createBooks();
    expect(await h.raw('GET', `/parse/${id}/0?${q}`)).toMatchObject({ status: 400 });
  });
});

describe('status codes and key placement (seed 1, Errors and Authentication)', () => {
  it.each([
    ['malformed JSON', '{"name": ', 'malformed JSON body'],
    ['a missing api_key', { name: 'b', urls: [BOOK_A] }, 'missing required field: api_key'],
    ['a missing name', { api_key: EMULATOR_KEY, urls: [BOOK_A] }, 'missing required field: name'],
    ['missing urls', { api_key: EMULATOR_KEY, name: 'b' }, 'missing required field: urls'],
    ['no URL', { api_key: EMULATOR_KEY, name: 'b', urls: [] }, 'urls must hold 1 to 3 URLs, got 0'],
    [
      'four URLs',
      { api_key: EMULATOR_KEY, name: 'b', urls: [BOOK_A, BOOK_B, BOOK_OUT, SHOP] },
      'urls must hold 1 to 3 URLs, got 4',
    ],
    [
      'an unknown scraping parameter',
      { api_key: EMULATOR_KEY, name: 'b', urls: [BOOK_A], scraper_params: { js: true } },
      'unknown scraping parameter: js',
    ],
    [
      'scraper_params.device_type "tablet"',
      { api_key: EMULATOR_KEY, name: 'b', urls: [BOOK_A], scraper_params: { device_type: 'tablet' } },
      'scraper_params.device_type must be desktop or mobile, got "tablet"',
    ],
    [
      'scraper_params.session_number 0',
      { api_key: EMULATOR_KEY, name: 'b', urls: [BOOK_A], scraper_params: { session_number: 0 } },
      'scraper_params.session_number must be an integer of at least 1, got 0',
    ],
    [
      'scraper_params.session_number 1.5',
      { api_key: EMULATOR_KEY, name: 'b', urls: [BOOK_A], scraper_params: { session_number: 1.5 } },
      'scraper_params.session_number must be an integer of at least 1, got 1.5',
    ],
    [
      'scraper_params.country_code "usa"',
      { api_key: EMULATOR_KEY, name: 'b', urls: [BOOK_A], scraper_params: { country_code: 'usa' } },
      'scraper_params.country_code must be a two-letter country code, got "usa"',
    ],
    [
      'scraper_params.render "true"',
      { api_key: EMULATOR_KEY, name: 'b', urls: [BOOK_A], scraper_params: { render: 'true' } },
      'scraper_params.render must be true or false, got "true"',
    ],
    [
      'scraper_params.premium 1',
      { api_key: EMULATOR_KEY, name: 'b', urls: [BOOK_A], scraper_params: { premium: 1 } },
      'scraper_params.premium must be true or false, got 1',
    ],
  ])('POST /parsers with %s is 400', async (_, body, message) => {
    const response = await h.raw('POST', '/parsers', body);
    expect(response).toEqual({ status: 400, body: { error: message }, headers: expect.anything() });
    expect(h.emulator.parsers.parsers.size).toBe(0);
  });

  it('POST with the key in the query instead of the body is 400', async () => {
    const response = await h.raw('POST', `/parsers?${q}`, { name: 'b', urls: [BOOK_A] });
    expect(response.status).toBe(400);
  });

  it('401 for an unknown key, on every endpoint', async () => {
    const id = await createBooks();
    const bad = 'api_key=nope';
    for (const [method, path, body] of [
      ['GET', `/parsers?${bad}`],
      ['GET', `/parsers/${id}?${bad}`],
      ['GET', `/parse/${id}?${bad}&url=${encodeURIComponent(BOOK_A)}`],
      ['DELETE', `/parsers/${id}?${bad}`],
      ['POST', '/parsers', { api_key: 'nope', name: 'b', urls: [BOOK_A] }],
      ['PATCH', `/parsers/${id}/0`, { api_key: 'nope', remove_fields: ['title'] }],
      ['GET', '/parsers'],
    ] as const) {
      expect((await h.raw(method, path, body)).status).toBe(401);
    }
  });

  it('402 when the credits are exhausted, and nothing is created', async () => {
    h.emulator.accounts.set(EMULATOR_KEY, 29_999);
    const error = (await h.parsers
      .create({ name: 'b', urls: [BOOK_A] })
      .catch((e: unknown) => e)) as ApiError;
    expect([error.status, error.code]).toEqual([402, 'api.credits-exhausted']);
    expect(await h.parsers.list()).toEqual([]);
  });

  it('404 for an unknown id or version', async () => {
    const id = await createBooks();
    expect((await h.raw('GET', `/parsers/nope?${q}`)).status).toBe(404);
    expect((await h.raw('GET', `/parsers/${id}/7?${q}`)).status).toBe(404);
    expect(
      (await h.raw('PATCH', `/parsers/${id}/7`, { api_key: EMULATOR_KEY, remove_fields: ['title'] })).status,
    ).toBe(404);
    expect((await h.raw('DELETE', `/parsers/nope?${q}`)).status).toBe(404);
    expect((await h.raw('GET', `/parse/nope?${q}&url=${encodeURIComponent(BOOK_A)}`)).status).toBe(404);
  });

  it.each([
    [
      'no operation',
      {},
      'no operation: send at least one of add_fields, modify_fields, rename_fields, remove_fields',
    ],
    ['an unknown field', { remove_fields: ['nope'] }, 'remove_fields: unknown field nope'],
    [
      'a taken name',
      { rename_fields: [{ name: 'title', new_name: 'price' }] },
      'rename_fields: price already exists',
    ],
    [
      'an existing field added',
      { add_fields: [{ name: 'title', description: 'T' }] },
      'add_fields: title already exists',
    ],
    [
      'a field removed and modified',
      { remove_fields: ['price'], modify_fields: [{ name: 'price', description: 'P' }] },
      'contradictory request: field price is named by more than one operation (modify_fields)',
    ],
    [
      'a child without its parent',
      { add_fields: [{ name: 'x.y', description: 'Y' }] },
      'add_fields: x.y has no parent field x',
    ],
  ])('PATCH with %s is 400, and no version is made', async (_, ops, message) => {
    const id = await createBooks();
    const response = await h.raw('PATCH', `/parsers/${id}/0`, { api_key: EMULATOR_KEY, ...ops });
    expect([response.status, response.body]).toEqual([400, { error: message }]);
    expect((await h.parsers.get(id)).version).toBe(0);
  });

  it('PATCH on a version still generating is 400', async () => {
    h.emulator.setFaults({ generationDelayMs: 60_000 });
    const { id } = await h.parsers.create({ name: 'b', urls: [BOOK_A], fields: bookFields });
    const response = await h.raw('PATCH', `/parsers/${id}/0`, {
      api_key: EMULATOR_KEY,
      remove_fields: ['price'],
    });
    expect(response).toMatchObject({
      status: 400,
      body: { error: 'version 0 is still generating; wait until it is FINISHED' },
    });
  });

  it('another account cannot see a parser (404)', async () => {
    const id = await createBooks();
    h.emulator.accounts.set('other-key', 100_000);
    expect((await h.raw('GET', `/parsers/${id}?api_key=other-key`)).status).toBe(404);
    expect((await h.raw('GET', '/parsers?api_key=other-key')).body).toEqual([]);
  });
});

describe('the quickstart on the demo site', () => {
  it('books-product reaches FINISHED with the right example_result, field by field', async () => {
    const loaded = await loadManifests({
      paths: [path.resolve(import.meta.dirname, '../../examples/quickstart')],
      env: {},
    });
    const parser = loaded.parsers[0];
    if (parser === undefined) throw new Error('no parser in the quickstart');
    const { id } = await h.parsers.create({
      name: parser.name,
      urls: parser.urls,
      scraper_params: parser.scraperParams,
      fields: parser.fields,
    });
    expect(await waitForVersion(h.parsers, id, 0)).toBe('FINISHED');
    const details = await h.parsers.get(id);
    expect(details.exampleResult).toEqual([
      {
        url: BOOK_A,
        result: {
          title: 'A Light in the Attic',
          price: 51.77,
          availability: 'In stock (22 available)',
          reviews: [
            { author: 'Maya R.', rating: 5 },
            { author: 'Jonas K.', rating: 4 },
          ],
        },
      },
      {
        url: BOOK_B,
        result: {
          title: 'Tipping the Velvet',
          price: 53.74,
          availability: 'In stock (20 available)',
          reviews: [{ author: 'Alex P.', rating: 3 }],
        },
      },
    ]);
  });

  it('every example parser generates on the demo site', async () => {
    const loaded = await loadManifests({
      paths: [path.resolve(import.meta.dirname, '../../examples')],
      env: {},
    });
    for (const parser of loaded.parsers) {
      const { id } = await h.parsers.create({
        name: parser.name,
        urls: parser.urls,
        scraper_params: parser.scraperParams,
        fields: parser.fields,
      });
      expect(`${parser.name}: ${await waitForVersion(h.parsers, id, 0)}`).toBe(`${parser.name}: FINISHED`);
      const result = (await h.parsers.get(id)).exampleResult?.[0]?.result ?? {};
      const missing = parser.fields
        .filter((f) => !f.name.includes('.') && !(f.name in result))
        .map((f) => f.name);
      expect(`${parser.name} missing: ${missing.join(', ')}`).toBe(`${parser.name} missing: `);
    }
  });

  it('a parser created without fields infers title, price, image, description and links', async () => {
    const { id } = await h.parsers.create({ name: 'inferred', urls: [BOOK_A] });
    expect(await waitForVersion(h.parsers, id, 0)).toBe('FINISHED');
    const details = await h.parsers.get(id);
    expect(details.fields.map((f) => f.name)).toEqual(['title', 'price', 'image', 'description', 'links']);
    expect(details.exampleResult?.[0]?.result).toMatchObject({ title: 'A Light in the Attic', price: 51.77 });
  });
});

describe('control endpoints and faults', () => {
  it('injects 503s and 429s with Retry-After, and logs requests with the key redacted', async () => {
    await h.raw('PUT', '/_emulator/faults', { errorRate: 1, errorStatus: 503 });
    expect((await h.raw('GET', `/parsers?${q}`)).status).toBe(503);
    await h.raw('PUT', '/_emulator/faults', { errorRate: 0, rateLimitRate: 1, retryAfterSeconds: 7 });
    const limited = await h.raw('GET', `/parsers?${q}`);
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '7']);
    await h.raw('DELETE', '/_emulator/faults');
    const log = (await h.raw('GET', '/_emulator/requests')).body as {
      path: string;
      status: number;
      fault?: string;
    }[];
    expect(log.map((e) => [e.path, e.status, e.fault])).toEqual([
      ['/parsers?api_key=***', 503, '503'],
      ['/parsers?api_key=***', 429, '429'],
    ]);
    expect(JSON.stringify(log)).not.toContain(EMULATOR_KEY);
  });

  it('drops connections when asked', async () => {
    h.emulator.setFaults({ dropRate: 1 });
    await expect(h.parsers.list()).rejects.toMatchObject({ code: 'api.network', status: 0 });
  });

  it('forces a generation failure', async () => {
    await h.raw('PUT', '/_emulator/faults', {
      failGenerations: 1,
      generationError: 'ModelError: overloaded',
    });
    const { id } = await h.parsers.create({ name: 'b', urls: [BOOK_A], fields: bookFields });
    expect(await waitForVersion(h.parsers, id, 0)).toBe('FAILED');
    expect((await h.parsers.get(id)).error).toBe('ModelError: overloaded');
  });

  it('advances the clock, sets credits, and rejects unknown settings', async () => {
    const before = Date.parse(((await h.raw('GET', '/_emulator/clock')).body as { now: string }).now);
    const advanced = await h.raw('POST', '/_emulator/advance', { by: '2h' });
    expect(Date.parse((advanced.body as { now: string }).now) - before).toBeGreaterThanOrEqual(7_200_000);
    expect((await h.raw('PUT', '/_emulator/accounts', { key: 'k2', credits: 5 })).body).toContainEqual({
      key: 'k2',
      credits: 5,
    });
    expect(await h.raw('PUT', '/_emulator/faults', { explode: 1 })).toMatchObject({ status: 400 });
  });

  it.each([
    ['negative', -5, '-5'],
    ['fractional', 2.5, '2.5'],
    ['a string', '100', '"100"'],
    ['past what a number holds exactly', 2 ** 53, '9007199254740992'],
  ])(
    'refuses credits that are %s with a 400 naming the field, as --credits does, and sets nothing',
    async (_, credits, shown) => {
      const refused = await h.raw('PUT', '/_emulator/accounts', { key: 'k3', credits });
      expect([refused.status, refused.body]).toEqual([
        400,
        { error: `"credits" takes a whole number, got ${shown}` },
      ]);
      expect(h.emulator.accounts.list().map((a) => a.key)).not.toContain('k3');
      // None is accepted (an account that cannot pay).
      expect((await h.raw('PUT', '/_emulator/accounts', { key: 'k3', credits: 0 })).status).toBe(200);
    },
  );

  it.each(['latencyMs', 'responseDelayMs'])(
    'refuses a %s longer than a Node timer holds (it would fire at once), and keeps the faults set',
    async (key) => {
      await h.raw('PUT', '/_emulator/faults', { [key]: 5 });
      const refused = await h.raw('PUT', '/_emulator/faults', { [key]: 2 ** 31 });
      expect([refused.status, refused.body]).toEqual([
        400,
        { error: `${key} is at most 2147483647 ms (about 24.8 days): a longer delay fires at once in Node` },
      ]);
      expect(h.emulator.faults).toMatchObject({ [key]: 5 });
      // The most a timer holds is accepted.
      expect((await h.raw('PUT', '/_emulator/faults', { [key]: 2 ** 31 - 1 })).status).toBe(200);
      await h.raw('DELETE', '/_emulator/faults');
    },
  );
});

describe('--data-dir', () => {
  it('persists parsers and reloads them', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'scrapeform-emulator-'));
    const first = await startTestEmulator({ dataDir });
    const { id } = await first.parsers.create({ name: 'kept', urls: [BOOK_A], fields: bookFields });
    await waitForVersion(first.parsers, id, 0);
    await first.emulator.close();
    const second = await startTestEmulator({ dataDir });
    try {
      const details = await second.parsers.get(id);
      expect([details.name, details.status]).toEqual(['kept', 'FINISHED']);
      expect((await second.parsers.parse(id, 0, BOOK_B)).result).toMatchObject({
        title: 'Tipping the Velvet',
      });
      // Both runs use seed 1: the second must not hand out the id the first already gave.
      const { id: next } = await second.parsers.create({ name: 'new', urls: [BOOK_A], fields: bookFields });
      expect(next).not.toBe(id);
      expect((await second.parsers.list()).map((p) => p.id).sort()).toEqual([id, next].sort());
    } finally {
      await second.emulator.close();
    }
  });
});
