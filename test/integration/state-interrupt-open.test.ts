import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { interruptWhileStateIsSilent as interruptOnSilentState } from '../helpers/silent-database.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { bookParser, TestWorkspace } from '../helpers/workspace.js';

let h: EmulatorHarness | undefined;
afterEach(async () => {
  await h?.emulator.close();
  h = undefined;
});

/** `args` (a command and its flags; the manifests are added) interrupted while the state database is silent. */
async function interruptWhileStateIsSilent(
  args: string[],
): Promise<Awaited<ReturnType<typeof interruptOnSilentState>> & { sent: unknown[] }> {
  h = await startTestEmulator();
  const ws = await TestWorkspace.create(h);
  await ws.write({ 'books.yaml': bookParser('  title: { description: Book title, selector: h1 }\n') });
  const [command = '', ...flags] = args;
  const run = await interruptOnSilentState(h.emulator.url, ws.dir, [
    command,
    path.join(ws.dir, 'manifests'),
    ...flags,
  ]);
  return { ...run, sent: h.emulator.requestLog.filter((r) => !r.path.startsWith('/_emulator')) };
}

describe('Ctrl-C while the state database does not answer', () => {
  it('apply: exit 130 without waiting out the database timeout, nothing sent', async () => {
    const run = await interruptWhileStateIsSilent(['apply', '--auto-approve']);
    expect(run.code).toBe(130);
    // The connection never finished opening (no lock on it): closing it does not wait for the database either.
    expect(run.exitMs).toBeLessThan(15_000); // not the 60 s SCRAPEFORM_STATE_TIMEOUT; room for a loaded machine
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('error: interrupted while waiting for the state lock: nothing was done\n');
    expect(`${run.stdout}${run.stderr}`).not.toContain(EMULATOR_KEY);
    expect(run.sent).toEqual([]);
  }, 30_000);

  it('watch: stops (exit 0, as on any signal) without waiting out the database timeout, nothing sent', async () => {
    const run = await interruptWhileStateIsSilent(['watch', '--listen', '127.0.0.1:0']);
    expect(run.code).toBe(0);
    expect(run.exitMs).toBeLessThan(15_000); // not the 60 s SCRAPEFORM_STATE_TIMEOUT; room for a loaded machine
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('watch: stopping; a call in flight finishes and state is saved first');
    expect(run.stderr).not.toContain('error');
    expect(run.stderr).not.toContain('failed');
    expect(`${run.stdout}${run.stderr}`).not.toContain(EMULATOR_KEY);
    expect(run.sent).toEqual([]);
  }, 30_000);

  it('plan --lock (no graceful stop): Ctrl-C ends it at once with 130, nothing sent', async () => {
    const run = await interruptWhileStateIsSilent(['plan', '--lock']);
    expect(run.code).toBe(130);
    expect(run.exitMs).toBeLessThan(15_000); // not the 60 s SCRAPEFORM_STATE_TIMEOUT; room for a loaded machine
    expect(run.sent).toEqual([]);
  }, 30_000);
});
