import { mkdtemp } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { nextAfter } from '../../src/emulator/scheduler.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { until } from '../helpers/until.js';

interface Received {
  path: string;
  contentType: string;
  body: string;
}

/** A loopback server standing in for webhook receivers and input lists; `respond` decides each answer. */
let receiver: http.Server;
let receiverUrl = '';
const received: Received[] = [];
let respond: (
  req: http.IncomingMessage,
  body: string,
) => { status: number; body?: string; delayMs?: number } = () => ({ status: 200 });

let h: EmulatorHarness;
const q = `api_key=${EMULATOR_KEY}`;
const T0 = Date.parse('2030-01-07T00:00:00.000Z');
const HOUR = 3_600_000;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push({ path: req.url ?? '', contentType: req.headers['content-type'] ?? '', body });
      const answer = respond(req, body);
      setTimeout(() => {
        res.writeHead(answer.status, { 'content-type': 'text/plain' });
        res.end(answer.body ?? '');
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  h = await startTestEmulator();
});
afterAll(async () => {
  await h.emulator.close();
  await new Promise((resolve) => receiver.close(resolve));
});
afterEach(async () => {
  await h.emulator.projects.idle();
  h.emulator.reset();
  received.length = 0;
  respond = () => ({ status: 200 });
});

/** Moves the emulated clock to an absolute time, then lets the jobs that fell due finish. */
async function advanceTo(at: number): Promise<void> {
  h.emulator.clock.advance(Math.max(0, at - h.emulator.clock.now()));
  await h.emulator.projects.idle();
}

async function create(body: Record<string, unknown>): Promise<number> {
  const response = await h.raw('POST', `/api/projects?${q}`, body);
  expect(response.status).toBe(201);
  return (response.body as { id: number }).id;
}

function jobsOf(id: number) {
  return [...h.emulator.projects.jobs.values()].filter((j) => j.projectId === id);
}

const BOOK_PAGES = [
  'https://books.example/catalogue/page-1.html',
  'https://books.example/catalogue/page-2.html',
];

