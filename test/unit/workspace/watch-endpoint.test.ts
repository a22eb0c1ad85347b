import { request } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { startWatchEndpoint } from '../../../src/workspace/watch-endpoint.js';
import type { WatchEndpoint } from '../../../src/workspace/watch-endpoint.js';
import { newWatchStatus } from '../../../src/workspace/watch-loop.js';
import type { WatchStatus } from '../../../src/workspace/watch-loop.js';
/** watch's /healthz and /metrics as HTTP: which methods each answers, and how (a server on 127.0.0.1). */

let endpoint: WatchEndpoint | undefined;
afterEach(async () => endpoint?.close());

/** `method` on `path` of the endpoint: its status, the Allow header and the body's length as received. */
function call(method: string, path: string): Promise<[number, string | undefined, number]> {
  return new Promise((resolve, reject) => {
    const req = request(`${endpoint?.url}${path}`, { method }, (res) => {
      let length = 0;
      res.on('data', (d: Buffer) => (length += d.length));
      res.on('end', () => resolve([res.statusCode ?? 0, res.headers.allow, length]));
    });
    req.on('error', reject);
    req.end();
  });
}

it('HEAD /healthz and /metrics answer as GET does, without a body: a monitor that checks with HEAD sees the health', async () => {
  const status: WatchStatus = {
    ...newWatchStatus({}),
    runs: 2,
    failures: 1,
    lastRunOk: false,
    lastError: 'down',
  };
  endpoint = await startWatchEndpoint({ host: '127.0.0.1', port: 0 }, () => status);
  expect(await call('HEAD', '/healthz')).toEqual([503, undefined, 0]);
  expect(await call('HEAD', '/metrics')).toEqual([200, undefined, 0]);
  status.lastRunOk = true;
  expect(await call('HEAD', '/healthz?probe=1')).toEqual([200, undefined, 0]);
  expect((await call('GET', '/healthz'))[0]).toBe(200);
});

it('other methods on /healthz and /metrics are refused with 405 and Allow, not a 404 that says the path is not there', async () => {
  endpoint = await startWatchEndpoint({ host: '127.0.0.1', port: 0 }, () => newWatchStatus({}));
  for (const method of ['POST', 'PUT', 'DELETE'])
    for (const path of ['/healthz', '/metrics'])
      expect([method, path, ...(await call(method, path)).slice(0, 2)]).toEqual([
        method,
        path,
        405,
        'GET, HEAD',
      ]);
  expect((await call('GET', '/nothing'))[0]).toBe(404);
});
