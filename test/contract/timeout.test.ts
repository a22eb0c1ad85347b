import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/api-error.js';
import { resolveApiConfig } from '../../src/api/config.js';
import { createApiClients } from '../../src/api/create-clients.js';
import { ParsersClient } from '../../src/api/parsers-client.js';
import { Transport } from '../../src/api/transport.js';
import type { TransportEvent } from '../../src/api/transport-contract.js';
import { everythingShown, SENTINEL_KEY } from '../helpers/api.js';
import { until } from '../helpers/until.js';

/** A server that accepts every connection and request and never answers (issue 19). */
let silent: http.Server;
let origin = '';
let requests = 0;

beforeAll(async () => {
  silent = http.createServer(() => {
    requests++;
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
});

afterAll(async () => {
  silent.closeAllConnections();
  await new Promise((resolve) => silent.close(resolve));
});

describe('request timeout', () => {
  it('a server that never answers fails with api.timeout (status 0) naming the timeout', async () => {
    const events: TransportEvent[] = [];
    const sleeps: number[] = [];
    const transport = new Transport({
      apiKey: SENTINEL_KEY,
      timeoutMs: 250,
      retry: { maxRetries: 1 },
      onEvent: (event) => events.push(event),
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      random: () => 0,
    });
    const before = requests;
    const error = (await new ParsersClient(transport, origin).list().catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect([error.code, error.status, error.method]).toEqual(['api.timeout', 0, 'GET']);
    expect(error.message).toBe(
      `GET ${origin}/parsers?api_key=***: timed out: no answer within the request timeout of 250 ms`,
    );
    // Review: the hint said "retry" as if nothing had been: the transport already sent the GET again.
    expect(error.hint).toBe(
      'the service did not answer in time; this call spends no credits, and scrapeform sent it again after each timeout as far as its retry limits allow: check the network, raise the request timeout (--timeout or SCRAPEFORM_TIMEOUT), or run the command again later',
    );
    // A GET is retried once by this policy, then the call gives up. The server shares this test's event loop: on a
    // loaded machine the second try's deadline can pass before its handler ran, so the count is read once it has.
    await until('the server saw the GET and its retry', () => requests - before >= 2);
    expect(requests - before).toBe(2);
    expect(events.filter((e) => e.type === 'retry').map((e) => e.type === 'retry' && e.reason)).toEqual([
      'api.timeout',
    ]);
    expect(everythingShown(error)).not.toContain(SENTINEL_KEY);
  });

  it('a POST that timed out is not retried (it may have landed)', async () => {
    // Long enough for the POST to leave on a loaded machine: the server here shares this test's event loop.
    const transport = new Transport({ apiKey: SENTINEL_KEY, timeoutMs: 1000 });
    const before = requests;
    const error = (await new ParsersClient(transport, origin)
      .create({ name: 'b', urls: ['https://b.example/'] })
      .catch((e: unknown) => e)) as ApiError;
    expect([error.code, error.status]).toEqual(['api.timeout', 0]);
    // Review: the hint said "retry", which after a create that may have landed can make a second parser.
    expect(error.hint).toBe(
      'the service did not answer in time, and the change may have been made all the same: scrapeform does not send a create or change again after a timeout; check what the service holds (scrapeform plan re-reads it) before running the command again, and check the network or raise the request timeout (--timeout or SCRAPEFORM_TIMEOUT)',
    );
    // The call is over (no retry can start now); the POST it sent may still be on its way to the handler.
    await until('the server saw the POST', () => requests > before);
    expect(requests - before).toBe(1);
    expect(everythingShown(error)).not.toContain(SENTINEL_KEY);
  });

  it('SCRAPEFORM_TIMEOUT reaches the clients built from the resolved config', async () => {
    const env = {
      SCRAPERAPI_API_KEY: SENTINEL_KEY,
      SCRAPEFORM_TIMEOUT: '200ms',
      SCRAPEFORM_PARSER_URL: origin,
    };
    const config = await resolveApiConfig({ env });
    const clients = createApiClients(config, { env: { NO_PROXY: '*' } });
    try {
      const error = (await clients.parsers.list().catch((e: unknown) => e)) as ApiError;
      expect([error.code, error.status]).toEqual(['api.timeout', 0]);
      expect(error.message).toContain('no answer within the request timeout of 200 ms');
      expect(everythingShown(error)).not.toContain(SENTINEL_KEY);
    } finally {
      await clients.close();
    }
  });
});
