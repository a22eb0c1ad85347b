import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ScrapeformError } from '../errors.js';
import { renderMetrics } from '../output/render-metrics.js';
import type { WatchStatus } from './watch-loop.js';

export interface WatchEndpoint {
  /** `http://host:port`, with the port actually bound (port 0 picks a free one). */
  url: string;
  close(): Promise<void>;
}

/**
 * The small HTTP endpoint of `watch`: `/healthz` (200 while the last run succeeded or none ran yet, 503 after a
 * failed one, with the status as JSON, and `not_healed`: what the last heal left out, destructive or over its
 * regeneration budget) and `/metrics` (Prometheus text). Nothing else, and only GET and HEAD (the same answer without
 * its body, as HTTP asks of every server: a monitor probing with HEAD got 404); another method is a 405.
 */
export async function startWatchEndpoint(
  listen: { host: string; port: number },
  status: () => WatchStatus,
): Promise<WatchEndpoint> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const current = status();
    if ((path === '/metrics' || path === '/healthz') && req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' });
      res.end(`${path} answers GET and HEAD only\n`);
      return;
    }
    // Node sends no body to a HEAD, with the headers a GET gets.
    if (path === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
      res.end(renderMetrics(current));
      return;
    }
    if (path === '/healthz') {
      const ok = current.lastRunOk !== false;
      res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          status: ok ? 'ok' : 'failing',
          objects: current.objects,
          drifted: current.drifted,
          runs: current.runs,
          failures: current.failures,
          last_run: current.lastRunAt === undefined ? null : new Date(current.lastRunAt).toISOString(),
          ...(current.lastError !== undefined ? { last_error: current.lastError } : {}),
          // What the last heal left: it never deletes, replaces or archives, nor regenerates beyond its budget, so
          // these wait for an apply (or a larger --max-regenerations).
          ...(current.notHealed !== undefined ? { not_healed: current.notHealed } : {}),
        }),
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found: try /healthz or /metrics\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new ScrapeformError(
          'watch.cannot-listen',
          `watch cannot listen on ${listen.host}:${listen.port}: ${error.code ?? error.message}`,
          { hint: 'pick another --listen port, or 0 for a free one', cause: error },
        ),
      ),
    );
    server.listen(listen.port, listen.host, resolve);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
