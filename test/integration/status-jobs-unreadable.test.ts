import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { stateOf } from '../helpers/state.js';

const KEY = 'status-jobs-key';

/**
 * The project service with two projects: 1's jobs read well, 2's list answers a record of an unknown shape (job
 * records are undocumented: API-NOTES).
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
    if (pathname === '/api/projects') {
      return answer(200, [
        { id: 1, name: 'alpha', schedulingEnabled: true, scrapingInterval: 'daily' },
        { id: 2, name: 'beta', schedulingEnabled: false },
      ]);
    }
    if (pathname === '/api/projects/1/jobs') {
      return answer(200, [{ id: 11, status: 'Finished', doneCount: 3, failedCount: 0 }]);
    }
    if (pathname === '/api/projects/2/jobs') return answer(200, [{ jobId: 'a1', state: 'RUNNING' }]);
    answer(404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-status-jobs-'));
  await writeFile(
    path.join(dir, 'state.json'),
    JSON.stringify(
      stateOf({
        'project.alpha': { kind: 'Project', id: 1, name: 'alpha', definition: {} },
        'project.beta': { kind: 'Project', id: 2, name: 'beta', definition: {} },
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

describe('status when one project job list cannot be read', () => {
  it('shows every other project, names the one that failed, and exits 1', async () => {
    const run = await status([]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /^project\.alpha\s+1\s+scheduled\s+daily\s+11 Finished \(3 done, 0 failed\)$/m,
    );
    expect(run.stdout).toMatch(/^project\.beta\s+2\s+scheduling off\s+off\s+unreadable$/m);
    expect(run.stderr).toContain(
      'error: the jobs of project.beta could not be listed, so its last job is not shown: GET ',
    );
    expect(run.stderr).toContain('field 0.id: Invalid input');
    expect(run.stderr).toContain(
      "hint: the status of every other object is shown above; scrapeform jobs ADDR reads one project's jobs again",
    );
    expect(run.stdout + run.stderr).not.toContain(KEY);
  });

  it('with --json, prints every row, the failed one with why instead of a last job, and exits 1', async () => {
    const run = await status(['--json']);
    expect(run.code).toBe(1);
    const rows = JSON.parse(run.stdout) as Record<string, unknown>[];
    expect(rows.map((r) => [r.address, r.lastJob])).toEqual([
      ['project.alpha', { id: 11, status: 'Finished', doneCount: 3, failedCount: 0 }],
      ['project.beta', undefined],
    ]);
    expect(rows[1]?.jobsError).toMatch(/^GET .*: field 0\.id: Invalid input$/);
    expect(run.stdout + run.stderr).not.toContain(KEY);
  });
});
