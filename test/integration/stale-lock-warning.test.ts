import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorEnv } from '../helpers/child-cli.js';
import { runScrapeform } from '../helpers/cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { heldByDeadProcess, stateOf } from '../helpers/state.js';

let h: EmulatorHarness;
beforeAll(async () => {
  h = await startTestEmulator();
});
afterAll(async () => h.emulator.close());

/**
 * README: a lock left by a command of a process that no longer runs is taken over by the next run on this machine,
 * with a warning. Every command that takes the lock says so, once, not only apply.
 */
describe('a stale lock taken over', () => {
  it.each([
    ['apply', (dir: string) => ['apply', path.join(dir, 'manifests'), '--auto-approve']],
    ['plan --lock', (dir: string) => ['plan', path.join(dir, 'manifests'), '--lock']],
    ['import', (dir: string) => ['import', '--out', path.join(dir, 'manifests')]],
    ['drift --accept', (dir: string) => ['drift', path.join(dir, 'manifests'), '--accept']],
    ['state push', (dir: string) => ['state', 'push', path.join(dir, 'pushed.json')]],
  ])('by %s is reported with a warning', async (_, args) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-stale-lock-'));
    await mkdir(path.join(dir, 'manifests'));
    await writeFile(path.join(dir, 'pushed.json'), JSON.stringify(stateOf({})));
    const file = path.join(dir, 'state.json');
    const holder = await heldByDeadProcess();
    await writeFile(`${file}.lock`, JSON.stringify(holder));
    const run = await runScrapeform([...args(dir), '--state', file], {
      env: emulatorEnv(h.emulator.url, EMULATOR_KEY),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.split('\n').filter((line) => line.includes('took over the lock'))).toEqual([
      `warning: took over the lock of ci@here (pid ${String(holder.pid)}, apply, since 2026-01-01T00:00:00.000Z): that process no longer runs`,
    ]);
  });
});
