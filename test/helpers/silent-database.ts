import { createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';

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
