import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { holdingParses as holdParses } from '../helpers/emulator-front.js';
import { afterEach, describe, expect, it } from 'vitest';
import { emulatorEnv, runBuiltCli, signalledBuiltCli } from '../helpers/child-cli.js';
import type { SignalledRun } from '../helpers/child-cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { appliedBooksChecking, BOOK_A, BOOK_B, bookParser, TestWorkspace } from '../helpers/workspace.js';

let h: EmulatorHarness | undefined;
const closers: (() => void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) close();
  await h?.emulator.close();
  h = undefined;
});

/** The front of holdingParses, closed when the test ends. */
async function holdingParses(target: string): Promise<{ url: string; parses: string[] }> {
  const front = await holdParses(target);
  closers.push(front.close);
  return front;
}

/**
 * Runs `test ARGS` against `url`, sends `signal` once `ready()` holds, and gives what it printed, its exit code and
 * the JUnit file (times and timestamps written as T and TS: they vary).
 */
async function interruptedTest(
  ws: TestWorkspace,
  url: string,
  ready: () => boolean,
  args: string[] = [],
  signal: NodeJS.Signals = 'SIGINT',
): Promise<SignalledRun & { xml: string }> {
  const junit = path.join(ws.dir, 'junit.xml');
  const run = await signalledBuiltCli(
    ['test', path.join(ws.dir, 'manifests'), '--state', ws.backend.location, '--junit', junit, ...args],
    { cwd: ws.dir, env: emulatorEnv(url, EMULATOR_KEY) },
    ready,
    { signal, exitWithinMs: 20_000 },
  );
  const xml = (await readFile(junit, 'utf8'))
    .replace(/ time="\d+\.\d{3}"/g, ' time="T"')
    .replace(/ timestamp="[^"]*"/g, ' timestamp="TS"');
  expect(`${run.stdout}${run.stderr}${xml}`).not.toContain(EMULATOR_KEY);
  return { ...run, xml };
}

/** A check's timing fields, which vary, as fixed values. */
function untimed(json: string): unknown {
  return JSON.parse(json, (key, value: unknown) =>
    key === 'startedAt' ? 'S' : key === 'durationMs' ? 0 : value,
  );
}

