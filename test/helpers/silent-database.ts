import { createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { expect } from 'vitest';
import { emulatorEnv, signalledBuiltCli } from './child-cli.js';
import type { SignalledRun } from './child-cli.js';
import { EMULATOR_KEY } from './emulator.js';

/**
 * A state database on 127.0.0.1 that takes the connection and never answers; `sockets` are the ones it took.
 * `close` ends them and the server (call it after the test).
 */
export async function silentDatabase(): Promise<{ url: string; sockets: Socket[]; close: () => void }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `postgres://scrapeform@127.0.0.1:${(server.address() as AddressInfo).port}/none`,
    sockets,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

/**
 * Runs the built CLI with `args` (`--state` of a silent database added) in `cwd` against the emulator at
 * `emulatorUrl`, sends Ctrl-C once the database has the connection, and gives what the run ended with and how long
 * after the Ctrl-C it exited (`code` is 'still running' when it had not exited 10 s later).
 */
export async function interruptWhileStateIsSilent(
  emulatorUrl: string,
  cwd: string,
  args: string[],
): Promise<SignalledRun> {
  const db = await silentDatabase();
  let connections = 0;
  try {
    const run = await signalledBuiltCli(
      [...args, '--state', db.url],
      // Far longer than the test waits: the run must not end by the database's timeout.
      { cwd, env: { ...emulatorEnv(emulatorUrl, EMULATOR_KEY), SCRAPEFORM_STATE_TIMEOUT: '60s' } },
      () => (connections = db.sockets.length) > 0,
    );
    expect(connections, 'connections to the database when Ctrl-C came').toBe(1);
    return run;
  } finally {
    db.close();
  }
}
