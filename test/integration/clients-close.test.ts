import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ApiError } from '../../src/api/api-error.js';
import { createApiClients } from '../../src/api/create-clients.js';
import type { TransportEvent } from '../../src/api/transport-contract.js';
import { until } from '../helpers/until.js';

/**
 * Clients closed while a call is under way: plan, drift and status list both services at once, and a refused key
 * ends the command at the first 401 while the other list is still on the wire. Closing destroyed its connection;
 * the transport read that as a network failure and tried again (`retrying GET .../api/projects ... (api.network,
 * attempt 1)` before the 401 error, with a PostgreSQL state whose closing gave the retry time to print).
 */
const KEY = 'wrong-key-0f3a9c2e';
let server: http.Server;
let origin = '';
const seen: string[] = [];
const held: http.ServerResponse[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    seen.push(`${req.method} ${path}`);
    // The first projects list is answered late (it is on the wire when the parsers' 401 comes); any other is refused.
    if (path === '/api/projects' && held.length === 0) {
      held.push(res);
      return;
    }
    res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"Invalid API key"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

it('a call still under way when the clients close is given up, not tried again as a network failure', async () => {
  const events: TransportEvent[] = [];
  const clients = createApiClients(
    { apiKey: KEY, parserUrl: origin, pipelineUrl: origin },
    // No wait between tries, so a retry, if one were made, reaches the server before the test looks.
    { env: {}, onEvent: (event) => events.push(event), sleep: async () => undefined },
  );
  const projects = clients.projects.list().catch((error: unknown) => error);
  await until('the server saw the list of projects', () => seen.includes('GET /api/projects'), {
    everyMs: 5,
  });
  const refused = await clients.parsers.list().catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(ApiError);
  expect((refused as ApiError).status).toBe(401);

  await clients.close();
  const givenUp = await projects;

  expect(events.filter((event) => event.type === 'retry')).toEqual([]);
  expect(seen.filter((request) => request === 'GET /api/projects')).toHaveLength(1);
  expect(givenUp).toBeInstanceOf(ApiError);
  expect(JSON.stringify(events)).not.toContain(KEY);
});
