import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { interruptWhileStateIsSilent } from '../helpers/silent-database.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { BOOK_A, BOOK_B, booksChecking, TestWorkspace } from '../helpers/workspace.js';

let h: EmulatorHarness | undefined;
afterEach(async () => {
  await h?.emulator.close();
  h = undefined;
});

describe('test interrupted while the workspace is opened', () => {
  it('Ctrl-C while the state database does not answer: exit 130 without waiting out the database timeout, every check not run, JUnit written', async () => {
    h = await startTestEmulator();
    const ws = await TestWorkspace.create(h);
    await ws.write({ 'books.yaml': booksChecking([BOOK_A, BOOK_B]) });
    const junit = path.join(ws.dir, 'junit.xml');
    const { code, stdout, stderr, exitMs } = await interruptWhileStateIsSilent(h.emulator.url, ws.dir, [
      'test',
      path.join(ws.dir, 'manifests'),
      '--junit',
      junit,
    ]);
    expect(code).toBe(130);
    // The connection never finished opening (no lock on it): closing it does not wait for the database either.
    expect(exitMs).toBeLessThan(15_000); // not the 60 s SCRAPEFORM_STATE_TIMEOUT; room for a loaded machine
    expect(stdout).toBe('No check ran: interrupted before the first parse was sent.\n');
    expect(stderr).not.toContain('error:');
    expect(stderr).toContain('Interrupted: 2 of 2 checks were not run (no parse was sent for them).');
    expect(`${stdout}${stderr}`).not.toContain(EMULATOR_KEY);
    const xml = await readFile(junit, 'utf8');
    expect(xml).toContain('tests="2" failures="0" errors="0" skipped="2"');
    expect(xml).not.toContain(EMULATOR_KEY);
    // Nothing was sent to the services: the run never got past the state.
    expect(h.emulator.requestLog.filter((r) => !r.path.startsWith('/_emulator'))).toEqual([]);
  }, 30_000);
});
