import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/api-error.js';
import { ParsersClient } from '../../src/api/parsers-client.js';
import { MAX_ANSWER_DEPTH } from '../../src/api/send-request.js';
import { Transport } from '../../src/api/transport.js';
import { runScrapeform } from '../helpers/cli.js';
import { SENTINEL_KEY } from '../helpers/secrets.js';

/**
 * An answer whose values nest very deep (a parser's example result, a project's apiParams): JSON.parse reads
 * 100,000 levels, but redaction, schema checks and comparisons walk values by recursion and threw "Maximum call
 * stack size exceeded", shown as an internal error. Such an answer is a bad response naming the endpoint.
 */
const arrays = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);
const objects = (levels: number): string => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

/** How many levels the values of the answers nest inside their item (the list and the item are two more). */
let levels = 100_000;
let status = 200;
const requests: string[] = [];
let server: Server;
let url = '';
let dir = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push(`${req.method} ${pathname}`);
    res.writeHead(status, { 'content-type': 'application/json' });
    if (pathname === '/api/projects') {
      return res.end(`[{"id":1,"name":"alpha","schedulingEnabled":true,"apiParams":${objects(levels)}}]`);
    }
    if (pathname === '/parsers') {
      return res.end(
        `[{"id":"p1","name":"books","status":"FINISHED","version":1,"example_result":${arrays(levels)}}]`,
      );
    }
    res.end('[]');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-deep-answers-'));
  await writeFile(
    path.join(dir, 'alpha.yaml'),
    'kind: Project\nname: alpha\nprojectType: urls\nprojectInput: { type: list, list: [https://a.example/] }\n',
  );
});
afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  levels = 100_000;
  status = 200;
  requests.length = 0;
});

function cli(args: string[]): ReturnType<typeof runScrapeform> {
  return runScrapeform([...args, '--state', path.join(dir, 'state.json')], {
    env: { SCRAPERAPI_API_KEY: SENTINEL_KEY, SCRAPEFORM_PARSER_URL: url, SCRAPEFORM_PIPELINE_URL: url },
  });
}

describe('answers nested very deep', () => {
  it('plan: a project list whose apiParams nest 100,000 levels is api.bad-response naming the endpoint', async () => {
    const run = await cli(['plan', dir]);
    expect(run.stderr).not.toContain('internal error');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `error: GET ${url}/api/projects?api_key=***: 200: the 200 answer nests arrays or objects more than 1000 levels deep; nothing is planned from it`,
    );
    expect(run.stdout + run.stderr).not.toContain(SENTINEL_KEY);
    expect(requests).toEqual(['GET /api/projects']);
    expect(await readdir(dir)).toEqual(['alpha.yaml']);
  });

  it('import: a parser list whose example_result nests 100,000 levels writes nothing and records nothing', async () => {
    const out = await mkdtemp(path.join(tmpdir(), 'scrapeform-deep-import-'));
    const run = await cli(['import', '--out', out]);
    expect(run.stderr).not.toContain('internal error');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `error: GET ${url}/parsers?api_key=***: 200: the 200 answer nests arrays or objects more than 1000 levels deep; nothing is planned from it`,
    );
    expect(await readdir(out)).toEqual([]);
    expect(await readdir(dir)).toEqual(['alpha.yaml']);
  });

  it('is refused whatever the status, and not retried: an error answer is walked too (its body redacted)', async () => {
    status = 503;
    const transport = new Transport({ apiKey: SENTINEL_KEY, sleep: async () => undefined, random: () => 0 });
    const error = (await new ParsersClient(transport, url).list().catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect([error.code, error.status, error.retryable]).toEqual(['api.bad-response', 503, false]);
    expect(requests).toEqual(['GET /parsers']);
  });

  it('an answer nesting exactly the bound reads and plans as before', async () => {
    levels = MAX_ANSWER_DEPTH - 2;
    const transport = new Transport({ apiKey: SENTINEL_KEY });
    const parsers = await new ParsersClient(transport, url).list();
    expect(parsers.map((p) => p.id)).toEqual(['p1']);
    const run = await cli(['plan', dir]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Plan: 1 to adopt');
  });
});
