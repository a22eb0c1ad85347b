import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { loadManifests } from '../../src/manifest/load-manifests.js';
import { newWatchStatus, runWatch } from '../../src/workspace/watch-loop.js';
import type { WatchEvent, WatchStatus } from '../../src/workspace/watch-loop.js';
import { startWatchEndpoint } from '../../src/workspace/watch-endpoint.js';
import { convergedBooks } from '../helpers/converged-books.js';
/** What a chat webhook that is down for a while sees of `watch`'s notifications (a real server on 127.0.0.1). */

let h: EmulatorHarness;
beforeAll(async () => {
  h = await startTestEmulator({ generationDelayMs: 5 });
});
afterAll(async () => h.emulator.close());

/**
 * A webhook on 127.0.0.1 that answers `statuses` in turn (then 204): the bodies it was posted. Its URL holds a
 * token in its path, as Slack's do.
 */
async function chatHook(statuses: number[]) {
  const bodies: Record<string, unknown>[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      bodies.push(JSON.parse(body) as Record<string, unknown>);
      res.writeHead(statuses[bodies.length - 1] ?? 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/services/T0/B0/s3cr3tT0ken`;
  return { url, bodies, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** `maxRuns` runs of a library watch without heal, failing in the runs `failure` gives an error for. */
async function watchRuns(
  notifyUrl: string,
  maxRuns: number,
  failure: (run: number) => string | undefined = () => undefined,
  status: WatchStatus = newWatchStatus({}),
  timeoutMs?: number,
): Promise<string[]> {
  const { ws } = await convergedBooksRenamed();
  const clients = timeoutMs === undefined ? ws.clients : { ...ws.clients, timeoutMs };
  const manifests = await loadManifests({ paths: [path.join(ws.dir, 'manifests')], env: {} });
  const events: string[] = [];
  let runs = 0;
  await runWatch(
    { clients, backend: ws.backend, warnings: [], close: async () => undefined },
    {
      intervalMs: 900_000,
      maxRuns,
      signal: new AbortController().signal,
      reloadManifests: async () => {
        const error = failure(++runs);
        if (error !== undefined) throw new Error(error);
        return manifests;
      },
      notifyUrl,
      sleep: async () => undefined,
      onEvent: (e: WatchEvent) =>
        events.push(e.type === 'notify-failed' ? `notify-failed: ${e.error}` : e.type),
    },
    status,
  );
  return events;
}

/** The books parser applied, then its price field renamed by hand: drift at every run. */
async function convergedBooksRenamed() {
  const converged = await convergedBooks(h);
  await h.parsers.update(converged.id, 0, { rename_fields: [{ name: 'price', new_name: 'cost' }] });
  return converged;
}

it('watch: drift whose notification the chat refused is posted again at the next run, not lost until it changes', async () => {
  const hook = await chatHook([503]);
  try {
    const events = await watchRuns(hook.url, 3);
    // Run 1 finds the drift, and the chat answers 503; run 2 finds the same drift and posts it again (delivered); run
    // 3 finds it again, told already.
    expect(events.filter((e) => e !== 'checked')).toEqual([
      'notify-failed: the notification endpoint answered 503',
      'notified',
    ]);
    expect(hook.bodies.map((b) => (b.drift as { status: string }).status)).toEqual(['drift', 'drift']);
    expect(String(hook.bodies[1]?.text)).toContain('field price renamed to cost');
  } finally {
    await hook.close();
  }
});

it('watch: a check that starts failing while the chat is down is told at the next failed run that can post', async () => {
  const hook = await chatHook([502]);
  try {
    const events = await watchRuns(hook.url, 4, (run) => (run <= 3 ? 'key revoked' : undefined));
    expect(events.filter((e) => e !== 'checked' && e !== 'failed')).toEqual([
      'notify-failed: the notification endpoint answered 502',
      'notified',
      'notified',
    ]);
    expect(hook.bodies.map((b) => Object.keys(b).filter((k) => k !== 'text'))).toEqual([
      ['failing'],
      ['failing'],
      ['drift', 'recovered'],
    ]);
    expect(hook.bodies[2]?.recovered).toEqual({ failures: 3 });
  } finally {
    await hook.close();
  }
});

it('watch: a notify URL that redirects is a failed post, its report not sent on to where it points', async () => {
  // Where the redirect points: another server on 127.0.0.1, which must receive nothing.
  const elsewhere = await chatHook([]);
  const redirects = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(307, { location: `${elsewhere.url}/collect` }).end());
  });
  await new Promise<void>((resolve) => redirects.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(redirects.address() as AddressInfo).port}/services/T0/B0/s3cr3tT0ken`;
  try {
    const events = await watchRuns(url, 2);
    const elsewhereHost = new URL(elsewhere.url).host;
    // Not taken as told: the next run posts again, and is refused again.
    expect(events.filter((e) => e !== 'checked')).toEqual([
      `notify-failed: the notification endpoint answered 307, a redirect to ${elsewhereHost}: not followed, the report is not sent on`,
      `notify-failed: the notification endpoint answered 307, a redirect to ${elsewhereHost}: not followed, the report is not sent on`,
    ]);
    expect(elsewhere.bodies).toEqual([]);
    expect(events.join('\n')).not.toContain('s3cr3tT0ken');
  } finally {
    await new Promise<void>((resolve) => redirects.close(() => resolve()));
    await elsewhere.close();
  }
});

it('watch: a chat that does not answer is given --timeout, not a fixed 10 s, and the post fails saying so', async () => {
  // Review: the post waited a fixed 10 s whatever --timeout said (a slow chat cut off under a longer --timeout, a
  // stuck one waited out under a shorter one), and failed with "The operation was aborted due to timeout".
  const held: ServerResponse[] = [];
  const silent = createServer((req, res) => {
    req.resume();
    held.push(res);
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/services/T0/B0/s3cr3tT0ken`;
  try {
    const events = await watchRuns(url, 1, () => undefined, newWatchStatus({}), 300);
    expect(events.filter((e) => e !== 'checked')).toEqual([
      'notify-failed: the notification endpoint did not answer within 300 ms (--timeout)',
    ]);
    expect(held).toHaveLength(1);
  } finally {
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
});

it('watch: /metrics counts the notifications posted and those that failed, so an alert can see a chat that is down', async () => {
  const hook = await chatHook([503, 500]);
  const status = newWatchStatus({});
  const endpoint = await startWatchEndpoint({ host: '127.0.0.1', port: 0 }, () => status);
  try {
    // Run 1 fails to post the drift (503), run 2 too (500), run 3 posts it, run 4 has nothing new to tell.
    const events = await watchRuns(hook.url, 4, () => undefined, status);
    expect(events.filter((e) => e.startsWith('notif'))).toEqual([
      'notify-failed: the notification endpoint answered 503',
      'notify-failed: the notification endpoint answered 500',
      'notified',
    ]);
    const metrics = await (await fetch(`${endpoint.url}/metrics`)).text();
    expect(metrics).toContain(
      '# TYPE scrapeform_notifications_sent_total counter\nscrapeform_notifications_sent_total 1\n',
    );
    expect(metrics).toContain(
      '# TYPE scrapeform_notifications_failed_total counter\nscrapeform_notifications_failed_total 2\n',
    );
    // A failed post is not a failed run: the drift check worked every time.
    expect(metrics).toContain('scrapeform_failures_total 0\n');
  } finally {
    await endpoint.close();
    await hook.close();
  }
});
