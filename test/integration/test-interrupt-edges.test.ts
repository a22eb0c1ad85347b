import { access, readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { emulatorFront } from '../helpers/emulator-front.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { emulatorEnv, signalledBuiltCli } from '../helpers/child-cli.js';
import type { SignalledRun } from '../helpers/child-cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { appliedBooksChecking, BOOK_A, BOOK_B } from '../helpers/workspace.js';
import type { TestWorkspace } from '../helpers/workspace.js';
import { until } from '../helpers/until.js';

let h: EmulatorHarness | undefined;
const closers: (() => void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) close();
  await h?.emulator.close();
  h = undefined;
});

/**
 * A front of the emulator: `answer` may answer a request itself (true), hold it (a response kept open until the
 * test ends) or let it through (false). `seen` lists the paths of the requests it answered or held.
 */
async function front(
  target: string,
  answer: (req: IncomingMessage, res: ServerResponse, held: ServerResponse[]) => boolean,
): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  const { url, close } = await emulatorFront(target, (req, res, held) => {
    if (!answer(req, res, held)) return false;
    seen.push(`${req.method ?? ''} ${(req.url ?? '').split('?')[0] ?? ''}`);
    return true;
  });
  closers.push(close);
  return { url, seen };
}

/** Three checks of parser.books, applied. */
async function threeChecks(): Promise<TestWorkspace> {
  h = await startTestEmulator();
  return appliedBooksChecking(h, [BOOK_A, BOOK_B, `${BOOK_A}?again`]);
}

/**
 * Runs `test` against `url` with `args`, sends SIGINT once `ready()` holds, and gives what it printed and its
 * exit code.
 */
async function interrupted(
  ws: TestWorkspace,
  url: string,
  ready: () => boolean,
  args: string[],
): Promise<SignalledRun> {
  const run = await signalledBuiltCli(
    ['test', path.join(ws.dir, 'manifests'), '--state', ws.backend.location, ...args],
    { cwd: ws.dir, env: emulatorEnv(url, EMULATOR_KEY) },
    ready,
    { exitWithinMs: 20_000 },
  );
  expect(`${run.stdout}${run.stderr}`).not.toContain(EMULATOR_KEY);
  return run;
}

async function junitOf(file: string): Promise<string> {
  const xml = await readFile(file, 'utf8');
  expect(xml).not.toContain(EMULATOR_KEY);
  return xml.replace(/ time="\d+\.\d{3}"/g, ' time="T"').replace(/ timestamp="[^"]*"/g, ' timestamp="TS"');
}

function untimed(json: string): unknown {
  return JSON.parse(json, (key, value: unknown) =>
    key === 'startedAt' ? 'S' : key === 'durationMs' ? 0 : value,
  );
}

describe('test interrupted while a parse waits to be tried again', () => {
  it.each([429, 503])(
    'a parse answered %i (not done, not charged), Ctrl-C during the Retry-After wait: its error is its own, not "may have been charged"',
    async (status) => {
      const ws = await threeChecks();
      const f = await front(h?.emulator.url ?? '', (req, res) => {
        if (!(req.url ?? '').startsWith('/parse/')) return false;
        res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '20' });
        res.end(JSON.stringify({ error: 'try later' }));
        return true;
      });
      const junit = path.join(ws.dir, 'junit.xml');
      const run = await interrupted(ws, f.url, () => f.seen.length === 1, ['--json', '--junit', junit]);
      expect(run.code).toBe(130);
      expect(f.seen).toHaveLength(1);
      const report = untimed(run.stdout) as { results: { error?: string }[] };
      const error = report.results[0]?.error ?? '';
      // The try's own error, as an uninterrupted check says it (the key redacted), after "interrupted: ".
      expect(error).toMatch(
        new RegExp(
          `^interrupted: GET ${f.url}/parse/[^?]+\\?url=[^ ]+&api_key=\\*\\*\\*: ${status}: try later$`,
        ),
      );
      expect(report).toMatchObject({
        status: 'interrupted',
        passed: false,
        results: [{ address: 'parser.books', url: BOOK_A, ok: false, mismatches: [] }],
        notRun: [
          { address: 'parser.books', url: BOOK_B },
          { address: 'parser.books', url: `${BOOK_A}?again` },
        ],
      });
      expect(run.stdout).not.toContain('may have been charged');
      const xml = await junitOf(junit);
      const escaped = error.replaceAll('&', '&amp;');
      expect(xml).toContain(`<error message="${escaped}" type="scrapeform.check-error">${escaped}</error>`);
      expect(xml).toContain('tests="3" failures="0" errors="1" skipped="2"');
      expect(xml).not.toContain('may have been charged');
    },
    30_000,
  );
});

