import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUILT_CLI, emulatorEnv } from '../helpers/child-cli.js';
import { convergedBooks } from '../helpers/converged-books.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { startForwardProxy } from '../helpers/forward-proxy.js';

let h: EmulatorHarness;
beforeAll(async () => {
  h = await startTestEmulator({ generationDelayMs: 5 });
});
afterAll(async () => h.emulator.close());

/** Resolves once `check` holds, looking again every 20 ms (gives up after 20 s with what was seen). */
async function until<T>(what: string, check: () => T | undefined, seen: () => string): Promise<T> {
  for (let i = 0; i < 1000; i++) {
    const value = check();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${what} never happened; stderr so far:\n${seen()}`);
}

// Where only a proxy reaches the internet, watch's calls to the services went through HTTP(S)_PROXY and its
// notifications went direct, so none ever arrived: each run counted a failed post, and the chat heard nothing.
it.each([
  ['HTTP_PROXY set: the notification goes through the proxy, as the calls do', '', true],
  ['NO_PROXY naming the hook: the notification goes direct', '127.0.0.1', false],
])('watch --notify, %s', async (_title, noProxy, proxied) => {
  const { ws, id } = await convergedBooks(h);
  await h.parsers.update(id, 0, { rename_fields: [{ name: 'price', new_name: 'cost' }] });
  const proxy = await startForwardProxy();
  const texts: string[] = [];
  const hook = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      texts.push((JSON.parse(body) as { text: string }).text);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  const hookAt = `127.0.0.1:${(hook.address() as AddressInfo).port}`;
  const child = spawn(
    process.execPath,
    [BUILT_CLI, 'watch', 'manifests', '--interval', '1m', '--listen', '127.0.0.1:0'],
    {
      cwd: ws.dir,
      env: emulatorEnv(h.emulator.url, EMULATOR_KEY, {
        HTTP_PROXY: `http://127.0.0.1:${proxy.port}`,
        NO_PROXY: noProxy,
        SCRAPEFORM_NOTIFY_URL: `http://${hookAt}/services/T0/hook`,
      }),
    },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  try {
    const text = await until(
      'a notification',
      () => texts[0],
      () => stderr,
    );
    expect(text).toContain('parser.books: version moved from 0 to 1 outside scrapeform');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  } finally {
    child.kill('SIGKILL');
    await new Promise<void>((resolve) => hook.close(() => resolve()));
    await proxy.close();
  }
  expect(stderr).not.toContain('watch: the notification failed');
  const throughProxy = proxy.seen.filter((line) => line.includes(hookAt));
  expect(throughProxy.length > 0).toBe(proxied);
  // The calls to the emulator went through it as well when NO_PROXY did not name loopback.
  expect(proxy.seen.some((line) => line.includes(new URL(h.emulator.url).host))).toBe(proxied);
});
