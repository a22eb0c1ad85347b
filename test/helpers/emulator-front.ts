import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A front of the emulator at `target` on 127.0.0.1: `intercept` answers (or holds, in `held`) the requests it takes
 * and returns true; every other request is passed on as it came (method, content type and body). `close` ends the
 * held answers, the open connections and the server.
 */
export async function emulatorFront(
  target: string,
  intercept: (req: IncomingMessage, res: ServerResponse, held: ServerResponse[]) => boolean,
): Promise<{ url: string; close: () => void }> {
  const held: ServerResponse[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (intercept(req, res, held)) return;
    void passOn(target, req).then(
      ({ status, type, body }) => {
        res.writeHead(status, { 'content-type': type });
        res.end(body);
      },
      // The emulator closed the connection (it was closed with the answer held): so does the front.
      () => res.destroy(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      server.close();
    },
  };
}

/** Sends `req` on to `target` as it came; the answer's status, content type and body. */
async function passOn(
  target: string,
  req: IncomingMessage,
): Promise<{ status: number; type: string; body: Buffer }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const sent = Buffer.concat(chunks);
  const answer = await fetch(`${target}${req.url ?? ''}`, {
    method: req.method ?? 'GET',
    headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
    ...(sent.length > 0 ? { body: sent } : {}),
  });
  return {
    status: answer.status,
    type: answer.headers.get('content-type') ?? 'text/plain',
    body: Buffer.from(await answer.arrayBuffer()),
  };
}

/**
 * A front that answers every DELETE `status` (a 404 with the service's error body, any other with `body` as JSON,
 * or none), after passing it on to the emulator when `forward` (the delete done) or without (the object left live);
 * the paths of the DELETEs it saw.
 */
export async function answeringDeletes(
  target: string,
  status: number,
  forward: boolean,
  body?: unknown,
): Promise<{ url: string; deletes: string[]; close: () => void }> {
  const deletes: string[] = [];
  const front = await emulatorFront(target, (req, res) => {
    if (req.method !== 'DELETE') return false;
    deletes.push(new URL(req.url ?? '/', target).pathname);
    void (forward ? passOn(target, req) : Promise.resolve()).then(() => {
      if (status === 404) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'Not Found' }));
      } else if (body !== undefined) {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      } else res.writeHead(status).end();
    });
    return true;
  });
  return { ...front, deletes };
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