describe('test stops on Ctrl-C', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s during the first parse: no other parse is sent, what ran is reported, exit 130',
    async (signal) => {
      h = await startTestEmulator();
      const ws = await appliedBooksChecking(h, [BOOK_A, BOOK_B, `${BOOK_A}?again`]);
      const front = await holdingParses(h.emulator.url);
      const { code, stdout, stderr, xml } = await interruptedTest(
        ws,
        front.url,
        () => front.parses.length > 0,
        [],
        signal,
      );
      expect(code).toBe(130);
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
      // The JUnit report holds the check that ran, as an error (it could not finish), and the two not run as skipped.
      expect(xml).toContain('tests="3" failures="0" errors="1" skipped="2"');
    },
    30_000,
  );

  it('--json and --junit say the run was interrupted and name the checks not run (skipped in JUnit)', async () => {
    h = await startTestEmulator();
    const ws = await appliedBooksChecking(h, [BOOK_A, BOOK_B, `${BOOK_A}?again`]);
    const front = await holdingParses(h.emulator.url);
    const run = await interruptedTest(ws, front.url, () => front.parses.length === 1, ['--json']);
    expect(run.code).toBe(130);
    expect(front.parses).toHaveLength(1);
    expect(untimed(run.stdout)).toEqual({
      status: 'interrupted',
      passed: false,
      results: [
        {
          address: 'parser.books',
          url: BOOK_A,
          ok: false,
          mismatches: [],
          error: 'interrupted: the parse was sent and may have been charged; its answer was not awaited',
          startedAt: 'S',
          durationMs: 0,
        },
      ],
      notRun: [
        { address: 'parser.books', url: BOOK_B },
        { address: 'parser.books', url: `${BOOK_A}?again` },
      ],
    });
    expect(run.xml).toBe(
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<testsuites name="scrapeform test" tests="3" failures="0" errors="1" skipped="2" time="T" timestamp="TS">',
        '  <testsuite name="parser.books" tests="3" failures="0" errors="1" skipped="2" time="T" timestamp="TS">',
        `    <testcase classname="parser.books" name="${BOOK_A}" time="T">`,
        '      <error message="interrupted: the parse was sent and may have been charged; its answer was not awaited" type="scrapeform.check-error">interrupted: the parse was sent and may have been charged; its answer was not awaited</error>',
        '    </testcase>',
        `    <testcase classname="parser.books" name="${BOOK_B}" time="T">`,
        '      <skipped message="not run: interrupted before its parse was sent" type="scrapeform.not-run"/>',
        '    </testcase>',
        `    <testcase classname="parser.books" name="${BOOK_A}?again" time="T">`,
        '      <skipped message="not run: interrupted before its parse was sent" type="scrapeform.not-run"/>',
        '    </testcase>',
        '  </testsuite>',
        '</testsuites>',
        '',
      ].join('\n'),
    );
  }, 30_000);

  it('interrupted between checks, when every check that ran passed: not passed, and no suite is all green', async () => {
    h = await startTestEmulator();
    const ws = await TestWorkspace.create(h);
    await ws.write({
      'a-books.yaml': bookParser(
        '  title: { description: Book title, selector: h1 }\n',
        `expect:\n  - url: ${BOOK_A}\n    result: { title: "~." }\n`,
      ),
      'b-more.yaml': bookParser(
        '  title: { description: Book title, selector: h1 }\n',
        `expect:\n  - url: ${BOOK_B}\n    result: { title: x }\n`,
      ).replace('name: books', 'name: more'),
    });
    await ws.applyChanges(await ws.plan());
    // The list does not show parser.more, so test reads it by id (a free call), which is held: Ctrl-C lands
    // after parser.books' check passed and before parser.more's parse is sent.
    let moreId: string | undefined;
    let heldRead = false;
    const held: ServerResponse[] = [];
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const route = (req.url ?? '').split('?')[0] ?? '';
      if (moreId !== undefined && route === `/parsers/${moreId}`) {
        heldRead = true;
        held.push(res);
        return;
      }
      void fetch(`${h?.emulator.url ?? ''}${req.url ?? ''}`, { method: req.method }).then(async (answer) => {
        let body = Buffer.from(await answer.arrayBuffer());
        if (route === '/parsers' && req.method === 'GET') {
          const list = JSON.parse(body.toString()) as { id: string; name: string }[];
          moreId = list.find((p) => p.name === 'more')?.id;
          body = Buffer.from(JSON.stringify(list.filter((p) => p.id !== moreId)));
        }
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
        res.end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => {
      for (const res of held) res.destroy();
      server.close();
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const run = await interruptedTest(ws, url, () => heldRead, ['--json']);
    expect(run.code).toBe(130);
    expect(run.stderr).toContain('Interrupted: 1 of 2 checks were not run (no parse was sent for it).');
    expect(untimed(run.stdout)).toMatchObject({
      status: 'interrupted',
      passed: false,
      results: [{ address: 'parser.books', url: BOOK_A, ok: true }],
      notRun: [{ address: 'parser.more', url: BOOK_B }],
    });
    expect(run.xml).toContain(
      '<testsuites name="scrapeform test" tests="2" failures="0" errors="0" skipped="1" time="T" timestamp="TS">',
    );
    expect(run.xml).toContain(
      [
        '  <testsuite name="parser.more" tests="1" failures="0" errors="0" skipped="1" time="T" timestamp="TS">',
        `    <testcase classname="parser.more" name="${BOOK_B}" time="T">`,
        '      <skipped message="not run: interrupted before its parse was sent" type="scrapeform.not-run"/>',
        '    </testcase>',
      ].join('\n'),
    );
  }, 30_000);

  it('a parse that never answers ends at the request timeout, is not sent again, and says it may have been charged', async () => {
    h = await startTestEmulator();
    const ws = await appliedBooksChecking(h, [BOOK_A, BOOK_B]);
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
