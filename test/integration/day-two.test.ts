import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { startEmulator } from '../../src/emulator/server.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { emulatorEnv, runBuiltCli } from '../helpers/child-cli.js';
import type { ChildRun } from '../helpers/child-cli.js';
import { until } from '../helpers/until.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const KEY = 'day-two-key';
const BOOK = 'https://books.example/catalogue/soumission_998/index.html';

let emulator: RunningEmulator;
let dir: string;

function scrapeform(args: string[]): Promise<ChildRun> {
  return runBuiltCli(args, { cwd: dir, env: emulatorEnv(emulator.url, KEY) });
}

async function api(method: string, p: string, body?: Record<string, unknown>): Promise<unknown> {
  const keyed = method === 'GET' || method === 'DELETE' || p.startsWith('/api/');
  const url = `${emulator.url}${p}${keyed ? `${p.includes('?') ? '&' : '?'}api_key=${KEY}` : ''}`;
  const response = await fetch(url, {
    method,
    ...(body ? { body: JSON.stringify(keyed ? body : { ...body, api_key: KEY }) } : {}),
  });
  const text = await response.text();
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

beforeAll(async () => {
  emulator = await startEmulator({ apiKeys: [KEY], generationDelayMs: 30 });
});
afterAll(async () => emulator.close());
beforeEach(async () => {
  emulator.reset();
  dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-day2-'));
  await cp(path.join(ROOT, 'examples/quickstart'), dir, { recursive: true });
});

async function applied(): Promise<{ parserId: string; projectId: number }> {
  const run = await scrapeform(['apply', '--auto-approve']);
  expect(run.code, run.stderr).toBe(0);
  await emulator.idle();
  const state = JSON.parse(await readFile(path.join(dir, '.scrapeform/state.json'), 'utf8')) as {
    resources: Record<string, { id: string | number }>;
  };
  return {
    parserId: String(state.resources['parser.books-product']?.id),
    projectId: Number(state.resources['project.nightly-book-pages']?.id),
  };
}

/**
 * Starts a slow run of the project (job 2): twelve inputs of half a second each, from a server of its own, so the job
 * is still running when a CLI process on a loaded machine gets to it. The server is closed by the caller.
 */
async function startSlowJob(projectId: number): Promise<Server> {
  const server = createServer((_, res) => setTimeout(() => res.end('page'), 500));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await api('PATCH', `/api/projects/${projectId}`, {
    projectInput: {
      type: 'list',
      list: Array.from({ length: 12 }, (_, n) => n).map((n) => `http://127.0.0.1:${port}/${n}`),
    },
    scheduledAt: 'now',
  });
  return server;
}

describe('output and status', () => {
  it('output: ids and versions from state, as JSON for consumers', async () => {
    const { parserId, projectId } = await applied();
    const run = await scrapeform(['output', '--json']);
    expect(JSON.parse(run.stdout)).toEqual({
      parsers: { 'books-product': { address: 'parser.books-product', id: parserId, version: 0 } },
      projects: { 'nightly-book-pages': { address: 'project.nightly-book-pages', id: projectId } },
    });
  });

  it('status: live version and status, drift, schedule, next run and the last job', async () => {
    const { parserId } = await applied();
    await api('PATCH', `/parsers/${parserId}/0`, { remove_fields: ['availability'] });
    const rows = JSON.parse((await scrapeform(['status', '--json'])).stdout) as Record<string, unknown>[];
    expect(rows[0]).toEqual({
      address: 'parser.books-product',
      id: parserId,
      version: 1,
      status: 'FINISHED',
      drift: true,
    });
    expect(rows[1]).toMatchObject({
      address: 'project.nightly-book-pages',
      status: 'scheduled',
      schedule: 'daily',
      lastJob: { id: 1, status: 'Finished', doneCount: 2, failedCount: 0 },
    });
    const human = await scrapeform(['status']);
    expect(human.stdout).toMatch(/parser\.books-product\s+\S+\s+1\s+FINISHED\s+DRIFT/);
  });

  it('status shows a generating version with its age, and a FAILED one with its error', async () => {
    const { parserId } = await applied();
    emulator.setFaults({ generationDelayMs: 600_000 });
    await api('PATCH', `/parsers/${parserId}/0`, {
      add_fields: [{ name: 'upc', description: 'UPC', selector: 'td.upc' }],
    });
    const rows = JSON.parse((await scrapeform(['status', '--json'])).stdout) as { status: string }[];
    expect(rows[0]?.status).toMatch(/^GENERATING \d+s$/);
  });
});

describe('parse', () => {
  it('runs a managed parser on a page and prints the JSON result', async () => {
    const { parserId } = await applied();
    const run = await scrapeform(['parse', 'parser.books-product', BOOK]);
    expect(JSON.parse(run.stdout)).toEqual({
      parser: parserId,
      version: 0,
      result: { title: 'Soumission', price: 50.1, availability: 'Out of stock', reviews: [] },
    });
  });

  it('parses the latest version when the details carry no version (the list gives it)', async () => {
    const { parserId } = await applied();
    expect(
      await fetch(`${emulator.url}/_emulator/quirks`, {
        method: 'PUT',
        body: JSON.stringify({ quirks: ['details-without-version'] }),
      }).then((r) => r.status),
    ).toBe(200);
    try {
      const run = await scrapeform(['parse', 'parser.books-product', BOOK]);
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout)).toMatchObject({ parser: parserId, result: { title: 'Soumission' } });
    } finally {
      await fetch(`${emulator.url}/_emulator/quirks`, { method: 'DELETE' });
    }
  });

  it('an unknown address names what is managed', async () => {
    await applied();
    const run = await scrapeform(['parse', 'nope', BOOK]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('error: nope is not a managed parser\n  hint: managed: parser.books-product\n');
  });

  it('a parser still generating, and a FAILED version, are clear errors', async () => {
    const { parserId } = await applied();
    emulator.setFaults({ generationDelayMs: 600_000 });
    await api('PATCH', `/parsers/${parserId}/0`, { add_fields: [{ name: 'upc', description: 'UPC' }] });
    const generating = await scrapeform(['parse', 'books-product', BOOK]);
    expect(generating.stderr).toBe(
      'error: books-product version 1 is still generating; parsing does not work until it is FINISHED\n',
    );
    emulator.setFaults({ generationDelayMs: null, failGenerations: 1 });
    await api('PATCH', `/parsers/${parserId}/0`, { add_fields: [{ name: 'isbn', description: 'ISBN' }] });
    emulator.clock.advance(600_000);
    await emulator.idle();
    const failed = await scrapeform(['parse', 'books-product', BOOK]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('error: books-product version 2 FAILED: GenerationError');
    const pinned = await scrapeform(['parse', 'books-product', BOOK, '--version', '0']);
    expect(JSON.parse(pinned.stdout)).toMatchObject({ version: 0 });
  });
});

describe('parse: the scraping parameters of the parser', () => {
  const SHOP_PAGE = 'https://shop.example/products/canvas-tote.html';
  const shopManifest = `apiVersion: scrapeform/v1
kind: Parser
name: shop-product
urls: [https://shop.example/products/trail-runner-2.html]
scraper_params: { render: true, country_code: us }
fields:
  name: { description: Product name shown as the page title, selector: '[itemprop=name]' }
  price: { description: Current price, type: number, selector: .price-current }
expect:
  - url: ${SHOP_PAGE}
    result: { name: Canvas Tote, price: 24.5 }
`;

  /** The scraping parameters of the last parse the emulator received. */
  function lastParseQuery(): Record<string, string> {
    const parse = emulator.requestLog.filter((r) => r.path.startsWith('/parse/')).at(-1);
    const query = Object.fromEntries(new URL(parse?.path ?? '/', 'http://x').searchParams);
    delete query.api_key;
    delete query.url;
    return query;
  }

  beforeEach(async () => {
    await writeFile(path.join(dir, 'shop-product.yaml'), shopManifest);
  });

  it('sends the ones the manifest declares, as test does; --render and --param override them', async () => {
    await applied();
    const tested = await scrapeform(['test', '--json']);
    expect(tested.code, tested.stdout).toBe(0);
    expect(lastParseQuery()).toEqual({ render: 'true', country_code: 'us' });
    const run = await scrapeform(['parse', 'shop-product', SHOP_PAGE]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(JSON.parse(run.stdout)).toMatchObject({ result: { name: 'Canvas Tote', price: 24.5 } });
    expect(lastParseQuery()).toEqual({ render: 'true', country_code: 'us' });
    const overridden = await scrapeform(['parse', 'shop-product', SHOP_PAGE, '--param', 'render=false']);
    expect(JSON.parse(overridden.stdout)).toMatchObject({ result: { name: null, price: null } });
    expect(lastParseQuery()).toEqual({ render: 'false', country_code: 'us' });
    await scrapeform(['parse', 'books-product', BOOK, '--render']);
    expect(lastParseQuery()).toEqual({ render: 'true' });
  });

  it('a --param value the manifest schema refuses is a usage error, and nothing is sent', async () => {
    await applied();
    const before = emulator.requestLog.length;
    const run = await scrapeform(['parse', 'shop-product', SHOP_PAGE, '--param', 'device_type=tablet']);
    expect([run.code, run.stdout, run.stderr]).toEqual([
      1,
      '',
      'error: --param device_type=tablet: must be one of desktop, mobile; got "tablet"\n',
    ]);
    expect(emulator.requestLog.length).toBe(before);
  });

  it('without its manifest, or with manifests that have errors, sends the ones state records', async () => {
    await applied();
    await rm(path.join(dir, 'shop-product.yaml'));
    const gone = await scrapeform(['parse', 'shop-product', SHOP_PAGE]);
    expect([gone.code, gone.stderr]).toEqual([0, '']);
    expect(JSON.parse(gone.stdout)).toMatchObject({ result: { name: 'Canvas Tote', price: 24.5 } });
    expect(lastParseQuery()).toEqual({ render: 'true', country_code: 'us' });
    await writeFile(
      path.join(dir, 'shop-product.yaml'),
      shopManifest.replace('scraper_params', 'scraperParams'),
    );
    const broken = await scrapeform(['parse', 'shop-product', SHOP_PAGE]);
    expect(broken.stderr).toBe(
      'warning: the manifests have errors (scrapeform validate lists them): parser.shop-product is parsed with the scraping parameters state records\n',
    );
    expect(JSON.parse(broken.stdout)).toMatchObject({ result: { name: 'Canvas Tote', price: 24.5 } });
    expect(lastParseQuery()).toEqual({ render: 'true', country_code: 'us' });
  });
});

describe('test', () => {
  it('a latest version still generating is a check that could not run: an error, and no parse sent', async () => {
    const { parserId } = await applied();
    emulator.setFaults({ generationDelayMs: 600_000 });
    await api('PATCH', `/parsers/${parserId}/0`, { add_fields: [{ name: 'upc', description: 'UPC' }] });
    const before = emulator.requestLog.length;
    const run = await scrapeform(['test', '--junit', 'junit.xml', '--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      passed: false,
      results: [
        {
          ok: false,
          mismatches: [],
          error: 'version 1 is still generating; the checks run once it is FINISHED',
        },
      ],
    });
    expect(await readFile(path.join(dir, 'junit.xml'), 'utf8')).toContain('failures="0" errors="1"');
    expect(emulator.requestLog.slice(before).map((r) => `${r.method} ${r.path.split('?')[0]}`)).toEqual([
      'GET /parsers',
    ]);
  });

  it('runs every expect block, with JUnit XML; a failure shows the field diff and exits 1', async () => {
    await applied();
    const passing = await scrapeform(['test', '--junit', 'junit.xml']);
    expect(passing.code).toBe(0);
    expect(passing.stdout).toContain('1 check passed');
    const report = await readFile(path.join(dir, 'junit.xml'), 'utf8');
    expect(report).toMatch(
      /<testsuite name="parser\.books-product" tests="1" failures="0" errors="0" skipped="0" time="\d+\.\d{3}" timestamp="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d">/,
    );
    const schema = await readFile(path.join(ROOT, 'test/fixtures/junit/junit.xsd'), 'utf8');
    const checked = await validateXML({
      xml: [{ fileName: 'junit.xml', contents: report }],
      schema: [{ fileName: 'junit.xsd', contents: schema }],
    });
    expect(checked.errors).toEqual([]);
    const file = path.join(dir, 'books-product.yaml');
    await writeFile(
      file,
      (await readFile(file, 'utf8')).replace('title: A Light in the Attic', 'title: "~^The"'),
    );
    const failing = await scrapeform(['test', '--junit', 'junit.xml', '--json']);
    expect(failing.code).toBe(1);
    expect(JSON.parse(failing.stdout)).toMatchObject({
      passed: false,
      results: [
        {
          ok: false,
          mismatches: [
            { path: 'title', expected: '~^The', actual: 'A Light in the Attic', reason: 'no match' },
          ],
        },
      ],
    });
    expect(await readFile(path.join(dir, 'junit.xml'), 'utf8')).toContain(
      '<failure message="title: expected &quot;~^The&quot;, got &quot;A Light in the Attic&quot;" type="scrapeform.expect-mismatch">',
    );
  });
});

describe('run, jobs and cancel', () => {
  it('run --wait starts the project now and follows the new job to its end', async () => {
    await applied();
    const run = await scrapeform(['run', 'nightly-book-pages', '--wait']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^id\s+status.*\n2\s+Finished/);
    const jobs = JSON.parse((await scrapeform(['jobs', 'nightly-book-pages', '--json'])).stdout) as {
      id: number;
      status: string;
    }[];
    expect(jobs.map((j) => [j.id, j.status])).toEqual([
      [1, 'Finished'],
      [2, 'Finished'],
    ]);
  });

  it('run whose start lands but whose answer is lost: run.unconfirmed, exit 1, sent once, "do not start it again"', async () => {
    await applied();
    // The emulator carries the PATCH out (the job starts, paid) and holds its answer past the request timeout. Only
    // the PATCH: the project read and the job list run makes first are answered.
    emulator.setFaults({ responseDelayMs: 3000, responseDelayMethods: ['PATCH'] });
    const run = await scrapeform(['run', 'nightly-book-pages', '--timeout', '500ms']);
    emulator.setFaults({ responseDelayMs: 0, responseDelayMethods: [] });
    expect(run.code).toBe(1);
    const [error, hint] = run.stderr.trimEnd().split('\n');
    expect(error).toMatch(
      /^error: project\.nightly-book-pages may have started: the start \(PATCH scheduledAt now\) got no clear answer: PATCH http:\/\/127\.0\.0\.1:\d+\/api\/projects\/\d+\?api_key=\*\*\*: timed out: no answer within the request timeout of 500 ms$/,
    );
    expect(hint).toBe(
      '  hint: do not start it again before checking: scrapeform jobs nightly-book-pages shows whether a new job started',
    );
    await emulator.projects.idle();
    // One new job: the start was not sent again.
    expect([...emulator.projects.jobs.values()].map((j) => j.id)).toEqual([1, 2]);
  });

  it('run while a job of the project runs: nothing is sent, run.already-running, exit 3; --allow-concurrent starts it', async () => {
    const { projectId } = await applied();
    const server = await startSlowJob(projectId);
    await until('job 2 is Running', () => emulator.projects.jobs.get(2)?.status === 'Running');
    const before = emulator.requestLog.length;
    const refused = await scrapeform(['run', 'nightly-book-pages']);
    expect(refused.stderr).toBe(
      'error: project.nightly-book-pages was not started: job 2 is running (Running), and only one job of a project runs at a time: a start now would wait behind it and run again, paid per page, or be dropped\n' +
        '  hint: wait for it to end (scrapeform jobs nightly-book-pages shows it), or cancel it (scrapeform cancel nightly-book-pages JOB_ID), then run again; --allow-concurrent starts it anyway\n',
    );
    expect(refused.code).toBe(3);
    // Only the read of the project and the list of its jobs: no start.
    expect(emulator.requestLog.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /api/projects/${projectId}?api_key=***`,
      `GET /api/projects/${projectId}/jobs?api_key=***`,
    ]);

    const allowed = await scrapeform(['run', 'nightly-book-pages', '--allow-concurrent']);
    expect(allowed.stderr).toBe('nightly-book-pages: started (scheduledAt now).\n');
    expect(allowed.code).toBe(0);
    // The emulator queues it behind job 2 (API-NOTES): cancelled, the queued run starts as job 3.
    await api('DELETE', `/api/projects/${projectId}/jobs/2`);
    await until('job 3 is Running', () => emulator.projects.jobs.get(3)?.status === 'Running');
    await api('DELETE', `/api/projects/${projectId}/jobs/3`);
    await emulator.projects.idle();
    server.close();
    expect([...emulator.projects.jobs.values()].map((j) => [j.id, j.status])).toEqual([
      [1, 'Finished'],
      [2, 'Cancelled'],
      [3, 'Cancelled'],
    ]);
  });

  it('run of a project archived outside scrapeform: nothing is sent, run.project-missing, exit 1', async () => {
    const { projectId } = await applied();
    // A second apply (no changes) sees the project live: state no longer holds it as not seen since its create.
    expect((await scrapeform(['apply', '--auto-approve'])).code).toBe(0);
    await api('DELETE', `/api/projects/${projectId}`);
    const before = emulator.requestLog.length;
    const run = await scrapeform(['run', 'nightly-book-pages', '--wait']);
    // Before, its jobs were listed (404: run.jobs-unreadable), with a hint to start it with --allow-concurrent.
    expect(run.stderr).toBe(
      'error: project.nightly-book-pages was not started: the service answers 404 for it: it was archived or deleted outside scrapeform\n' +
        '  hint: scrapeform plan shows it archived or deleted outside scrapeform: apply creates it again (a new id) while a manifest declares it\n',
    );
    expect(run.code).toBe(1);
    expect(emulator.requestLog.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /api/projects/${projectId}?api_key=***`,
    ]);
  });

  it('cancel: a running job is cancelled; an unknown or finished job is a clear error', async () => {
    const { projectId } = await applied();
    const unknown = await scrapeform(['cancel', 'nightly-book-pages', '99']);
    expect(unknown.stderr).toBe(
      'error: nightly-book-pages has no job 99\n  hint: scrapeform jobs nightly-book-pages lists its jobs\n',
    );
    const finished = await scrapeform(['cancel', 'nightly-book-pages', '1']);
    expect(finished.stderr).toContain(
      'error: job 1 of nightly-book-pages cannot be cancelled: job 1 is not running (Finished)',
    );
    const server = await startSlowJob(projectId);
    await until('job 2 was started', () => [...emulator.projects.jobs.values()].some((j) => j.id === 2));
    const cancelled = await scrapeform(['cancel', 'nightly-book-pages', '2']);
    expect(cancelled.stdout).toBe(
      'Job 2 of nightly-book-pages: Cancelled (items already in flight finish first).\n',
    );
    await emulator.projects.idle();
    server.close();
    const cancelledAgain = await scrapeform(['cancel', 'nightly-book-pages', '2']);
    expect(cancelledAgain.stderr).toContain('cannot be cancelled: job 2 is not running (Cancelled)');
  });
});

describe('diff-results', () => {
  it('shows what a regeneration changed in the data, per field', async () => {
    const { parserId } = await applied();
    await api('PATCH', `/parsers/${parserId}/0`, {
      remove_fields: ['availability'],
      rename_fields: [{ name: 'price', new_name: 'cost' }],
    });
    const run = await scrapeform(['diff-results', 'books-product', '--from', '0', '--to', '1', '--json']);
    const output = JSON.parse(run.stdout) as {
      address: string;
      changes: { url: string; path: string; change: string }[];
    };
    // The address as everywhere else, whatever short name was typed.
    expect(output.address).toBe('parser.books-product');
    const changes = output.changes;
    expect(changes.filter((c) => c.url.includes('attic')).map((c) => `${c.change} ${c.path}`)).toEqual([
      'removed price',
      'removed availability',
      'added cost',
    ]);
  });
});

describe('import', () => {
  it('import then plan: no changes, for 50 parsers and 50 projects made outside scrapeform', async () => {
    await writeFile(path.join(dir, 'books-product.yaml'), '');
    await writeFile(path.join(dir, 'nightly-book-pages.yaml'), '');
    for (let i = 0; i < 50; i++) {
      await api('POST', '/parsers', {
        name: `legacy-${i}`,
        urls: ['https://books.example/catalogue/a-light-in-the-attic_1000/index.html'],
        fields: [
          { name: 'title', description: 'Title', selector: 'h1' },
          { name: 'reviews', description: 'Reviews' },
          { name: 'reviews.author', description: 'Author' },
        ],
      });
      await api('POST', '/api/projects', {
        name: `legacy-crawl-${i}`,
        projectType: i % 2 === 0 ? 'urls' : 'amazon_product',
        projectInput:
          i % 3 === 0
            ? { type: 'webhook_input', url: 'https://lists.example/todays-asins' }
            : { type: 'list', list: [`https://books.example/catalogue/page-${(i % 3) + 1}.html`] },
        scrapingInterval: i % 2 === 0 ? 'hourly' : '15 9 * * 1-5',
        scheduledAt: '2099-01-01T00:00:00Z',
        webhookOutput:
          i % 4 === 0
            ? { url: 'https://hooks.example/x', webhookEncoding: 'multipart_form_data_encoding' }
            : null,
        notificationConfig: { notifyOnSuccess: 'weekly', notifyOnFailure: 'daily' },
        apiParams: i % 5 === 0 ? { render: true } : {},
        output_format: i % 2 === 0 ? 'JSON' : 'CSV',
      });
    }
    await emulator.idle();
    const imported = await scrapeform(['import', '--out', 'imported']);
    expect(imported.code, imported.stderr).toBe(0);
    expect((await readdir(path.join(dir, 'imported'))).length).toBe(100);
    const manifest = await readFile(path.join(dir, 'imported/parser-legacy-7.yaml'), 'utf8');
    expect(manifest).toMatch(/^# yaml-language-server: \$schema=.*schemas\/scrapeform\.schema\.json\n/);
    expect(manifest).toContain(
      '  reviews:\n    description: "TODO: describe this field (imported: the service does not return descriptions)"\n    fields:\n      author:',
    );
    const plan = await scrapeform(['plan', '--detailed-exitcode']);
    expect([plan.code, plan.stdout.split('\n')[0]]).toEqual([
      0,
      'No changes. The live services match the manifests.',
    ]);
    const validate = await scrapeform(['validate']);
    expect(validate.code).toBe(0);
    expect(validate.stderr).toContain(
      'fields.title.description: warning: the description is a placeholder written by import',
    );
    const again = await scrapeform(['import', '--out', 'imported']);
    expect(again.stdout).toBe('Nothing to import: every live object is managed or declared.\n');
  });

  it('writes a $schema that works from the repository, and keeps the new local state out of Git', async () => {
    await api('POST', '/parsers', {
      name: 'legacy',
      urls: ['https://books.example/catalogue/page-1.html'],
      fields: [{ name: 'title', description: 'T', selector: 'h1' }],
    });
    await emulator.idle();
    // A repository with scrapeform as a dev dependency: the schema is referred to where every clone has it.
    await mkdir(path.join(dir, '.git'));
    await mkdir(path.join(dir, 'node_modules/scrapeform/schemas'), { recursive: true });
    await cp(
      path.join(ROOT, 'schemas/scrapeform.schema.json'),
      path.join(dir, 'node_modules/scrapeform/schemas/scrapeform.schema.json'),
    );
    const imported = await scrapeform(['import', '--out', 'scrapers/imported']);
    expect(imported.code, imported.stderr).toBe(0);
    const manifest = await readFile(path.join(dir, 'scrapers/imported/parser-legacy.yaml'), 'utf8');
    expect(manifest.split('\n').slice(0, 2)).toEqual([
      '# yaml-language-server: $schema=../../node_modules/scrapeform/schemas/scrapeform.schema.json',
      '# Imported by scrapeform import.',
    ]);
    expect(manifest).not.toContain(ROOT);
    expect(imported.stderr).toContain(`Added .scrapeform/ (local state) to ${path.join(dir, '.gitignore')}.`);
    expect(await readFile(path.join(dir, '.gitignore'), 'utf8')).toBe(
      "# scrapeform's local state and lock (scrapeform import)\n.scrapeform/\n",
    );
  });

  it('a .gitignore that cannot be read is said, and the import, done and recorded, still exits 0', async () => {
    await api('POST', '/parsers', {
      name: 'legacy',
      urls: ['https://books.example/catalogue/page-1.html'],
      fields: [{ name: 'title', description: 'T', selector: 'h1' }],
    });
    await emulator.idle();
    await mkdir(path.join(dir, '.git'));
    // A folder where .gitignore goes: reading it fails (EISDIR). It was an internal error after the import was done.
    await mkdir(path.join(dir, '.gitignore'));
    const imported = await scrapeform(['import', '--out', 'imported']);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain(
      `warning: could not add .scrapeform/ (local state) to ${path.join(dir, '.gitignore')}: illegal operation on a directory (EISDIR); add it by hand to keep the state and its lock out of Git`,
    );
    expect(await readFile(path.join(dir, 'imported/parser-legacy.yaml'), 'utf8')).toContain('name: legacy');
  });

  it('without scrapeform installed in the repository, the $schema says how to make it resolve; an ignored state is left alone', async () => {
    await api('POST', '/parsers', {
      name: 'legacy',
      urls: ['https://books.example/catalogue/page-1.html'],
      fields: [{ name: 'title', description: 'T', selector: 'h1' }],
    });
    await emulator.idle();
    await mkdir(path.join(dir, '.git'));
    await writeFile(path.join(dir, '.gitignore'), 'node_modules\n**/.scrapeform\n');
    const imported = await scrapeform(['import', '--out', 'imported']);
    expect(imported.code, imported.stderr).toBe(0);
    const manifest = await readFile(path.join(dir, 'imported/parser-legacy.yaml'), 'utf8');
    expect(manifest.split('\n').slice(0, 3)).toEqual([
      '# yaml-language-server: $schema=../node_modules/scrapeform/schemas/scrapeform.schema.json',
      '# The schema above resolves once scrapeform is a dev dependency: npm install --save-dev scrapeform',
      '# Imported by scrapeform import.',
    ]);
    expect(imported.stderr).not.toContain('.gitignore');
    expect(await readFile(path.join(dir, '.gitignore'), 'utf8')).toBe('node_modules\n**/.scrapeform\n');
  });

  it('refuses to overwrite an existing file, and --filter picks by name', async () => {
    await api('POST', '/parsers', {
      name: 'legacy',
      urls: ['https://books.example/catalogue/page-1.html'],
      fields: [{ name: 'title', description: 'T', selector: 'h1' }],
    });
    await api('POST', '/parsers', {
      name: 'other',
      urls: ['https://books.example/catalogue/page-1.html'],
      fields: [{ name: 'title', description: 'T', selector: 'h1' }],
    });
    await emulator.idle();
    await writeFile(path.join(dir, 'parser-legacy.yaml'), '# mine\n');
    const refused = await scrapeform(['import', '--filter', 'leg*']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error: refusing to overwrite parser-legacy.yaml; nothing was written');
    const filtered = await scrapeform(['import', '--filter', 'oth?r', '--out', 'x']);
    expect(filtered.stdout).toBe(`imported parser.other -> ${path.join('x', 'parser-other.yaml')}\n`);
  });
});
