import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, mayHaveLanded, neverSent } from '../../src/api/api-error.js';
import type { ApiClients } from '../../src/api/create-clients.js';
import { createApiClients } from '../../src/api/create-clients.js';
import { createOnce } from '../../src/apply/create-once.js';
import { startForwardProxy } from '../helpers/forward-proxy.js';
import { everythingShown, SENTINEL_KEY } from '../helpers/secrets.js';

/**
 * A compressed answer whose body is cut short, the connection closing in order (a server, or a proxy between,
 * that ended the compressed stream early): no complete answer, read the same way whichever way the request went,
 * over Node's http module (no proxy) or over fetch through a proxy. fetch decodes leniently, as browsers do, and
 * read the text before the cut as the body: a bad response where a shape is checked, a success where none is.
 */
type Answer = (req: http.IncomingMessage, res: http.ServerResponse, socket: Socket) => void;
let answer: Answer = (_req, res) => res.end('[]');
let server: http.Server;
let origin = '';
const requests: string[] = [];
let proxy: Awaited<ReturnType<typeof startForwardProxy>>;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    requests.push(`${req.method} ${new URL(req.url ?? '/', origin).pathname}`);
    req.resume();
    req.on('end', () => answer(req, res, req.socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy = await startForwardProxy();
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await proxy.close();
});

beforeEach(() => {
  requests.length = 0;
});

const PATHS = ['direct (node:http)', 'through a proxy (fetch)'] as const;
type Path = (typeof PATHS)[number];

/** The clients of one path, retrying without waiting, closed by the test. */
function clientsFor(path: Path, maxRetries = 2): ApiClients {
  return createApiClients(
    { apiKey: SENTINEL_KEY, parserUrl: origin, pipelineUrl: origin },
    {
      env:
        path === 'direct (node:http)' ? {} : { HTTP_PROXY: `http://127.0.0.1:${proxy.port}`, NO_PROXY: '' },
      retry: { maxRetries },
      sleep: async () => undefined,
      random: () => 0,
    },
  );
}

async function withClients<T>(
  path: Path,
  use: (clients: ApiClients) => Promise<T>,
  maxRetries = 2,
): Promise<T> {
  const clients = clientsFor(path, maxRetries);
  try {
    return await use(clients);
  } finally {
    await clients.close();
  }
}

async function failure(call: Promise<unknown>): Promise<ApiError> {
  const error = await call.then(
    () => new Error('the call succeeded'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

const PARSERS = JSON.stringify([{ id: 'p1', name: 'books', status: 'FINISHED', error: null, version: 1 }]);
const ENCODERS = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync } as const;

/** `body` compressed with `encoding` and cut `short` bytes before its end, sent whole with its length. */
function cutShort(
  status: number,
  body: string,
  encoding: keyof typeof ENCODERS = 'gzip',
  short = 12,
): Answer {
  return (_req, res) => {
    const compressed = ENCODERS[encoding](body);
    const cut = compressed.subarray(0, compressed.length - short);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-encoding': encoding,
      'content-length': String(cut.length),
    });
    res.end(cut);
  };
}