describe('test interrupted outside a parse', () => {
  it('Ctrl-C during the first list: exit 130, every check reported not run (human output and JUnit)', async () => {
    const ws = await threeChecks();
    const f = await front(h?.emulator.url ?? '', (req, res, held) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/parsers') return false;
      held.push(res);
      return true;
    });
    const junit = path.join(ws.dir, 'junit.xml');
    const run = await interrupted(ws, f.url, () => f.seen.length === 1, ['--junit', junit]);
    expect(run.code).toBe(130);
    expect(f.seen).toEqual(['GET /parsers']);
    expect(run.stdout).toBe('No check ran: interrupted before the first parse was sent.\n');
    expect(run.stderr).not.toContain('error:');
    expect(run.stderr).toContain('Interrupted: 3 of 3 checks were not run (no parse was sent for them).');
    const xml = await junitOf(junit);
    expect(xml).toContain(
      '<testsuites name="scrapeform test" tests="3" failures="0" errors="0" skipped="3" time="T" timestamp="TS">',
    );
  }, 30_000);

  it('Ctrl-C during the first list with --json: status interrupted, every check in notRun', async () => {
    const ws = await threeChecks();
    const f = await front(h?.emulator.url ?? '', (req, res, held) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/parsers') return false;
      held.push(res);
      return true;
    });
    const run = await interrupted(ws, f.url, () => f.seen.length === 1, ['--json']);
    expect(run.code).toBe(130);
    expect(untimed(run.stdout)).toEqual({
      status: 'interrupted',
      passed: false,
      results: [],
      notRun: [
        { address: 'parser.books', url: BOOK_A },
        { address: 'parser.books', url: BOOK_B },
        { address: 'parser.books', url: `${BOOK_A}?again` },
      ],
    });
  }, 30_000);

  it('a --junit file that cannot be written after Ctrl-C: the write error is said, and the exit is still 130', async () => {
    const ws = await threeChecks();
    const f = await front(h?.emulator.url ?? '', (req, res, held) => {
      if (!(req.url ?? '').startsWith('/parse/')) return false;
      held.push(res);
      return true;
    });
    const junit = path.join(ws.dir, 'missing', 'junit.xml');
    const run = await interrupted(ws, f.url, () => f.seen.length === 1, ['--junit', junit]);
    expect(run.code).toBe(130);
    expect(run.stderr).toContain(`error: cannot write the JUnit report to ${junit}: `);
    expect(run.stderr).toContain('Interrupted: 2 of 3 checks were not run (no parse was sent for them).');
    expect(run.stdout).toContain('1 of 1 checks failed');
    await expect(access(junit)).rejects.toThrow();
  }, 30_000);
});

describe('test interrupted twice', () => {
  it('the second Ctrl-C exits with 130 saying what test leaves (no report), not apply state sentence', async () => {
    const ws = await threeChecks();
    const f = await front(h?.emulator.url ?? '', (req, res, held) => {
      if (!(req.url ?? '').startsWith('/parse/')) return false;
      held.push(res);
      return true;
    });
    // In-process, so both signals land while the run is under way; exit is recorded, not done.
    const exits: (string | number | null | undefined)[] = [];
    const exit = vi.spyOn(process, 'exit').mockImplementation((code) => {
      exits.push(code);
      return undefined as never;
    });
    try {
      const running = runScrapeform(
        ['test', path.join(ws.dir, 'manifests'), '--state', ws.backend.location],
        { env: { SCRAPERAPI_API_KEY: EMULATOR_KEY, ...emulatorEnv(f.url, EMULATOR_KEY) } },
      );
      await until('the first parse reached the service', () => f.seen.length > 0, { everyMs: 25 });
      expect(f.seen).toHaveLength(1);
      process.emit('SIGINT');
      process.emit('SIGINT');
      const run = await running;
      expect(exits).toEqual([130]);
      expect(run.stderr).not.toContain('State holds');
      expect(run.stderr).toContain(
        'Interrupted again: exiting now; the checks that ran are not reported (a parse under way may have been charged).',
      );
    } finally {
      exit.mockRestore();
    }
  }, 30_000);
});
