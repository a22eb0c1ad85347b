import { afterEach, describe, expect, it } from 'vitest';
import { ScrapeformError } from '../../src/errors.js';
import { startEmulator } from '../../src/emulator/server.js';
import type { EmulatorOptions } from '../../src/emulator/server.js';
import { runScrapeform } from '../helpers/cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { until } from '../helpers/until.js';

const q = `api_key=${EMULATOR_KEY}`;
const BOOK = 'https://books.example/catalogue/a-light-in-the-attic_1000/index.html';
const KNOWN =
  'known: details-without-version, lagging-list, paged-lists, wrapped-lists, queued-status, queued-jobs, sparse-projects, create-429';

let h: EmulatorHarness | undefined;
afterEach(async () => {
  await h?.emulator.projects.idle();
  await h?.emulator.close();
  h = undefined;
});

async function start(
  quirks: string[],
  settings = {},
  options: EmulatorOptions = {},
): Promise<EmulatorHarness> {
  h = await startTestEmulator({ quirks, quirkSettings: settings, ...options });
  return h;
}

async function createParser(harness: EmulatorHarness, name = 'books'): Promise<string> {
  const created = await harness.raw('POST', '/parsers', {
    api_key: EMULATOR_KEY,
    name,
    urls: [BOOK],
    fields: [{ name: 'title', description: 'Book title', selector: 'h1' }],
  });
  expect(created.status).toBe(201);
  return (created.body as { id: string }).id;
}

async function createProject(harness: EmulatorHarness, body: Record<string, unknown> = {}): Promise<number> {
  const created = await harness.raw('POST', `/api/projects?${q}`, {
    projectInput: { type: 'list', list: [] },
    ...body,
  });
  expect(created.status).toBe(201);
  return (created.body as { id: number }).id;
}

async function waitUntilFinished(harness: EmulatorHarness, id: string): Promise<void> {
  await until(
    `parser ${id} is FINISHED`,
    async () =>
      ((await harness.raw('GET', `/parsers/${id}?${q}`)).body as { status: string }).status === 'FINISHED',
  );
}

describe('quirks are off by default', () => {
  it('answers lists as bare arrays and details with a version', async () => {
    const harness = await start([]);
    const id = await createParser(harness);
    expect((await harness.raw('GET', `/parsers?${q}`)).body).toEqual([
      expect.objectContaining({ id, version: 0 }),
    ]);
    expect((await harness.raw('GET', `/parsers/${id}?${q}`)).body).toMatchObject({ version: 0 });
  });
});

describe('details-without-version', () => {
  it('leaves version out of parser details, latest or by number; the list and create keep it', async () => {
    const harness = await start(['details-without-version']);
    const id = await createParser(harness);
    await waitUntilFinished(harness, id);
    for (const path of [`/parsers/${id}?${q}`, `/parsers/${id}/0?${q}`]) {
      const details = (await harness.raw('GET', path)).body as Record<string, unknown>;
      expect(Object.keys(details).sort()).toEqual(
        ['created_at', 'error', 'example_result', 'fields', 'generated_at', 'name', 'status'].sort(),
      );
    }
    expect((await harness.raw('GET', `/parsers?${q}`)).body).toEqual([
      expect.objectContaining({ id, version: 0 }),
    ]);
  });
});

