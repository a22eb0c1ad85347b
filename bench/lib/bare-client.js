// The emulator's own limit, as the scale bench compares the CLI with it: the least a client can do to make `count`
// creates, `concurrency` in flight, over node:http with one keep-alive agent (the CLI's own way without a proxy;
// fetch costs about four times the CPU per call and was the bottleneck of the earlier "ideal"). Imported, it times
// the POSTs alone; run as a script it is a whole process (Node's start included), for the CLI's whole process:
//   node bench/lib/bare-client.js URL KEY projects|parsers COUNT CONCURRENCY
import { Buffer } from 'node:buffer';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';

/** The body and path of create number `i` of a kind, as the CLI would send it. */
export function createRequest(kind, i, key) {
  if (kind === 'projects') {
    return {
      path: `/api/projects?api_key=${key}`,
      body: {
        name: `bare-${i}`,
        projectType: 'urls',
        projectInput: { type: 'list', list: ['https://books.example/catalogue/page-1.html'] },
        scrapingInterval: 'hourly',
        schedulingEnabled: true,
        scheduledAt: '2099-01-01T00:00:00Z',
      },
    };
  }
  return {
    path: '/parsers',
    body: {
      api_key: key,
      name: `bare-${i}`,
      urls: ['https://books.example/catalogue/page-1.html'],
      fields: [{ name: 'heading', description: 'Page heading', selector: 'h1' }],
    },
  };
}

/** One request over the agent: the status and the parsed JSON answer (undefined for an empty body). */
export function call(agent, url, method, path, body) {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const request = http.request(
      new URL(path, url),
      {
        method,
        agent,
        headers:
          text === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
      },
      (response) => {
        let answer = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (answer += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode, json: answer === '' ? undefined : JSON.parse(answer) }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(text);
  });
}

/** Runs `work(i, agent)` for every i below `count`, `concurrency` at once over one keep-alive agent; the ms taken. */
async function inFlight(count, concurrency, work) {
  const agent = new http.Agent({ keepAlive: true });
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await work(next++, agent);
    }),
  );
  const ms = performance.now() - started;
  agent.destroy();
  return ms;
}

/** `count` creates of `kind`, `concurrency` in flight; resolves with the milliseconds they took. */
export function barePosts(url, key, kind, count, concurrency) {
  return inFlight(count, concurrency, async (i, agent) => {
    const target = createRequest(kind, i, key);
    const answer = await call(agent, url, 'POST', target.path, target.body);
    if (answer.status >= 300) throw new Error(`bare POST: ${answer.status} ${JSON.stringify(answer.json)}`);
  });
}

/**
 * The emulator's own limit for creating parsers and waiting for them: `concurrency` in flight, each POSTing and
 * then reading its details every `pollMs` until the generation is over.
 */
export function bareCreateAndWait(url, key, count, concurrency, pollMs) {
  return inFlight(count, concurrency, async (i, agent) => {
    const target = createRequest('parsers', i, key);
    const created = await call(agent, url, 'POST', target.path, target.body);
    for (;;) {
      await sleep(pollMs);
      const details = await call(agent, url, 'GET', `/parsers/${created.json.id}/0?api_key=${key}`);
      if (details.json.status !== 'GENERATING') return;
    }
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [url, key, kind, count, concurrency] = process.argv.slice(2);
  await barePosts(url, key, kind, Number(count), Number(concurrency));
}
