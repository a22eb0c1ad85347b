import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const LIBRARY = pathToFileURL(path.resolve(import.meta.dirname, '../../dist/index.js')).href;

/**
 * A program using the library's emulator (a user's own CI tests): `before` leaves something under way, then the
 * program closes the emulator; nothing else is left. Gives its exit code and what it printed, or 'still running'
 * when it had not exited 15 s after the close (killed then).
 */
async function closeWhile(before: string): Promise<{ code: number | string; out: string }> {
  const script = `
    import http from 'node:http';
    import net from 'node:net';
    import { startEmulator } from ${JSON.stringify(LIBRARY)};
    const emulator = await startEmulator({ port: 0 });
    ${before}
    await emulator.close();
    console.log('closed');
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  let closedAt: number | undefined;
  child.stdout.on('data', () => (closedAt ??= out.includes('closed') ? Date.now() : undefined));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const guard = new Promise<'still running'>((resolve) => {
    const timer = setInterval(() => {
      if (closedAt !== undefined && Date.now() - closedAt > 15_000) {
        clearInterval(timer);
        resolve('still running');
      }
    }, 100);
    void exited.then(() => clearInterval(timer));
  });
  try {
    const code = await Promise.race([exited, guard]);
    return { code: code ?? 'killed', out };
  } finally {
    child.kill('SIGKILL');
  }
}

describe('startEmulator: close() with an answer still held', () => {
  it.each([
    ['latencyMs', { latencyMs: 600_000 }],
    ['responseDelayMs', { responseDelayMs: 600_000 }],
  ])(
    'by %s: the program exits once it closed the emulator, not when the delay ends',
    async (_, faults) => {
      const run = await closeWhile(`
        emulator.setFaults(${JSON.stringify(faults)});
        const request = http.get(emulator.url + '/parsers?api_key=emulator-key');
        request.on('error', () => console.log('request ended by the close'));
        // Connected, and a moment for the emulator to read the request and start holding it.
        await new Promise((r) => request.on('socket', (s) => s.on('connect', r)));
        await new Promise((r) => setTimeout(r, 300));
      `);
      expect(run.code).toBe(0);
      expect(run.out.split('\n').sort()).toEqual(['', 'closed', 'request ended by the close']);
    },
    30_000,
  );
});

it('startEmulator: close() while a job fetches pages that never come ends the job, not after every try of each', async () => {
  // A site that takes every connection and never answers; three inputs, each tried 3 times for 15 s by the job.
  const run = await closeWhile(`
    const site = net.createServer(() => undefined);
    await new Promise((r) => site.listen(0, '127.0.0.1', r));
    site.unref();
    const list = [1, 2, 3].map((n) => 'http://127.0.0.1:' + site.address().port + '/page-' + n);
    const created = await fetch(emulator.url + '/api/projects?api_key=emulator-key', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'slow-site', projectInput: { type: 'list', list } }),
    });
    console.log('created ' + created.status);
    // The job has started on its first page.
    while ((await new Promise((r) => site.getConnections((_, n) => r(n)))) === 0)
      await new Promise((r) => setTimeout(r, 20));
  `);
  expect(run).toEqual({ code: 0, out: 'created 201\nclosed\n' });
}, 30_000);
