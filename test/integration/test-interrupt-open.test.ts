import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUILT_CLI, emulatorEnv } from '../helpers/child-cli.js';
import { silentDatabase as silentDatabaseOn127 } from '../helpers/silent-database.js';
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

/** A silent state database, closed after the test. */
async function silentDatabase(): Promise<{ url: string; sockets: Socket[] }> {
  const db = await silentDatabaseOn127();
  closers.push(db.close);
  return db;
}

describe('test interrupted while the workspace is opened', () => {
  it('Ctrl-C while the state database does not answer: exit 130 without waiting out the database timeout, every check not run, JUnit written', async () => {
    h = await startTestEmulator();
    const ws = await TestWorkspace.create(h);
    await ws.write({
      'books.yaml': bookParser(
        '  title: { description: Book title, selector: h1 }\n',
        `expect:\n  - url: ${BOOK_A}\n    result: { title: x }\n  - url: ${BOOK_B}\n    result: { title: x }\n`,
      ),
    });
    const db = await silentDatabase();
    const junit = path.join(ws.dir, 'junit.xml');
    const child = spawn(
      process.execPath,
      [BUILT_CLI, 'test', path.join(ws.dir, 'manifests'), '--state', db.url, '--junit', junit],
      // Far longer than the test waits: the run must not end by the database's timeout.
      { cwd: ws.dir, env: { ...emulatorEnv(h.emulator.url, EMULATOR_KEY), SCRAPEFORM_STATE_TIMEOUT: '60s' } },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      for (let i = 0; i < 400 && db.sockets.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
      expect(db.sockets).toHaveLength(1);
      child.kill('SIGINT');
      const interrupted = Date.now();
      const code = await Promise.race([
        exited,
        new Promise<string>((r) => setTimeout(r, 10_000, 'still running')),
      ]);
      expect(code).toBe(130);
      // The connection never finished opening (no lock on it): closing it does not wait for the database either.
      expect(Date.now() - interrupted).toBeLessThan(3000);
      expect(stdout).toBe('No check ran: interrupted before the first parse was sent.\n');
      expect(stderr).not.toContain('error:');
      expect(stderr).toContain('Interrupted: 2 of 2 checks were not run (no parse was sent for them).');
      expect(`${stdout}${stderr}`).not.toContain(EMULATOR_KEY);
      const xml = await readFile(junit, 'utf8');
      expect(xml).toContain('tests="2" failures="0" errors="0" skipped="2"');
      expect(xml).not.toContain(EMULATOR_KEY);
      // Nothing was sent to the services: the run never got past the state.
      expect(h.emulator.requestLog.filter((r) => !r.path.startsWith('/_emulator'))).toEqual([]);
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);
});
