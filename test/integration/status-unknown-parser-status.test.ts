import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { stateOf } from '../helpers/state.js';

const KEY = 'status-unknown-key';
const DEF = {
  urls: ['https://books.example/1'],
  scraperParams: {},
  fields: [{ name: 'title', description: 'Title' }],
};

/**
 * The parser service lists `odd` with a status scrapeform does not know, one that happens to read like status's own
 * word for an object not read by id (`UNREADABLE_SOURCE`): still working, so its details are read for how long, and
 * they answer a record of an unknown shape. `odd` was listed: only its details could not be read.
 */
let server: Server;
let url: string;
let dir: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://127.0.0.1');
    const answer = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (pathname === '/parsers') {
      return answer(200, [{ id: 'p-odd', name: 'odd', status: 'UNREADABLE_SOURCE', version: 2 }]);
    }
    if (pathname === '/parsers/p-odd' || pathname === '/parsers/p-odd/2') return answer(200, { status: 7 });
    if (pathname === '/api/projects') return answer(200, []);
    answer(404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-status-unknown-'));
  await writeFile(
    path.join(dir, 'state.json'),
    JSON.stringify(
      stateOf({
        'parser.odd': {
          kind: 'Parser',
          id: 'p-odd',
          name: 'odd',
          version: 2,
          definition: DEF,
          descriptionsKnown: true,
        },
      }),
    ),
  );
});
afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

function status(args: string[]): ReturnType<typeof runScrapeform> {
  return runScrapeform(['status', '--state', path.join(dir, 'state.json'), ...args], {
    env: { SCRAPERAPI_API_KEY: KEY, SCRAPEFORM_PARSER_URL: url, SCRAPEFORM_PIPELINE_URL: url },
  });
}

describe('status of a listed parser whose status the service answers is unknown', () => {
  it('shows the status as answered and says its details, not the parser, could not be read', async () => {
    const run = await status([]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^parser\.odd\s+p-odd\s+2\s+UNREADABLE_SOURCE \(for how long: unreadable\)$/m);
    expect(run.stderr).toContain(
      'error: the details of parser.odd could not be read, so how long it has been generating is not shown: GET ',
    );
    expect(run.stderr).not.toContain('not listed');
    expect(run.stdout + run.stderr).not.toContain(KEY);
  });

  it('with --json, says which read failed', async () => {
    const run = await status(['--json']);
    expect(run.code).toBe(1);
    const rows = JSON.parse(run.stdout) as Record<string, unknown>[];
    expect(rows.map((r) => [r.address, r.status, r.unread])).toEqual([
      ['parser.odd', 'UNREADABLE_SOURCE (for how long: unreadable)', 'details'],
    ]);
    expect(rows[0]?.readError).toMatch(/^GET .*p-odd.*: field status: /);
  });
});