describe.each(PATHS)('a compressed answer cut short, %s', (path) => {
  it.each(['gzip', 'deflate', 'br'] as const)(
    'a GET answered 200 in %s: no complete answer (api.network, status 0), tried again',
    async (encoding) => {
      answer = cutShort(200, PARSERS, encoding, encoding === 'br' ? 4 : 12);
      const error = await withClients(path, (clients) => failure(clients.parsers.list()));
      expect([error.code, error.status, error.retryable]).toEqual(['api.network', 0, true]);
      expect(error.message).toBe(
        `GET ${origin}/parsers?api_key=***: network error: the 200 answer is incomplete: its ${encoding} body was cut short (unexpected end of file)`,
      );
      expect(error.hint).toBe(
        'no complete answer from the service (none, or one cut short: the connection broke during it, or its compressed body ended early), or one whose body was not in the encoding it named: check the network, proxy settings and the endpoint URL',
      );
      expect(requests).toEqual(['GET /parsers', 'GET /parsers', 'GET /parsers']);
      expect(everythingShown(error)).not.toContain(SENTINEL_KEY);
    },
  );

  it('only the gzip trailer missing (the text is whole): still cut short, as the trailer is what says so', async () => {
    answer = cutShort(200, PARSERS, 'gzip', 4);
    const error = await withClients(path, (clients) => failure(clients.parsers.list()), 0);
    expect([error.code, error.status]).toEqual(['api.network', 0]);
    expect(error.message).toContain('the 200 answer is incomplete: its gzip body was cut short');
  });

  it('a body that is not the gzip it says it is: no usable answer either, said as unreadable, not as cut short', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end('not gzip');
    };
    const error = await withClients(path, (clients) => failure(clients.parsers.list()), 0);
    expect([error.code, error.status]).toEqual(['api.network', 0]);
    expect(error.message).toBe(
      `GET ${origin}/parsers?api_key=***: network error: the 200 answer is unreadable: its body is not valid gzip data (incorrect header check)`,
    );
    expect(error.hint).toBe(
      'no complete answer from the service (none, or one cut short: the connection broke during it, or its compressed body ended early), or one whose body was not in the encoding it named: check the network, proxy settings and the endpoint URL',
    );
  });

  it('a create answered 201 cut short may have landed: not sent again, and looked for by name', async () => {
    answer = cutShort(201, JSON.stringify({ id: 'p-9', version: 0 }));
    const listed: string[] = [];
    const created = await withClients(path, (clients) =>
      createOnce(
        async () => {
          listed.push('list');
          return [{ id: 'p-9', name: 'b', version: 0 }];
        },
        () => clients.parsers.create({ name: 'b', urls: ['https://b.example/'] }),
        'b',
        { planned: new Map() },
      ),
    );
    // The service said 201: the report shows it, and that its answer could not be read.
    expect(created).toEqual({
      object: { id: 'p-9', name: 'b', version: 0 },
      recovered: { status: 201, answer: 'unreadable', found: 'list' },
    });
    expect([requests, listed]).toEqual([['POST /parsers'], ['list']]);

    const error = await withClients(path, (clients) =>
      failure(clients.parsers.create({ name: 'b', urls: ['https://b.example/'] })),
    );
    expect([error.code, error.status, mayHaveLanded(error), neverSent(error)]).toEqual([
      'api.network',
      0,
      true,
      false,
    ]);
  });

  it('a create answered 201 whose body is not the gzip it says it is: looked for by name, its 201 reported unreadable', async () => {
    answer = (_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(JSON.stringify({ id: 'p-9', version: 0 }));
    };
    const created = await withClients(path, (clients) =>
      createOnce(
        async () => [{ id: 'p-9', name: 'b', version: 0 }],
        () => clients.parsers.create({ name: 'b', urls: ['https://b.example/'] }),
        'b',
        { planned: new Map() },
      ),
    );
    expect(created).toEqual({
      object: { id: 'p-9', name: 'b', version: 0 },
      recovered: { status: 201, answer: 'unreadable', found: 'list' },
    });
    expect(requests).toEqual(['POST /parsers']);
  });

  it('a project PATCH answered 200 cut short (its body not needed): no complete answer, not a success', async () => {
    // fetch read it as taken, the text before the cut being no project; Node's http module as the connection broken.
    answer = cutShort(
      200,
      JSON.stringify({ id: 5, name: 'y', schedulingEnabled: false, scrapingInterval: null }),
    );
    const error = await withClients(path, (clients) => failure(clients.projects.update(5, { name: 'y' })));
    expect([error.code, error.status, mayHaveLanded(error)]).toEqual(['api.network', 0, true]);
    expect(requests).toEqual(['PATCH /api/projects/5']);
  });

  it('an error status with its body cut short is still that status: a 429 refused the create, which is sent again', async () => {
    let n = 0;
    answer = (req, res, socket) =>
      ++n === 1
        ? cutShort(429, JSON.stringify({ error: 'slow down, please' }))(req, res, socket)
        : cutShort(201, JSON.stringify({ id: 'p-9', version: 0 }), 'gzip', 0)(req, res, socket);
    const created = await withClients(path, (clients) =>
      clients.parsers.create({ name: 'b', urls: ['https://b.example/'] }),
    );
    expect(created).toEqual({ id: 'p-9', version: 0 });
    expect(requests).toEqual(['POST /parsers', 'POST /parsers']);

    answer = cutShort(500, JSON.stringify({ error: 'extraction failed at the far end' }));
    const error = await withClients(path, (clients) => failure(clients.parsers.delete('p-9')), 0);
    expect([error.code, error.status, error.retryable]).toEqual(['api.server-error', 500, true]);
    expect(error.message).toBe(
      `DELETE ${origin}/parsers/p-9?api_key=***: 500: its gzip body was cut short (unexpected end of file)`,
    );
  });

  it('a whole compressed answer, and one of no byte that names an encoding, read as before', async () => {
    answer = cutShort(200, PARSERS, 'gzip', 0);
    expect(await withClients(path, (clients) => clients.parsers.list())).toHaveLength(1);
    answer = (_req, res) => {
      res.writeHead(204, { 'content-encoding': 'gzip' });
      res.end();
    };
    await expect(withClients(path, (clients) => clients.parsers.delete('p-9'))).resolves.toEqual({
      status: 204,
    });
  });

  it('a deflate answer without its zlib wrapper (raw deflate, as some servers send it) is read, and cut short is cut', async () => {
    // fetch reads `deflate` either way (as browsers do), and did so on this path before scrapeform decoded it itself:
    // refused as "not the deflate it says it is", every plan through a proxy failed, and a create or start that
    // landed read as maybe not.
    const raw =
      (body: Buffer): Answer =>
      (_req, res) => {
        res.writeHead(201, { 'content-type': 'application/json', 'content-encoding': 'deflate' });
        res.end(body);
      };
    answer = raw(deflateRawSync(JSON.stringify({ id: 'p-9', version: 0 })));
    const created = await withClients(path, (clients) =>
      clients.parsers.create({ name: 'b', urls: ['https://b.example/'] }),
    );
    expect(created).toEqual({ id: 'p-9', version: 0 });
    const whole = deflateRawSync(JSON.stringify({ id: 'p-9', version: 0 }));
    answer = raw(whole.subarray(0, whole.length - 4));
    const error = await withClients(path, (clients) =>
      failure(clients.parsers.create({ name: 'b', urls: ['https://b.example/'] })),
    );
    expect([error.code, error.status, mayHaveLanded(error)]).toEqual(['api.network', 0, true]);
    expect(error.message).toContain('the 201 answer is incomplete: its deflate body was cut short');
  });

  it('a connection broken during a compressed answer is a broken connection, as for any answer', async () => {
    answer = (_req, res, socket) => {
      const compressed = gzipSync(PARSERS);
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': String(compressed.length) });
      res.write(compressed.subarray(0, 10));
      setTimeout(() => socket.destroy(), 10);
    };
    const error = await withClients(path, (clients) => failure(clients.parsers.list()), 0);
    expect([error.code, error.status]).toEqual(['api.network', 0]);
    expect(error.message).toBe(
      `GET ${origin}/parsers?api_key=***: network error: the connection broke while reading the 200 response`,
    );
  });
});

it('the proxy path went through the proxy', () => {
  expect(proxy.seen.length).toBeGreaterThan(0);
});
