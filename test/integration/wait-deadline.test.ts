import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/server.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { emulatorEnv, runBuiltCli } from '../helpers/child-cli.js';
import type { ChildRun } from '../helpers/child-cli.js';
import { bookParser } from '../helpers/workspace.js';

// A service that stops answering while apply waits: the built CLI, against the emulator behind a loopback
// server that passes everything on except the details of a parser version (GET /parsers/{id}/{version}), which
// it never answers. --wait-timeout and --timeout are 1 s each: the wait ends at the cut, not after the
// transport's four tries, and the process exits (a timer or socket left behind would keep it alive).

const KEY = 'sk_SENTINEL_wait_4d1c9a';

let emulator: RunningEmulator;
let silent: Server;
let silentUrl = '';
let dir = '';
const held: ServerResponse[] = [];
const detailsAsked: string[] = [];
const outputs: string[] = [];

/** Passes a request on to the emulator, as it came. */
function forward(req: IncomingMessage, res: ServerResponse): void {
  const target = new URL(emulator.url);
  const onward = request(
    { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  onward.on('error', () => res.destroy());
  req.pipe(onward);
}

beforeAll(async () => {
  // Generations that outlast the test: the version stays GENERATING, as a slow real one would.
  emulator = await startEmulator({ apiKeys: [KEY], generationDelayMs: 600_000 });
  silent = createServer((req, res) => {
    if (req.method === 'GET' && /^\/parsers\/[^/?]+\/\d+(\?|$)/.test(req.url ?? '')) {
      detailsAsked.push(req.url?.split('?')[0] ?? '');
      held.push(res);
      return;
    }
    forward(req, res);
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-wait-'));
  await mkdir(path.join(dir, 'manifests'));
  await writeFile(
    path.join(dir, 'manifests', 'books.yaml'),
    bookParser('  title: { description: Book title, selector: h1 }\n'),
  );
});

afterAll(async () => {
  for (const res of held) res.destroy();
  silent.closeAllConnections();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
  expect(outputs.join('\n')).not.toContain(KEY);
});

async function scrapeform(args: string[], url: string): Promise<ChildRun> {
  // A guard against a wait that never ends, far above the few seconds this takes.
  const run = await runBuiltCli([...args, '--state', 'state.json'], {
    cwd: dir,
    env: emulatorEnv(url, KEY),
    exitWithinMs: 90_000,
  });
  outputs.push(run.stdout, run.stderr);
  return run;
}

describe('apply --wait-timeout against a service that stops answering the wait', () => {
  it('ends with apply.wait-timeout one request timeout past the deadline; the next plan creates nothing', async () => {
    const applied = await scrapeform(
      ['apply', 'manifests', '--auto-approve', '--json', '--wait-timeout', '1s', '--timeout', '1s'],
      silentUrl,
    );
    expect(applied.hung).toBeUndefined();
    expect(applied.code).toBe(1);
    const output = JSON.parse(applied.stdout) as {
      results: {
        address: string;
        id: string;
        calls: { method: string }[];
        error?: { code: string; message: string; hint?: string };
      }[];
    };
    const [books] = output.results;
    expect(books?.calls.map((c) => c.method)).toEqual(['POST']);
    // Before, the details read was tried four times (--timeout each, with backoff between) and the change ended
    // with api.timeout, minutes past the deadline with the default --timeout.
    expect(books?.error?.code).toBe('apply.wait-timeout');
    expect(books?.error?.message).toMatch(
      new RegExp(
        `^parser\\.books: version 0 of ${books?.id ?? '-'} was made, and no look at it was answered: the service did not answer the last look in time \\(it had 1 s, one request timeout, past --wait-timeout; given up after \\d+s\\)$`,
      ),
    );
    expect(books?.error?.hint).toBe(
      'the calls were made and recorded; run plan later to see it finish, or raise --wait-timeout',
    );
    expect(detailsAsked.length).toBeGreaterThan(0);
    expect(new Set(detailsAsked)).toEqual(new Set([`/parsers/${books?.id ?? '-'}/0`]));
    // State keeps the parser and its version pending.
    const state = JSON.parse(await readFile(path.join(dir, 'state.json'), 'utf8')) as {
      resources: Record<string, { id: string; pending?: { version: number } }>;
    };
    expect(state.resources['parser.books']).toMatchObject({ id: books?.id, pending: { version: 0 } });

    // The next plan, against the service answering again: the parser is waited for, not created again.
    const plan = await scrapeform(['plan', 'manifests', '--json'], emulator.url);
    expect(plan.code).toBe(0);
    const planned = JSON.parse(plan.stdout) as { resource_changes: { address: string; action: string }[] };
    expect(planned.resource_changes.filter((c) => c.action === 'create')).toEqual([]);
    expect(emulator.requestLog.filter((e) => e.method === 'POST')).toHaveLength(1);
  });
});
