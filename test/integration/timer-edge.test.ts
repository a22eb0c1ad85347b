import { cp, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TIMER_MS } from '../../src/duration.js';
import { startEmulator } from '../../src/emulator/server.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { emulatorEnv, runBuiltCli } from '../helpers/child-cli.js';

/*
 * Review: a timer Node is asked to wait past MAX_TIMER_MS (2^31 - 1 ms) fires after 1 ms with a
 * TimeoutOverflowWarning. Every duration a user gives is accepted up to that (README), so a timer built from one
 * with a margin or a multiple (SCRAPEFORM_STATE_TIMEOUT plus the client's margin did; PostgreSQL's is tested in
 * postgres-state.test.ts) must stay within it. The built CLI, as users run it, with each duration at the largest
 * value it accepts: no warning, the command does its work, and it exits (a timer of 24 days left armed would keep
 * it alive).
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const KEY = 'sk_SENTINEL_timer_edge_7a2c';
const MAX = String(MAX_TIMER_MS);
let emulator: RunningEmulator;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ apiKeys: [KEY], generationDelayMs: 30 });
  dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-timer-edge-'));
  await cp(path.join(ROOT, 'examples/quickstart'), path.join(dir, 'manifests'), { recursive: true });
});

afterAll(async () => {
  await emulator.close();
});

describe('durations at the longest a timer waits', () => {
  it('apply, run --wait, plan --lock and drift --accept take them, and no timer overflows', async () => {
    const env = emulatorEnv(emulator.url, KEY, {
      SCRAPEFORM_STATE: path.join(dir, 'state.json'),
      SCRAPEFORM_STATE_WRITE_WINDOW: MAX,
      SCRAPEFORM_STATE_TIMEOUT: MAX,
      SCRAPEFORM_TIMEOUT: '24d',
    });
    for (const { args, out } of [
      {
        args: ['apply', 'manifests', '--auto-approve', '--wait-timeout', MAX, '--lock-timeout', MAX],
        out: '1 check passed',
      },
      { args: ['run', 'project.nightly-book-pages', '--wait', '--wait-timeout', MAX], out: '' },
      {
        args: ['plan', 'manifests', '--lock', '--lock-timeout', MAX, '--timeout', MAX, '--detailed-exitcode'],
        out: 'No changes',
      },
      { args: ['drift', 'manifests', '--accept', '--lock-timeout', MAX], out: 'No drift' },
    ]) {
      const run = await runBuiltCli(args, { cwd: dir, env, exitWithinMs: 60_000 });
      const what = `scrapeform ${args.join(' ')}`;
      expect(run.hung, `${what} did not exit`).toBeUndefined();
      expect(run.stderr, what).not.toContain('TimeoutOverflowWarning');
      expect(run.code, `${what}: ${run.stderr}`).toBe(0);
      expect(`${run.stdout}${run.stderr}`, what).toContain(out);
    }
  }, 120_000);
});