describe('projects: create, get, update, archive, list (seed 2)', () => {
  it('creates with numeric ids and ISO createdAt, and reads back what was sent', async () => {
    const sent = {
      name: 'nightly',
      projectType: 'urls',
      projectInput: { type: 'list', list: BOOK_PAGES },
      scrapingInterval: 'daily',
      scheduledAt: '2030-01-08T06:00:00.000Z',
      schedulingEnabled: true,
      output_format: 'CSV',
      webhookOutput: { url: `${receiverUrl}/hook`, webhookEncoding: 'multipart_form_data_encoding' },
      notificationConfig: { notifyOnSuccess: 'daily', notifyOnFailure: 'weekly' },
      apiParams: { render: false, country_code: 'us' },
    };
    const created = await h.raw('POST', `/api/projects?${q}`, sent);
    expect(created.status).toBe(201);
    const project = created.body as Record<string, unknown>;
    expect(project).toMatchObject({ ...sent, id: 1, projectOutput: { type: 'save' } });
    expect(project.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect((await h.projects.get(1)).name).toBe('nightly');
    expect((await h.projects.list()).map((p) => p.id)).toEqual([1]);
  });

  it('a create with only projectInput gets the documented defaults: weekly, enabled, generated name, save', async () => {
    const id = await create({
      projectInput: { type: 'list', list: ['https://books.example/catalogue/page-1.html'] },
    });
    const project = await h.projects.get(id);
    expect(project).toMatchObject({
      schedulingEnabled: true,
      scrapingInterval: 'weekly',
      projectType: 'urls',
      projectOutput: { type: 'save' },
      notificationConfig: { notifyOnSuccess: 'never', notifyOnFailure: 'with_every_run' },
      output_format: 'JSON',
      webhookOutput: null,
    });
    expect(project.name).toBe(`Project created at ${project.createdAt}`);
  });

  it('PATCH changes only the fields sent; webhookOutput null removes the callback', async () => {
    const id = await create({
      name: 'a',
      projectInput: { type: 'list', list: BOOK_PAGES },
      webhookOutput: { url: `${receiverUrl}/hook` },
      apiParams: { render: true },
    });
    const updated = await h.projects.update(id, { name: 'b', webhookOutput: null });
    expect(updated).toMatchObject({ name: 'b', webhookOutput: null, apiParams: { render: true } });
  });

  it('PATCH replaces a nested object whole: a key left out of notificationConfig takes its default', async () => {
    const id = await create({
      name: 'a',
      projectInput: { type: 'list', list: BOOK_PAGES },
      notificationConfig: { notifyOnSuccess: 'daily', notifyOnFailure: 'weekly' },
      apiParams: { render: true, country_code: 'us' },
    });
    await h.projects.update(id, {
      notificationConfig: { notifyOnSuccess: 'with_every_run' },
      apiParams: { premium: true },
    });
    expect(await h.projects.get(id)).toMatchObject({
      notificationConfig: { notifyOnSuccess: 'with_every_run', notifyOnFailure: 'with_every_run' },
      apiParams: { premium: true },
    });
    expect((await h.projects.get(id)).apiParams).toEqual({ premium: true });
  });

  it('archive: the project leaves the list and answers 404', async () => {
    const id = await create({ name: 'gone', projectInput: { type: 'list', list: BOOK_PAGES } });
    expect((await h.raw('DELETE', `/api/projects/${id}?${q}`)).status).toBe(204);
    expect((await h.raw('GET', `/api/projects/${id}?${q}`)).status).toBe(404);
    expect(await h.projects.list()).toEqual([]);
  });

  it.each([
    ['name', { name: '' }, 'name: must be a non-empty string'],
    ['schedulingEnabled', { schedulingEnabled: 'yes' }, 'schedulingEnabled: must be true or false'],
    [
      'scrapingInterval',
      { scrapingInterval: 'fortnightly' },
      'scrapingInterval: must be once, hourly, daily, weekly, monthly or a cron expression, got "fortnightly"',
    ],
    ['scheduledAt', { scheduledAt: 'tomorrow' }, 'scheduledAt: must be an ISO 8601 date-time or now'],
    [
      'projectType',
      { projectType: 'amazon_products' },
      'projectType: unknown project type "amazon_products"',
    ],
    [
      'projectInput.type',
      { projectInput: { type: 'csv' } },
      'projectInput.type: must be list or webhook_input',
    ],
    [
      'projectInput.url',
      { projectInput: { type: 'webhook_input', url: 'ftp://x' } },
      'projectInput.url: must be an http(s) URL',
    ],
    ['webhookOutput.url', { webhookOutput: { url: 'nope' } }, 'webhookOutput.url: must be an http(s) URL'],
    [
      'webhookEncoding',
      { webhookOutput: { url: 'https://h.example', webhookEncoding: 'xml' } },
      'webhookOutput.webhookEncoding: must be multipart_form_data_encoding',
    ],
    [
      'notifyOnFailure',
      { notificationConfig: { notifyOnFailure: 'never' } },
      'notificationConfig.notifyOnFailure: must be with_every_run, daily or weekly',
    ],
    ['output_format', { output_format: 'XML' }, 'output_format: must be JSON or CSV'],
    ['apiParams', { apiParams: [] }, 'apiParams: must be an object'],
    ['an unknown field', { colour: 'red' }, 'colour: unknown field'],
  ])('400 naming the field: %s', async (_, fields, message) => {
    const response = await h.raw('POST', `/api/projects?${q}`, {
      projectInput: { type: 'list', list: BOOK_PAGES },
      ...fields,
    });
    expect([response.status, response.body]).toEqual([400, { error: message }]);
    expect(await h.projects.list()).toEqual([]);
  });

  it('accepts every one of the nineteen project types as spelled in the seed', async () => {
    for (const projectType of [
      'urls',
      'amazon_product',
      'amazon_offer',
      'amazon_review',
      'amazon_search',
      'ebay_product',
      'ebay_search',
      'google_jobs',
      'google_news',
      'google_search',
      'google_shopping',
      'redfin_search',
      'redfin_agent',
      'redfin_forsale',
      'refin_forrent',
      'walmart_category',
      'walmart_product',
      'walmart_search',
      'walmart_review',
    ]) {
      await create({
        projectType,
        projectInput: { type: 'list', list: ['x'] },
        scheduledAt: '2099-01-01T00:00:00Z',
      });
    }
    expect(await h.projects.list()).toHaveLength(19);
  });

  it('401 for an unknown or missing key; 402 with no credits left; 404 for an unknown id', async () => {
    expect((await h.raw('GET', '/api/projects?api_key=nope')).status).toBe(401);
    expect((await h.raw('GET', '/api/projects')).status).toBe(401);
    expect((await h.raw('GET', `/api/projects/99?${q}`)).status).toBe(404);
    expect((await h.raw('GET', `/api/projects/99/jobs?${q}`)).status).toBe(404);
    h.emulator.accounts.set(EMULATOR_KEY, 0);
    expect(
      (await h.raw('POST', `/api/projects?${q}`, { projectInput: { type: 'list', list: ['x'] } })).status,
    ).toBe(402);
  });
});

describe('jobs and the scheduler', () => {
  it('hourly: runs at scheduledAt and then every hour, with job records and results', async () => {
    await advanceTo(T0 - HOUR);
    const id = await create({
      name: 'h',
      projectInput: { type: 'list', list: BOOK_PAGES },
      scrapingInterval: 'hourly',
      scheduledAt: new Date(T0).toISOString(),
    });
    await advanceTo(T0 + 2 * HOUR + 1);
    const jobs = jobsOf(id);
    expect(jobs.map((j) => j.scheduledFor)).toEqual(
      [0, 1, 2].map((n) => new Date(T0 + n * HOUR).toISOString()),
    );
    const listed = (await h.raw('GET', `/api/projects/${id}/jobs?${q}`)).body as Record<string, unknown>[];
    expect(listed[0]).toMatchObject({
      id: 1,
      projectId: id,
      status: 'Finished',
      inputCount: 2,
      doneCount: 2,
      failedCount: 0,
      credits: 12,
      error: null,
    });
    expect(Object.keys(listed[0] ?? {})).not.toContain('results');
    const results = (await h.raw('GET', `/api/projects/${id}/jobs/1/results?${q}`)).body as {
      input: string;
      status: string;
      content: string;
    }[];
    expect(results.map((r) => [r.input, r.status])).toEqual(BOOK_PAGES.map((p) => [p, 'done']));
    expect(results[0]?.content).toContain('All products');
    expect((listed[0] as { resultsUrl: string }).resultsUrl).toBe(
      `${h.emulator.url}/api/projects/${id}/jobs/1/results`,
    );
  });

  it('cron: runs at each cron time (UTC)', async () => {
    await advanceTo(T0);
    const id = await create({
      projectInput: { type: 'list', list: ['https://books.example/catalogue/page-1.html'] },
      scrapingInterval: '30 6 * * 1-5',
      scheduledAt: '2030-01-07T06:30:00Z',
    });
    await advanceTo(T0 + 7 * 24 * HOUR);
    expect(jobsOf(id).map((j) => j.scheduledFor)).toEqual([
      '2030-01-07T06:30:00.000Z',
      '2030-01-08T06:30:00.000Z',
      '2030-01-09T06:30:00.000Z',
      '2030-01-10T06:30:00.000Z',
      '2030-01-11T06:30:00.000Z',
    ]);
  });

  it('monthly: a run every month, February too, for a project started on the 31st', async () => {
    await advanceTo(T0);
    const id = await create({
      projectInput: { type: 'list', list: ['https://books.example/catalogue/page-1.html'] },
      scrapingInterval: 'monthly',
      scheduledAt: '2030-01-31T08:00:00Z',
    });
    await advanceTo(Date.parse('2030-04-30T00:00:00Z'));
    expect(jobsOf(id).map((j) => j.scheduledFor)).toEqual([
      '2030-01-31T08:00:00.000Z',
      '2030-02-28T08:00:00.000Z',
      '2030-03-28T08:00:00.000Z',
      '2030-04-28T08:00:00.000Z',
    ]);
  });

  it('scheduledAt now starts at once; once runs one time', async () => {
    const id = await create({
      projectInput: { type: 'list', list: ['https://books.example/catalogue/page-1.html'] },
      scrapingInterval: 'once',
      scheduledAt: 'now',
    });
    await advanceTo(h.emulator.clock.now() + 30 * 24 * HOUR);
    expect(jobsOf(id)).toHaveLength(1);
    expect((await h.projects.get(id)).scheduledAt).toBeNull();
  });

  it('schedulingEnabled false: the next run happens, then no more', async () => {
    await advanceTo(T0 - HOUR);
    const id = await create({
      projectInput: { type: 'list', list: ['https://books.example/catalogue/page-1.html'] },
      scrapingInterval: 'hourly',
      scheduledAt: new Date(T0).toISOString(),
      schedulingEnabled: false,
    });
    await advanceTo(T0 + 10 * HOUR);
    expect(jobsOf(id)).toHaveLength(1);
  });

  it('schedulingEnabled false: a PATCH of the interval after the run schedules none', async () => {
    await advanceTo(T0 - HOUR);
    const id = await create({
      projectInput: { type: 'list', list: ['https://books.example/catalogue/page-1.html'] },
      scrapingInterval: 'daily',
      scheduledAt: new Date(T0).toISOString(),
      schedulingEnabled: false,
    });
    await advanceTo(T0 + HOUR);
    const patched = await h.raw('PATCH', `/api/projects/${id}?${q}`, {
      scrapingInterval: 'weekly',
      schedulingEnabled: false,
    });
    expect(patched.status).toBe(200);
    expect((patched.body as { scheduledAt: unknown }).scheduledAt).toBeNull();
    await advanceTo(T0 + 30 * 24 * HOUR);
    expect(jobsOf(id)).toHaveLength(1);
  });

  it('PATCH scheduledAt: now triggers a run (what `scrapeform run` does)', async () => {
    await advanceTo(T0);
    const id = await create({
      projectInput: { type: 'list', list: ['https://books.example/catalogue/page-1.html'] },
      scrapingInterval: 'weekly',
      scheduledAt: '2030-02-01T00:00:00Z',
    });
    await h.projects.update(id, { scheduledAt: 'now' });
    await advanceTo(h.emulator.clock.now() + 1);
    expect(jobsOf(id)).toHaveLength(1);
  });

  it('one job of a project at a time: a run that falls due meanwhile waits, in order, without overlap', async () => {
    respond = () => ({ status: 200, body: 'slow page', delayMs: 150 });
    await advanceTo(T0 - HOUR);
    const id = await create({
      projectInput: { type: 'list', list: [`${receiverUrl}/slow-1`, `${receiverUrl}/slow-2`] },
      scrapingInterval: 'hourly',
      scheduledAt: new Date(T0).toISOString(),
    });
    h.emulator.clock.advance(T0 + 2 * HOUR - h.emulator.clock.now());
    await h.emulator.projects.idle();
    const jobs = jobsOf(id);
    expect(jobs.map((j) => j.scheduledFor)).toEqual(
      [0, 1, 2].map((n) => new Date(T0 + n * HOUR).toISOString()),
    );
    for (let i = 1; i < jobs.length; i++) {
      expect(Date.parse(jobs[i]?.startedAt ?? '')).toBeGreaterThanOrEqual(
        Date.parse(jobs[i - 1]?.finishedAt ?? ''),
      );
    }
  });

  it('cancel: in-flight items finish, later ones never start, status Cancelled', async () => {
    // Item 1 answers a second after it is asked for, and the cancel is sent as soon as it is: a fixed sleep before
    // the cancel left 150 ms for it, which a loaded machine could miss (item 2 then started).
    respond = () => ({ status: 200, body: 'page', delayMs: 1_000 });
    const id = await create({
      projectInput: { type: 'list', list: [1, 2, 3, 4].map((n) => `${receiverUrl}/item-${n}`) },
      scrapingInterval: 'once',
      scheduledAt: 'now',
    });
    h.emulator.clock.advance(1);
    await until('the job asked for item 1', () => received.some((r) => r.path === '/item-1'), { everyMs: 5 });
    const cancelled = (await h.projects.cancelJob(id, 1)) as { status: string };
    expect(cancelled.status).toBe('Cancelled');
    await h.emulator.projects.idle();
    const job = jobsOf(id)[0];
    expect([job?.status, job?.doneCount]).toEqual(['Cancelled', 1]);
    expect(received.filter((r) => r.path.startsWith('/item-')).map((r) => r.path)).toEqual(['/item-1']);
    expect((await h.raw('DELETE', `/api/projects/${id}/jobs/1?${q}`)).status).toBe(400);
    expect((await h.raw('DELETE', `/api/projects/${id}/jobs/77?${q}`)).status).toBe(404);
  });

  it('webhook_input: the list is fetched when the job starts; an unreachable list fails the job', async () => {
    respond = (req) =>
      req.url === '/list'
        ? {
            status: 200,
            body: 'https://books.example/catalogue/page-1.html\n\nhttps://books.example/catalogue/page-2.html\n',
          }
        : { status: 404 };
    const ok = await create({
      projectInput: { type: 'webhook_input', url: `${receiverUrl}/list` },
      scrapingInterval: 'once',
      scheduledAt: 'now',
    });
    const bad = await create({
      projectInput: { type: 'webhook_input', url: `${receiverUrl}/missing` },
      scrapingInterval: 'once',
      scheduledAt: 'now',
    });
    await advanceTo(h.emulator.clock.now() + 1);
    expect(jobsOf(ok)[0]).toMatchObject({ status: 'Finished', inputCount: 2, doneCount: 2 });
    expect(jobsOf(bad)[0]).toMatchObject({
      status: 'Failed',
      error: `could not fetch the input list from ${receiverUrl}/missing: Failed to download ${receiverUrl}/missing after 3 retries`,
    });
  });

  it('structured project types produce one record per input, marked as emulated, in CSV when asked', async () => {
    const id = await create({
      projectType: 'amazon_product',
      projectInput: { type: 'list', list: ['B000123', 'B000456'] },
      output_format: 'CSV',
      scrapingInterval: 'once',
      scheduledAt: 'now',
    });
    await advanceTo(h.emulator.clock.now() + 1);
    const csv = await h.raw('GET', `/api/projects/${id}/jobs/1/results?${q}`);
    expect(csv.headers.get('content-type')).toBe('text/csv');
    expect(csv.body).toBe(
      'input,status,emulated,projectType,note\n' +
        'B000123,done,true,amazon_product,emulated amazon_product record: the real service returns structured data for this input\n' +
        'B000456,done,true,amazon_product,emulated amazon_product record: the real service returns structured data for this input\n',
    );
  });
});

describe('webhooks and notifications', () => {
  it('delivers results as JSON', async () => {
    const id = await create({
      projectInput: { type: 'list', list: ['https://books.example/catalogue/page-1.html'] },
      webhookOutput: { url: `${receiverUrl}/hook` },
      scrapingInterval: 'once',
      scheduledAt: 'now',
    });
    await advanceTo(h.emulator.clock.now() + 1);
    const hook = received.find((r) => r.path === '/hook');
    expect(hook?.contentType).toBe('application/json');
    const payload = JSON.parse(hook?.body ?? '{}') as {
      projectId: number;
      jobId: number;
      status: string;
      results: unknown[];
    };
    expect([payload.projectId, payload.jobId, payload.status, payload.results.length]).toEqual([
      id,
      1,
      'Finished',
      1,
    ]);
    expect(h.emulator.projects.deliveries).toMatchObject([
      { jobId: 1, encoding: 'json', attempt: 1, status: 200, delivered: true },
    ]);
  });

  it('delivers multipart form data with multipart_form_data_encoding, and retries a failing receiver', async () => {
    let calls = 0;
    respond = (req) => (req.url === '/multi' && ++calls === 1 ? { status: 500 } : { status: 200 });
    await create({
      projectInput: { type: 'list', list: ['https://books.example/catalogue/page-1.html'] },
      output_format: 'CSV',
      webhookOutput: { url: `${receiverUrl}/multi`, webhookEncoding: 'multipart_form_data_encoding' },
      scrapingInterval: 'once',
      scheduledAt: 'now',
    });
    await advanceTo(h.emulator.clock.now() + 1);
    const deliveries = received.filter((r) => r.path === '/multi');
    expect(deliveries).toHaveLength(2);
    expect(deliveries[1]?.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(deliveries[1]?.body).toContain('name="results"; filename="results.csv"');
    expect(deliveries[1]?.body).toContain('input,status,content');
    expect(h.emulator.projects.deliveries.map((d) => [d.attempt, d.status, d.delivered])).toEqual([
      [1, 500, false],
      [2, 200, true],
    ]);
  });

  it('gives up after a bounded number of tries and records each', async () => {
    respond = () => ({ status: 503 });
    await create({
      projectInput: { type: 'list', list: ['https://books.example/catalogue/page-1.html'] },
      webhookOutput: { url: `${receiverUrl}/down` },
      scrapingInterval: 'once',
      scheduledAt: 'now',
    });
    await advanceTo(h.emulator.clock.now() + 1);
    expect(h.emulator.projects.deliveries.map((d) => d.delivered)).toEqual([false, false, false]);
  });

  it('notifications: with_every_run at once, never not at all, daily as a digest at midnight UTC', async () => {
    await advanceTo(T0 + HOUR);
    const every = await create({
      name: 'every',
      projectInput: { type: 'list', list: ['https://books.example/catalogue/page-1.html'] },
      notificationConfig: { notifyOnSuccess: 'with_every_run' },
      scrapingInterval: 'hourly',
      scheduledAt: 'now',
    });
    await create({
      name: 'quiet',
      projectInput: { type: 'list', list: ['https://books.example/catalogue/page-1.html'] },
      scrapingInterval: 'hourly',
      scheduledAt: 'now',
    });
    await create({
      name: 'digest',
      projectInput: { type: 'list', list: ['https://books.example/catalogue/page-1.html'] },
      notificationConfig: { notifyOnSuccess: 'daily' },
      scrapingInterval: 'hourly',
      scheduledAt: 'now',
    });
    await create({
      name: 'failing',
      projectInput: { type: 'list', list: ['https://books.example/nope.html'] },
      scrapingInterval: 'once',
      scheduledAt: 'now',
    });
    // A second of slack: the runs are at creation time plus whole hours, and creating took a few real ms.
    await advanceTo(T0 + 3 * HOUR + 1000);
    const outbox = (await h.raw('GET', '/_emulator/outbox')).body as {
      projectName: string;
      cadence: string;
      kind: string;
      jobIds: number[];
    }[];
    expect(outbox.filter((m) => m.projectName === 'every')).toHaveLength(3);
    expect(outbox.filter((m) => m.projectName === 'quiet')).toHaveLength(0);
    expect(outbox.filter((m) => m.projectName === 'failing').map((m) => [m.kind, m.cadence])).toEqual([
      ['failure', 'with_every_run'],
    ]);
    expect(outbox.filter((m) => m.projectName === 'digest')).toHaveLength(0);
    // Hour by hour, so each job finishes in its own hour (jobs run in real time between advances).
    for (let t = T0 + 4 * HOUR; t <= T0 + 24 * HOUR; t += HOUR) await advanceTo(t + 1000);
    const digests = ((await h.raw('GET', '/_emulator/outbox')).body as typeof outbox).filter(
      (m) => m.projectName === 'digest',
    );
    expect(digests).toHaveLength(1);
    expect(digests[0]?.jobIds).toHaveLength(23);
    expect(every).toBe(1);
  });
});

describe('soak: 100 projects over 30 simulated days', () => {
  it('runs every expected job exactly once, in order, with no overlap per project', async () => {
    const start = Date.parse('2031-03-01T00:00:00.000Z');
    const end = start + 30 * 24 * HOUR;
    await advanceTo(start - HOUR);
    const crons = ['0 */6 * * *', '15 9 * * 1-5', '*/30 * * * *', '0 0 * * *', '45 13 * * 2,4'];
    const expected = new Map<number, string[]>();
    for (let i = 0; i < 100; i++) {
      const interval = i % 2 === 0 ? 'hourly' : (crons[i % crons.length] as string);
      const first = i % 2 === 0 ? start + (i % 60) * 60_000 : (nextAfter(interval, start - 1) as number);
      const id = await create({
        name: `soak-${i}`,
        projectInput: { type: 'list', list: ['https://books.example/catalogue/page-1.html'] },
        scrapingInterval: interval,
        scheduledAt: new Date(first).toISOString(),
      });
      const times: string[] = [];
      for (let t: number | null = first; t !== null && t <= end; t = nextAfter(interval, t))
        times.push(new Date(t).toISOString());
      expected.set(id, times);
    }
    for (let t = start; t < end; t += 24 * HOUR) await advanceTo(Math.min(t + 24 * HOUR, end));
    let total = 0;
    for (const [id, times] of expected) {
      const jobs = jobsOf(id).sort((a, b) => a.id - b.id);
      expect(jobs.map((j) => j.scheduledFor)).toEqual(times);
      for (let i = 1; i < jobs.length; i++) {
        expect(Date.parse(jobs[i]?.startedAt ?? '')).toBeGreaterThanOrEqual(
          Date.parse(jobs[i - 1]?.finishedAt ?? ''),
        );
      }
      expect(jobs.every((j) => j.status === 'Finished')).toBe(true);
      total += jobs.length;
    }
    expect(total).toBeGreaterThan(40_000);
  }, 120_000);
});

describe('--data-dir keeps projects', () => {
  it('restarted on the same data dir, projects, jobs and schedules are back with their ids, and new ids follow', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'scrapeform-emulator-projects-'));
    const first = await startTestEmulator({ dataDir });
    const createIn = async (harness: EmulatorHarness, body: Record<string, unknown>): Promise<number> => {
      const response = await harness.raw('POST', `/api/projects?${q}`, body);
      expect(response.status).toBe(201);
      return (response.body as { id: number }).id;
    };
    const read = async (harness: EmulatorHarness, path: string): Promise<unknown> =>
      (await harness.raw('GET', `${path}?${q}`)).body;
    first.emulator.clock.advance(T0 - HOUR - first.emulator.clock.now());
    const ran = await createIn(first, {
      name: 'ran once',
      projectInput: { type: 'list', list: BOOK_PAGES },
      scrapingInterval: 'once',
      scheduledAt: 'now',
      output_format: 'CSV',
    });
    const scheduled = await createIn(first, {
      name: 'daily',
      projectInput: { type: 'list', list: [BOOK_PAGES[0]] },
      scrapingInterval: 'daily',
      scheduledAt: new Date(T0).toISOString(),
      webhookOutput: { url: `${receiverUrl}/hook` },
      notificationConfig: { notifyOnSuccess: 'with_every_run', notifyOnFailure: 'daily' },
      apiParams: { country_code: 'us' },
    });
    const archived = await createIn(first, {
      name: 'archived',
      projectInput: { type: 'list', list: [] },
      scheduledAt: new Date(T0 + 24 * HOUR).toISOString(),
    });
    expect((await first.raw('DELETE', `/api/projects/${archived}?${q}`)).status).toBe(204);
    await first.emulator.projects.idle();
    const projectsBefore = await read(first, '/api/projects');
    const jobsBefore = (await read(first, `/api/projects/${ran}/jobs`)) as Record<string, unknown>[];
    const resultsBefore = await read(first, `/api/projects/${ran}/jobs/1/results`);
    expect(jobsBefore.map((j) => [j.id, j.status])).toEqual([[1, 'Finished']]);
    await first.emulator.close();

    const second = await startTestEmulator({ dataDir });
    try {
      expect(await read(second, '/api/projects')).toEqual(projectsBefore);
      expect(((await read(second, '/api/projects')) as { id: number }[]).map((p) => p.id)).toEqual([
        ran,
        scheduled,
      ]);
      expect(await read(second, `/api/projects/${ran}/jobs`)).toEqual(
        jobsBefore.map((j) => ({
          ...j,
          resultsUrl: `${second.emulator.url}/api/projects/${ran}/jobs/1/results`,
        })),
      );
      expect(await read(second, `/api/projects/${ran}/jobs/1/results`)).toEqual(resultsBefore);
      expect((await second.raw('GET', `/api/projects/${archived}?${q}`)).status).toBe(404);

      // The schedule survived: the daily project runs at T0, and its job takes the next job id.
      second.emulator.clock.advance(T0 + 1 - second.emulator.clock.now());
      await second.emulator.projects.idle();
      expect(
        ((await read(second, `/api/projects/${scheduled}/jobs`)) as Record<string, unknown>[]).map((j) => [
          j.id,
          j.scheduledFor,
          j.status,
        ]),
      ).toEqual([[2, new Date(T0).toISOString(), 'Finished']]);
      expect(received.map((r) => r.path)).toContain('/hook');

      const next = await createIn(second, { name: 'new', projectInput: { type: 'list', list: [] } });
      expect(next).toBe(archived + 1);
      expect(((await read(second, '/api/projects')) as { id: number }[]).map((p) => p.id)).toEqual([
        ran,
        scheduled,
        next,
      ]);
    } finally {
      await second.emulator.projects.idle();
      await second.emulator.close();
    }
  });
});