describe('lagging-list', () => {
  it('shows a new parser and a new project in lists only after the lag; by id at once', async () => {
    const harness = await start(['lagging-list']);
    const parser = await createParser(harness);
    const project = await createProject(harness, { name: 'late' });
    expect((await harness.raw('GET', `/parsers?${q}`)).body).toEqual([]);
    expect((await harness.raw('GET', `/api/projects?${q}`)).body).toEqual([]);
    expect((await harness.raw('GET', `/parsers/${parser}?${q}`)).status).toBe(200);
    expect((await harness.raw('GET', `/api/projects/${project}?${q}`)).body).toMatchObject({ name: 'late' });
    // Emulated time also runs with real time: the steps leave the test a second of it.
    harness.emulator.clock.advance(1000);
    expect((await harness.raw('GET', `/parsers?${q}`)).body).toEqual([]);
    harness.emulator.clock.advance(1000);
    expect((await harness.raw('GET', `/parsers?${q}`)).body).toEqual([
      expect.objectContaining({ id: parser }),
    ]);
    expect((await harness.raw('GET', `/api/projects?${q}`)).body).toEqual([
      expect.objectContaining({ id: project, name: 'late' }),
    ]);
  });

  it('takes its lag from the settings', async () => {
    const harness = await start(['lagging-list'], { listLagMs: 60_000 });
    await createProject(harness);
    harness.emulator.clock.advance(30_000);
    expect((await harness.raw('GET', `/api/projects?${q}`)).body).toEqual([]);
    harness.emulator.clock.advance(30_000);
    expect((await harness.raw('GET', `/api/projects?${q}`)).body).toHaveLength(1);
  });

  it('with notFoundMs, GET by id of a new parser, version or project answers 404 until that much time passed', async () => {
    const harness = await start(['lagging-list'], { listLagMs: 600_000, notFoundMs: 60_000 });
    const parser = await createParser(harness);
    const project = await createProject(harness);
    expect((await harness.raw('GET', `/parsers/${parser}?${q}`)).status).toBe(404);
    expect((await harness.raw('GET', `/parsers/${parser}/0?${q}`)).status).toBe(404);
    expect((await harness.raw('GET', `/api/projects/${project}?${q}`)).status).toBe(404);
    harness.emulator.clock.advance(60_000);
    expect((await harness.raw('GET', `/parsers/${parser}/0?${q}`)).status).toBe(200);
    expect((await harness.raw('GET', `/api/projects/${project}?${q}`)).status).toBe(200);
    // The generation the clock released does its work on the event loop: a PATCH before it ends is a 400.
    await waitUntilFinished(harness, parser);
    // A version made by a PATCH is not found by its number for as long; the parser itself still is.
    const patched = await harness.raw('PATCH', `/parsers/${parser}/0`, {
      api_key: EMULATOR_KEY,
      rename_fields: [{ name: 'title', new_name: 'heading' }],
    });
    expect(patched.status).toBe(200);
    expect((await harness.raw('GET', `/parsers/${parser}/1?${q}`)).status).toBe(404);
    expect((await harness.raw('GET', `/parsers/${parser}?${q}`)).status).toBe(200);
    harness.emulator.clock.advance(60_000);
    expect((await harness.raw('GET', `/parsers/${parser}/1?${q}`)).status).toBe(200);
  });
});

describe('wrapped-lists', () => {
  it('wraps every list in {data}', async () => {
    const harness = await start(['wrapped-lists']);
    const parser = await createParser(harness);
    const project = await createProject(harness, { scheduledAt: 'now', scrapingInterval: 'once' });
    await harness.emulator.projects.idle();
    expect((await harness.raw('GET', `/parsers?${q}`)).body).toEqual({
      data: [expect.objectContaining({ id: parser })],
    });
    expect((await harness.raw('GET', `/api/projects?${q}`)).body).toEqual({
      data: [expect.objectContaining({ id: project })],
    });
    expect((await harness.raw('GET', `/api/projects/${project}/jobs?${q}`)).body).toEqual({
      data: [expect.objectContaining({ id: 1, projectId: project })],
    });
  });
});

