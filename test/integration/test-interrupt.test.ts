import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUILT_CLI, emulatorEnv, runBuiltCli } from '../helpers/child-cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { BOOK_A, BOOK_B, bookParser, TestWorkspace } from '../helpers/workspace.js';

let h: EmulatorHarness | undefined;
const closers: (() => void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) close();
  await h?.emulator.close();
  h = undefined;
});

/**
 * A front of the emulator that passes every call on, except parses: each is counted and never answered (a page
 * the service takes for ever to fetch), until the test ends.
 */
async function holdingParses(target: string): Promise<{ url: string; parses: string[] }> {
  const parses: string[] = [];
  const held: ServerResponse[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if ((req.url ?? '').startsWith('/parse/')) {
      parses.push(req.url ?? '');
      held.push(res);
      return;
    }
    void fetch(`${target}${req.url ?? ''}`, { method: req.method }).then(async (answer) => {
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => {
    for (const res of held) res.destroy();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, parses };
}

describe('test stops on Ctrl-C', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s during the first parse: no other parse is sent, what ran is reported, exit 130',
    async (signal) => {
      h = await startTestEmulator();
      const ws = await TestWorkspace.create(h);
      const urls = [BOOK_A, BOOK_B, `${BOOK_A}?again`];
      await ws.write({
        'books.yaml': bookParser(
          '  title: { description: Book title, selector: h1 }\n',
          `expect:\n${urls.map((u) => `  - url: ${u}\n    result: { title: x }\n`).join('')}`,
        ),
      });
      await ws.applyChanges(await ws.plan());
      const front = await holdingParses(h.emulator.url);
      const junit = path.join(ws.dir, 'junit.xml');
      const child = spawn(
        process.execPath,
        [BUILT_CLI, 'test', path.join(ws.dir, 'manifests'), '--state', ws.backend.location, '--junit', junit],
        { cwd: ws.dir, env: emulatorEnv(front.url, EMULATOR_KEY) },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      try {
        for (let i = 0; i < 400 && front.parses.length === 0; i++)
          await new Promise((r) => setTimeout(r, 25));
        expect(front.parses).toHaveLength(1);
        child.kill(signal);
        expect(await exited).toBe(130);
        expect(front.parses).toHaveLength(1);
        expect(stderr).toContain(
          'Interrupted: no further parse is sent; the checks that ran are reported (again to exit at once).',
        );
        expect(stderr).toContain('Interrupted: 2 of 3 checks were not run (no parse was sent for them).');
        expect(stdout).toContain(`✗ parser.books ${BOOK_A}`);
        expect(stdout).toContain(
          'interrupted: the parse was sent and may have been charged; its answer was not awaited',
        );
        expect(stdout).toContain('1 of 1 checks failed');
        expect(stdout).not.toContain(BOOK_B);
        // The JUnit report holds the check that ran, as an error (it could not finish), and no other.
        const xml = await readFile(junit, 'utf8');
        expect(xml).toContain('tests="1"');
        expect(xml).toContain('errors="1"');
        expect(`${stdout}${stderr}${xml}`).not.toContain(EMULATOR_KEY);
      } finally {
        child.kill('SIGKILL');
      }
    },
    30_000,
  );

  it('a parse that never answers ends at the request timeout, is not sent again, and says it may have been charged', async () => {
    h = await startTestEmulator();
    const ws = await TestWorkspace.create(h);
    await ws.write({
      'books.yaml': bookParser(
        '  title: { description: Book title, selector: h1 }\n',
        `expect:\n  - url: ${BOOK_A}\n    result: { title: x }\n  - url: ${BOOK_B}\n    result: { title: x }\n`,
      ),
    });
    await ws.applyChanges(await ws.plan());
    const front = await holdingParses(h.emulator.url);
    // The bound is the CLI's own request timeout; exitWithinMs only kills a run that would hang (hung: true).
    const run = await runBuiltCli(
      ['test', path.join(ws.dir, 'manifests'), '--state', ws.backend.location, '--timeout', '300ms'],
      { cwd: ws.dir, env: emulatorEnv(front.url, EMULATOR_KEY), exitWithinMs: 20_000 },
    );
    expect(run.hung).toBeUndefined();
    expect(run.code).toBe(1);
    expect(front.parses).toHaveLength(2);
    expect(run.stdout).toContain(
      'timed out: no answer within the request timeout of 300 ms: a parse is charged per try and this one may have been: not sent again',
    );
    expect(run.stdout).toContain('2 of 2 checks failed');
  }, 30_000);
});
