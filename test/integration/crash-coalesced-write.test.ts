import { spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/server.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { BUILT_CLI, emulatorEnv, runBuiltCli } from '../helpers/child-cli.js';
import { until } from '../helpers/until.js';

const KEY = 'coalesced-write-key';
const PROJECTS = 6;
const PARSERS = 2;

let emulator: RunningEmulator;
let dir: string;

/** A window far longer than the run: whatever apply commits stays in memory until the SIGKILL. */
function env(window = '60s'): NodeJS.ProcessEnv {
  return { ...emulatorEnv(emulator.url, KEY), SCRAPEFORM_STATE_WRITE_WINDOW: window };
}

async function writeManifests(interval: string, parsers = PARSERS): Promise<void> {
  for (let i = 0; i < PROJECTS; i++) {
    await writeFile(
      path.join(dir, `j${i}.yaml`),
      `kind: Project\nname: j${i}\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/catalogue/page-1.html] }\nscrapingInterval: ${interval}\nscheduledAt: "2099-01-01T00:00:00Z"\n`,
    );
  }
  for (let i = 0; i < parsers; i++) {
    await writeFile(
      path.join(dir, `p${i}.yaml`),
      `kind: Parser\nname: p${i}\nurls: [https://books.example/catalogue/page-1.html]\nfields:\n  heading: { description: Page heading, selector: h1 }\n`,
    );
  }
}

/**
 * Once `landed` holds, true at the first look at a generation after it: a list of parsers, or the details of the
 * parser when only one generates (apply reads no list then). Apply polls generations only after it has taken in
 * the answers that came before (the first poll is 250 ms after a create), so by then every answer is committed in
 * memory, and with a window of a minute none of them is written.
 */
function answersTakenIn(landed: () => boolean): () => boolean {
  let mark: number | undefined;
  return () => {
    if (mark === undefined) {
      if (landed()) mark = emulator.requestLog.length;
      return false;
    }
    return emulator.requestLog.slice(mark).some((e) => e.method === 'GET' && /^\/parsers[?/]/.test(e.path));
  };
}

/** Starts apply and kills it with SIGKILL once `when` holds: commits made since the last write are lost. */
async function killWhen(args: string[], what: string, when: () => boolean): Promise<void> {
  const child = spawn(process.execPath, [BUILT_CLI, ...args], { cwd: dir, env: env(), stdio: 'ignore' });
  const exited = new Promise((resolve) => child.on('close', resolve));
  try {
    await until(what, when, { everyMs: 5 });
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
}

async function stateText(): Promise<string> {
  return readFile(path.join(dir, '.scrapeform/state.json'), 'utf8').catch(() => '');
}

/** The next apply (normal writes) converges: exit 0, an empty plan after it, one object per name. */
async function expectConverged(parsers = PARSERS): Promise<void> {
  const applied = await runBuiltCli(['apply', '--auto-approve'], { cwd: dir, env: env('50ms') });
  expect(applied.code, applied.stderr).toBe(0);
  const plan = await runBuiltCli(['plan', '--detailed-exitcode'], { cwd: dir, env: env('50ms') });
  expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  const projectNames = [...emulator.projects.projects.values()].map((p) => p.name).sort();
  expect(projectNames).toEqual(Array.from({ length: PROJECTS }, (_, i) => `j${i}`));
  const parserNames = [...emulator.parsers.parsers.values()].map((p) => p.name).sort();
  expect(parserNames).toEqual(Array.from({ length: parsers }, (_, i) => `p${i}`).sort());
}

beforeAll(async () => {
  emulator = await startEmulator({ apiKeys: [KEY], generationDelayMs: 30 });
});
afterAll(async () => emulator.close());
beforeEach(async () => {
  emulator.reset();
  dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-coalesced-'));
});

describe('a run killed inside a coalesced-write window is recovered by the next apply, with no duplicates', () => {
  it('creates landed, none of them written yet', async () => {
    await writeManifests('daily');
    // Generations that never end on their own keep apply running after every answer came in.
    emulator.setFaults({ generationDelayMs: 600_000 });
    await killWhen(
      ['apply', '--auto-approve', '--concurrency', String(PROJECTS + PARSERS)],
      'apply took in the answers to every create',
      answersTakenIn(
        () => emulator.projects.projects.size === PROJECTS && emulator.parsers.parsers.size === PARSERS,
      ),
    );
    // The kill came inside the window: the state on disk records none of what was created, only the intents,
    // written before the first POST.
    const onDisk = JSON.parse(await stateText()) as { resources: Record<string, unknown>; intents?: object };
    expect(Object.keys(onDisk.resources)).toEqual([]);
    expect(Object.keys(onDisk.intents ?? {})).toHaveLength(PROJECTS + PARSERS);
    emulator.setFaults({ generationDelayMs: null });
    emulator.clock.advance(600_000);
    await emulator.idle();
    await expectConverged();
  });

  it('updates landed, none of them written yet', async () => {
    await writeManifests('daily');
    expect((await runBuiltCli(['apply', '--auto-approve'], { cwd: dir, env: env('50ms') })).code).toBe(0);
    const before = JSON.parse(await stateText()) as { resources: object };
    // One more parser, whose generation never ends on its own, keeps apply running after the updates' answers.
    await writeManifests('hourly', PARSERS + 1);
    emulator.setFaults({ generationDelayMs: 600_000 });
    await killWhen(
      ['apply', '--auto-approve', '--concurrency', String(PROJECTS + 1)],
      'apply took in the answers to every update',
      answersTakenIn(
        () =>
          [...emulator.projects.projects.values()].every((p) => p.scrapingInterval === 'hourly') &&
          emulator.parsers.parsers.size === PARSERS + 1,
      ),
    );
    // Only the writes before the first call happened (the projects seen since their create lose `unseenSince`; the
    // new parser's intent): no update is recorded.
    const onDisk = JSON.parse(await stateText()) as { resources: object; intents?: object };
    const seen = JSON.parse(JSON.stringify(before.resources), (key, value: unknown) =>
      key === 'unseenSince' ? undefined : value,
    ) as object;
    expect(onDisk.resources).toEqual(seen);
    expect(Object.keys(onDisk.intents ?? {})).toEqual([`parser.p${PARSERS}`]);
    emulator.setFaults({ generationDelayMs: null });
    emulator.clock.advance(600_000);
    await emulator.idle();
    await expectConverged(PARSERS + 1);
    expect([...emulator.projects.projects.values()].every((p) => p.scrapingInterval === 'hourly')).toBe(true);
  });
});