describe('paged-lists', () => {
  it('answers one page {data, page, per_page, total, has_more}, 2 a page by default, ?page and ?per_page', async () => {
    const harness = await start(['paged-lists']);
    const ids: number[] = [];
    for (let n = 0; n < 5; n++) ids.push(await createProject(harness, { name: `p${n}` }));
    const page = async (query: string): Promise<Record<string, unknown>> => {
      const answer = await harness.raw('GET', `/api/projects?${q}${query}`);
      expect(answer.status).toBe(200);
      const body = answer.body as Record<string, unknown> & { data: { id: number }[] };
      return { ...body, data: body.data.map((p) => p.id) };
    };
    expect(await page('')).toEqual({ data: ids.slice(0, 2), page: 1, per_page: 2, total: 5, has_more: true });
    expect(await page('&page=2')).toEqual({
      data: ids.slice(2, 4),
      page: 2,
      per_page: 2,
      total: 5,
      has_more: true,
    });
    expect(await page('&page=3')).toEqual({
      data: ids.slice(4),
      page: 3,
      per_page: 2,
      total: 5,
      has_more: false,
    });
    expect(await page('&page=4')).toEqual({ data: [], page: 4, per_page: 2, total: 5, has_more: false });
    expect(await page('&page=2&per_page=3')).toEqual({
      data: ids.slice(3),
      page: 2,
      per_page: 3,
      total: 5,
      has_more: false,
    });
    expect(await harness.raw('GET', `/api/projects?${q}&page=0`)).toMatchObject({
      status: 400,
      body: { error: 'page must be a whole number >= 1' },
    });
  });

  it('pages the parser list too, with the page size from the settings', async () => {
    const harness = await start(['paged-lists'], { pageSize: 1 });
    const first = await createParser(harness, 'one');
    const second = await createParser(harness, 'two');
    const one = (await harness.raw('GET', `/parsers?${q}`)).body as { data: { id: string }[] };
    expect(one).toMatchObject({ page: 1, per_page: 1, total: 2, has_more: true });
    expect(one.data.map((p) => p.id)).toEqual([first]);
    const two = (await harness.raw('GET', `/parsers?${q}&page=2`)).body as { data: { id: string }[] };
    expect(two).toMatchObject({ page: 2, has_more: false });
    expect(two.data.map((p) => p.id)).toEqual([second]);
  });
});

describe('paged-lists with pageStyle link', () => {
  it("answers GitHub's bare array of one page, the others in a Link header; none when one page holds the list", async () => {
    const harness = await start(['paged-lists'], { pageStyle: 'link' });
    const ids: number[] = [];
    for (let n = 0; n < 5; n++) ids.push(await createProject(harness, { name: `p${n}` }));
    const page = async (query: string): Promise<[unknown, string | null]> => {
      const answer = await harness.raw('GET', `/api/projects?${q}${query}`);
      expect(answer.status).toBe(200);
      return [(answer.body as { id: number }[]).map((p) => p.id), answer.headers.get('link')];
    };
    const at = (n: number): string => `/api/projects?${q}&page=${n}`;
    expect(await page('')).toEqual([ids.slice(0, 2), `<${at(2)}>; rel="next", <${at(3)}>; rel="last"`]);
    expect(await page('&page=2')).toEqual([
      ids.slice(2, 4),
      `<${at(3)}>; rel="next", <${at(3)}>; rel="last", <${at(1)}>; rel="first", <${at(1)}>; rel="prev"`,
    ]);
    expect(await page('&page=3')).toEqual([ids.slice(4), `<${at(1)}>; rel="first", <${at(2)}>; rel="prev"`]);
    expect(await page('&per_page=5')).toEqual([ids, null]);
    const parsers = await harness.raw('GET', `/parsers?${q}`);
    expect([parsers.body, parsers.headers.get('link')]).toEqual([[], null]);
  });
});

describe('queued-status', () => {
  it('reports a new version QUEUED, then GENERATING, then FINISHED; a queued version cannot be changed', async () => {
    // A long generation, so real time passing during the test cannot finish it early.
    const harness = await start(['queued-status'], {}, { generationDelayMs: 10_000 });
    const id = await createParser(harness);
    const status = async (): Promise<unknown> =>
      ((await harness.raw('GET', `/parsers/${id}?${q}`)).body as { status: string }).status;
    expect(await status()).toBe('QUEUED');
    expect((await harness.raw('GET', `/parsers?${q}`)).body).toEqual([
      expect.objectContaining({ id, status: 'QUEUED' }),
    ]);
    expect(
      await harness.raw('PATCH', `/parsers/${id}`, {
        api_key: EMULATOR_KEY,
        remove_fields: ['title'],
      }),
    ).toMatchObject({
      status: 400,
      body: { error: 'version 0 is still generating; wait until it is FINISHED' },
    });
    harness.emulator.clock.advance(1000);
    expect(await status()).toBe('GENERATING');
    harness.emulator.clock.advance(10_000);
    await waitUntilFinished(harness, id);
  });
});

