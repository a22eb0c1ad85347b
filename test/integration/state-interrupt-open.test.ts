import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUILT_CLI, emulatorEnv } from '../helpers/child-cli.js';
import { silentDatabase as silentDatabaseOn127 } from '../helpers/silent-database.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { bookParser, TestWorkspace } from '../helpers/workspace.js';

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

/**
 * Runs `args` (a command and its flags; the manifests and --state are added) against a silent state database,
 * sends Ctrl-C once the database has the connection, and gives what the run ended with and how long after the
 * Ctrl-C it exited.
 */
async function interruptWhileStateIsSilent(args: string[]): Promise<{
  code: number | string | null;
  stdout: string;
  stderr: string;
  sent: unknown[];
  exitMs: number;
}> {
  h = await startTestEmulator();
  const ws = await TestWorkspace.create(h);
  await ws.write({ 'books.yaml': bookParser('  title: { description: Book title, selector: h1 }\n') });
  const db = await silentDatabase();
  const [command = '', ...flags] = args;
  const child = spawn(
    process.execPath,
    [BUILT_CLI, command, path.join(ws.dir, 'manifests'), '--state', db.url, ...flags],
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
    const exitMs = Date.now() - interrupted;
    const sent = h.emulator.requestLog.filter((r) => !r.path.startsWith('/_emulator'));
    return { code, stdout, stderr, sent, exitMs };
  } finally {
    child.kill('SIGKILL');
  }
}

describe('Ctrl-C while the state database does not answer', () => {
  it('apply: exit 130 without waiting out the database timeout, nothing sent', async () => {
    const run = await interruptWhileStateIsSilent(['apply', '--auto-approve']);
    expect(run.code).toBe(130);
    // The connection never finished opening (no lock on it): closing it does not wait for the database either.
    expect(run.exitMs).toBeLessThan(3000);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('error: interrupted while waiting for the state lock: nothing was done\n');
    expect(`${run.stdout}${run.stderr}`).not.toContain(EMULATOR_KEY);
    expect(run.sent).toEqual([]);
  }, 30_000);

  it('watch: stops (exit 0, as on any signal) without waiting out the database timeout, nothing sent', async () => {
    const run = await interruptWhileStateIsSilent(['watch', '--listen', '127.0.0.1:0']);
    expect(run.code).toBe(0);
    expect(run.exitMs).toBeLessThan(3000);
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
    expect(run.exitMs).toBeLessThan(3000);
    expect(run.sent).toEqual([]);
  }, 30_000);
});
