import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { stateOf } from '../helpers/state.js';

const KEY = 'status-parser-key';
const DEF = {
  urls: ['https://books.example/1'],
  scraperParams: {},
  fields: [{ name: 'title', description: 'Title' }],
};

/**
 * The parser service with three recorded parsers: `done` is listed FINISHED; `busy` is listed GENERATING, and the
 * details status reads for how long answer a record of an unknown shape; `gone` is not listed, and reading it by id
 * does not answer a readable parser either (neither a parser nor a 404). The project service reads well.
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
      return answer(200, [
        { id: 'p-done', name: 'done', status: 'FINISHED', version: 0 },
        { id: 'p-busy', name: 'busy', status: 'GENERATING', version: 1 },
      ]);
    }
    if (pathname === '/parsers/p-busy' || pathname === '/parsers/p-busy/1') return answer(200, { status: 7 });
    if (pathname === '/parsers/p-gone') return answer(200, { id: 'p-gone', status: ['FINISHED'] });
    if (pathname === '/api/projects') {
      return answer(200, [{ id: 1, name: 'alpha', schedulingEnabled: true, scrapingInterval: 'daily' }]);
    }
    if (pathname === '/api/projects/1/jobs') {
      return answer(200, [{ id: 11, status: 'Finished', doneCount: 3, failedCount: 0 }]);
    }
    answer(404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-status-parser-'));
  await writeFile(
    path.join(dir, 'state.json'),
    JSON.stringify(
      stateOf({
        'parser.busy': {
          kind: 'Parser',
          id: 'p-busy',
          name: 'busy',
          version: 1,
          definition: DEF,
          descriptionsKnown: true,
        },
        'parser.done': {
          kind: 'Parser',
          id: 'p-done',
          name: 'done',
          version: 0,
          definition: DEF,
          descriptionsKnown: true,
        },
        'parser.gone': {
          kind: 'Parser',
          id: 'p-gone',
          name: 'gone',
          version: 0,
          definition: DEF,
          descriptionsKnown: true,
        },
        'project.alpha': { kind: 'Project', id: 1, name: 'alpha', definition: {} },
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

describe('status when one parser cannot be read', () => {
  it('shows every other object, names each parser that could not be read with why, and exits 1', async () => {
    const run = await status([]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^parser\.busy\s+p-busy\s+1\s+GENERATING \(for how long: unreadable\)$/m);
    expect(run.stdout).toMatch(/^parser\.done\s+p-done\s+0\s+FINISHED$/m);
    expect(run.stdout).toMatch(
      /^parser\.gone\s+p-gone\s+0\s+UNREADABLE \(not listed, and not read by id\)$/m,
    );
    expect(run.stdout).toMatch(
      /^project\.alpha\s+1\s+scheduled\s+daily\s+11 Finished \(3 done, 0 failed\)$/m,
    );
    expect(run.stderr).toContain('error: 2 objects could not be read whole: parser.busy: GET ');
    expect(run.stderr).toContain('; parser.gone: GET ');
    expect(run.stderr).toContain(
      'hint: the status of every other object is shown above; scrapeform status reads them again\n',
    );
    expect(run.stdout + run.stderr).not.toContain(KEY);
  });

  it('with --json, prints every row, those not read with why, and exits 1', async () => {
    const run = await status(['--json']);
    expect(run.code).toBe(1);
    const rows = JSON.parse(run.stdout) as Record<string, unknown>[];
    expect(rows.map((r) => [r.address, r.status, r.readError === undefined, r.unread])).toEqual([
      ['parser.busy', 'GENERATING (for how long: unreadable)', false, 'details'],
      ['parser.done', 'FINISHED', true, undefined],
      ['parser.gone', 'UNREADABLE (not listed, and not read by id)', false, 'by-id'],
      ['project.alpha', 'scheduled', true, undefined],
    ]);
    expect(rows[0]?.readError).toMatch(/^GET .*p-busy.*: field status: /);
    expect(rows[2]?.readError).toMatch(/^GET .*p-gone.*: field status: /);
    expect(run.stdout + run.stderr).not.toContain(KEY);
  });
});