describe('sparse-projects', () => {
  it('leaves out keys whose value is null or the default', async () => {
    const harness = await start(['sparse-projects']);
    const created = await harness.raw('POST', `/api/projects?${q}`, {
      projectInput: { type: 'list', list: [] },
      scrapingInterval: 'once',
      scheduledAt: '2099-01-01T00:00:00.000Z',
    });
    expect(created.status).toBe(201);
    const project = created.body as Record<string, unknown>;
    expect(Object.keys(project).sort()).toEqual(
      [
        'createdAt',
        'id',
        'name',
        'notificationConfig',
        'projectInput',
        'projectOutput',
        'projectType',
        'scheduledAt',
        'schedulingEnabled',
        'scrapingInterval',
      ].sort(),
    );
    expect(project.projectOutput).toEqual({ type: 'save' });
  });

  it('reports a webhook inside projectOutput, and set values as sent', async () => {
    const harness = await start(['sparse-projects']);
    const id = await createProject(harness, {
      webhookOutput: { url: 'http://127.0.0.1:9/hook', webhookEncoding: 'multipart_form_data_encoding' },
      output_format: 'CSV',
      apiParams: { render: true },
      scheduledAt: '2099-01-01T00:00:00.000Z',
    });
    const project = (await harness.raw('GET', `/api/projects/${id}?${q}`)).body as Record<string, unknown>;
    expect(project).not.toHaveProperty('webhookOutput');
    expect(project).toMatchObject({
      projectOutput: {
        type: 'webhook',
        url: 'http://127.0.0.1:9/hook',
        webhookEncoding: 'multipart_form_data_encoding',
      },
      output_format: 'CSV',
      apiParams: { render: true },
    });
    const updated = (await harness.raw('PATCH', `/api/projects/${id}?${q}`, { webhookOutput: null }))
      .body as Record<string, unknown>;
    expect(updated.projectOutput).toEqual({ type: 'save' });
    expect(((await harness.raw('GET', `/api/projects?${q}`)).body as Record<string, unknown>[])[0]).toEqual(
      updated,
    );
  });

  it('leaves scheduledAt out once no run is due', async () => {
    const harness = await start(['sparse-projects']);
    const id = await createProject(harness, { scrapingInterval: 'once', scheduledAt: 'now' });
    await harness.emulator.projects.idle();
    expect((await harness.raw('GET', `/api/projects/${id}?${q}`)).body).not.toHaveProperty('scheduledAt');
  });

  it('idle counts a run that fell due while the process was busy and its timer has not fired yet', async () => {
    const harness = await start(['sparse-projects']);
    const due = new Date(Date.now() + 200).toISOString();
    const id = await createProject(harness, { scrapingInterval: 'once', scheduledAt: due });
    // Busy past the run's time without a turn of the event loop: the timer cannot fire before idle() is called.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
    await harness.emulator.projects.idle();
    // Read in the same turn: a request would give the late timer its turn and hide what idle() waited for.
    const project = harness.emulator.projects.projects.get(id);
    expect(project?.nextRunAt).toBeNull();
    expect([...harness.emulator.projects.jobs.values()].map((job) => job.status)).toEqual(['Finished']);
  });
});

describe('create-429', () => {
  it('refuses the first create of each account on each service with 429 and Retry-After: 1, creating nothing', async () => {
    const harness = await start(['create-429']);
    const body = { api_key: EMULATOR_KEY, name: 'b', urls: [BOOK] };
    const refused = await harness.raw('POST', '/parsers', body);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body).toEqual({
      error: 'Too many requests: retry after 1 second (emulator quirk create-429)',
    });
    expect((await harness.raw('GET', `/parsers?${q}`)).body).toEqual([]);
    expect((await harness.raw('POST', '/parsers', body)).status).toBe(201);

    const project = { projectInput: { type: 'list', list: [] } };
    const refusedProject = await harness.raw('POST', `/api/projects?${q}`, project);
    expect([refusedProject.status, refusedProject.headers.get('retry-after')]).toEqual([429, '1']);
    expect((await harness.raw('GET', `/api/projects?${q}`)).body).toEqual([]);
    expect((await harness.raw('POST', `/api/projects?${q}`, project)).status).toBe(201);

    harness.emulator.accounts.set('second-account', 1_000_000);
    expect((await harness.raw('POST', '/parsers', { ...body, api_key: 'second-account' })).status).toBe(429);

    harness.emulator.reset();
    expect((await harness.raw('POST', '/parsers', body)).status).toBe(429);
  });
});

