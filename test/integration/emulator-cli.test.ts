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

describe('scrapeform emulator --credits', () => {
  it.each([
    ['past what a number holds exactly', '99999999999999999999'],
    ['one past the largest held exactly', '9007199254740992'],
  ])(
    'refuses a whole number %s as a usage error, as PUT /_emulator/accounts does, and starts nothing',
    async (_, credits) => {
      // Were it accepted, the emulator would run until Ctrl-C: the listeners it added stop it after a while.
      const started = runScrapeform(['emulator', '--port', '0', '--credits', credits]);
      const stopper = setTimeout(() => process.emit('SIGINT'), 3_000);
      const run = await started.finally(() => clearTimeout(stopper));
      expect([run.code, run.stdout, run.stderr]).toEqual([
        1,
        '',
        `error: --credits takes a whole number, got "${credits}"\n` +
          '  hint: whole numbers up to 9007199254740991 are held exactly\n',
      ]);
    },
  );

  it('takes the largest whole number held exactly', async () => {
    const started = runScrapeform(['emulator', '--port', '0', '--credits', '9007199254740991']);
    // Started (it prints where it listens), then stopped as by Ctrl-C, once it listens for it.
    const stopper = setInterval(() => process.emit('SIGINT'), 200);
    const run = await started.finally(() => clearInterval(stopper));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('scrapeform emulator listening on http://127.0.0.1:');
  });
});
