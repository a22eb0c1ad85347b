import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/server.js';
import { runBuiltCli } from '../helpers/child-cli.js';
import { runScrapeform } from '../helpers/cli.js';

/** A port something else already listens on. */
let taken: net.Server;
let port = 0;

beforeAll(async () => {
  taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  port = (taken.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => taken.close(resolve));
});

const expectedStderr = (): string =>
  `error: cannot start the emulator: 127.0.0.1:${port} is already in use\n` +
  `  hint: stop what listens there, or choose another port: --port ${port < 65_535 ? port + 1 : port - 1}, or --port 0 for a free one\n`;

describe('scrapeform emulator on a port in use', () => {
  it('is a user error naming host and port, with a hint, not an internal error', async () => {
    const run = await runScrapeform(['emulator', '--port', String(port)]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(expectedStderr());
  });

  it('exits the process with status 1 (nothing is left listening or waiting)', async () => {
    const run = await runBuiltCli(['emulator', '--port', String(port)], {
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? '', CI: 'true' },
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(expectedStderr());
  });

  it('startEmulator rejects with the same error code', async () => {
    await expect(startEmulator({ port })).rejects.toMatchObject({
      code: 'emulator.port-in-use',
      message: `cannot start the emulator: 127.0.0.1:${port} is already in use`,
      details: { host: '127.0.0.1', port },
    });
  });
});
