import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A front of the emulator at `target` on 127.0.0.1: `intercept` answers (or holds, in `held`) the requests it takes
 * and returns true; every other request is passed on as it came. `close` ends the held answers and the server.
 */
export async function emulatorFront(
  target: string,
  intercept: (req: IncomingMessage, res: ServerResponse, held: ServerResponse[]) => boolean,
): Promise<{ url: string; close: () => void }> {
  const held: ServerResponse[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (intercept(req, res, held)) return;
    void fetch(`${target}${req.url ?? ''}`, { method: req.method }).then(async (answer) => {
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      for (const res of held) res.destroy();
      server.close();
    },
  };
}

/** A front that holds every parse, never answered (a page the service takes for ever to fetch), counting them. */
export async function holdingParses(
  target: string,
): Promise<{ url: string; parses: string[]; close: () => void }> {
  const parses: string[] = [];
  const front = await emulatorFront(target, (req, res, held) => {
    if (!(req.url ?? '').startsWith('/parse/')) return false;
    parses.push(req.url ?? '');
    held.push(res);
    return true;
  });
  return { ...front, parses };
}