describe('quirks combine', () => {
  it('lagging, paged and sparse at once', async () => {
    const harness = await start(['lagging-list', 'paged-lists', 'sparse-projects']);
    for (let n = 0; n < 3; n++) await createProject(harness, { scheduledAt: '2099-01-01T00:00:00.000Z' });
    expect((await harness.raw('GET', `/api/projects?${q}`)).body).toEqual({
      data: [],
      page: 1,
      per_page: 2,
      total: 0,
      has_more: false,
    });
    harness.emulator.clock.advance(2000);
    const listed = (await harness.raw('GET', `/api/projects?${q}`)).body as {
      data: Record<string, unknown>[];
      total: number;
      has_more: boolean;
    };
    expect([listed.data.length, listed.total, listed.has_more]).toEqual([2, 3, true]);
    expect(listed.data[0]).not.toHaveProperty('output_format');
  });
});

describe('choosing quirks', () => {
  it('PUT /_emulator/quirks switches them and their settings; unknown names are a 400 naming the known ones', async () => {
    const harness = await start([]);
    await createParser(harness);
    const set = await harness.raw('PUT', '/_emulator/quirks', {
      quirks: ['wrapped-lists'],
      pageSize: 3,
      jobQueuedMs: 50,
    });
    expect(set).toMatchObject({
      status: 200,
      body: {
        quirks: ['wrapped-lists'],
        listLagMs: 2000,
        pageSize: 3,
        pageStyle: 'has-more',
        queuedMs: 1000,
        jobQueuedMs: 50,
      },
    });
    expect((await harness.raw('GET', `/parsers?${q}`)).body).toHaveProperty('data');
    expect(
      await harness.raw('PUT', '/_emulator/quirks', { quirks: ['wrapped-lists', 'nope'] }),
    ).toMatchObject({
      status: 400,
      body: { error: `unknown quirk "nope"; ${KNOWN}` },
    });
    expect(await harness.raw('PUT', '/_emulator/quirks', { pageSize: 0 })).toMatchObject({
      status: 400,
      body: { error: 'pageSize must be a whole number >= 1' },
    });
    expect(await harness.raw('PUT', '/_emulator/quirks', { jobQueuedMs: -1 })).toMatchObject({
      status: 400,
      body: { error: 'jobQueuedMs must be a whole number >= 0' },
    });
    expect(await harness.raw('PUT', '/_emulator/quirks', { pageStyle: 'cursor' })).toMatchObject({
      status: 400,
      body: { error: 'pageStyle must be one of has-more, laravel, offset, link' },
    });
    expect(await harness.raw('PUT', '/_emulator/quirks', { pages: 2 })).toMatchObject({
      status: 400,
      body: {
        error:
          'unknown quirk setting pages; known: quirks, listLagMs, versionLagMs, detailsLagMs, notFoundMs, pageSize, pageStyle, queuedMs, jobQueuedMs',
      },
    });
    expect((await harness.raw('DELETE', '/_emulator/quirks')).body).toMatchObject({ quirks: [] });
    expect(Array.isArray((await harness.raw('GET', `/parsers?${q}`)).body)).toBe(true);
  });

  it('startEmulator refuses an unknown quirk, naming the known ones', async () => {
    const started = startEmulator({ port: 0, quirks: ['paged-lists', 'fast'] });
    await expect(started).rejects.toThrow(ScrapeformError);
    await expect(started).rejects.toMatchObject({
      code: 'emulator.unknown-quirk',
      message: `unknown quirk "fast"; ${KNOWN}`,
    });
  });

  it('scrapeform emulator --quirks with an unknown name is a usage error and starts nothing', async () => {
    const run = await runScrapeform(['emulator', '--port', '0', '--quirks', 'paged-lists,fast,slow']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `error: --quirks: unknown quirks "fast", "slow"; ${KNOWN}\n  hint: docs/emulator.md lists the quirks and what each one does\n`,
    );
  });
});
