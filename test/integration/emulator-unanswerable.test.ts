import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { until } from '../helpers/until.js';

// A request the emulator cannot answer as asked must neither end its process nor leave the client waiting.

let h: EmulatorHarness;
const warnings: string[] = [];
const q = `api_key=${EMULATOR_KEY}`;

beforeAll(async () => {
  h = await startTestEmulator({ warn: (message) => warnings.push(message) });
});
afterEach(() => {
  h.emulator.reset();
  warnings.length = 0;
});
afterAll(async () => {
  await h.emulator.close();
});

/** The status line of the answer to a raw request line, or `(no answer)` after two seconds. */
async function statusLineOf(target: string): Promise<string> {
  const port = Number(new URL(h.emulator.url).port);
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve('(no answer)');
    }, 2000);
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received.split('\r\n')[0] ?? '');
    });
    socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
  });
}

describe('answers the emulator cannot give as asked', () => {
  it.each(['//[x', 'http://a:99999/', 'http://['])(
    'answers 400 to the request target %s, which is no URL, and keeps serving',
    async (target) => {
      expect(await statusLineOf(target)).toBe('HTTP/1.1 400 Bad Request');
      expect((await h.raw('GET', '/_emulator/clock')).status).toBe(200);
      expect(h.emulator.requestLog.at(-1)).toMatchObject({ method: 'GET', path: target, status: 400 });
    },
  );

  it('answers 400 to a path whose percent escape is malformed, not 500, and keeps serving', async () => {
    const answer = await h.raw('GET', `/api/projects/%zz?${q}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: 'malformed path segment: %zz' });
    expect(warnings).toEqual([]);
    expect((await h.raw('GET', '/_emulator/clock')).status).toBe(200);
  });

  it('clearing the response delay sends the answers held so far, logged by the time idle() returns', async () => {
    h.emulator.setFaults({ responseDelayMs: 60_000, responseDelayMethods: ['POST'] });
    const answered = h.raw('POST', `/api/projects?${q}`, { projectInput: { type: 'list', list: [] } });
    await until('the project was created', () => h.emulator.projects.projects.size > 0, { everyMs: 5 });
    expect(h.emulator.requestLog).toEqual([]);
    h.emulator.setFaults({ responseDelayMs: 0 });
    await h.emulator.idle();
    // Not a minute later, during whatever the test does next.
    expect(h.emulator.requestLog.map((e) => `${e.method} ${e.status}`)).toEqual(['POST 201']);
    expect((await answered).status).toBe(201);
  });

  it('answers 500 to an answer JSON cannot write, warns naming the request, and keeps serving', async () => {
    const created = await h.raw('POST', `/api/projects?${q}`, { projectInput: { type: 'list', list: [] } });
    expect(created.status).toBe(201);
    const id = (created.body as { id: number }).id;
    const project = h.emulator.projects.projects.get(id);
    if (project === undefined) throw new Error('the project was not stored');
    // An injected fault: a value JSON.stringify throws on, in what the project's details answer.
    project.apiParams = { size: 10n } as unknown as typeof project.apiParams;
    const answer = await h.raw('GET', `/api/projects/${id}?${q}`);
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({ error: 'emulator error: Do not know how to serialize a BigInt' });
    expect(warnings).toEqual([
      `cannot answer GET /api/projects/${id}?api_key=***: Do not know how to serialize a BigInt`,
    ]);
    expect(h.emulator.requestLog.at(-1)).toMatchObject({ method: 'GET', status: 500 });
    expect(JSON.stringify(h.emulator.requestLog)).not.toContain(EMULATOR_KEY);
    expect((await h.raw('GET', `/api/projects?${q}`)).status).toBe(500);
    delete (project.apiParams as Record<string, unknown>).size;
    expect((await h.raw('GET', `/api/projects/${id}?${q}`)).status).toBe(200);
  });

  it('answers 500 to a handler that throws something not an HttpError, warns naming the request, and keeps serving', async () => {
    const projects = h.emulator.projects;
    // An injected fault: a handler bug, whose message happens to quote the key it was given.
    projects.handle = (req) =>
      Promise.reject(new TypeError(`cannot read 'list' of ${req.query.get('api_key')} (undefined)`));
    try {
      const answer = await h.raw('GET', `/api/projects?${q}`);
      expect(answer.status).toBe(500);
      expect(answer.body).toEqual({ error: "emulator error: cannot read 'list' of *** (undefined)" });
      expect(warnings).toEqual([
        "cannot answer GET /api/projects?api_key=***: cannot read 'list' of *** (undefined)",
      ]);
      expect(h.emulator.requestLog.at(-1)).toMatchObject({ method: 'GET', status: 500 });
    } finally {
      delete (projects as { handle?: unknown }).handle;
    }
    expect((await h.raw('GET', `/api/projects?${q}`)).status).toBe(200);
    expect(warnings).toHaveLength(1);
  });

  it('warns of nothing when the client hangs up before its body is whole (no fault of the emulator), and keeps serving', async () => {
    const port = Number(new URL(h.emulator.url).port);
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.on('connect', resolve));
    // 8 of the 100 bytes announced, then the connection goes (a Ctrl-C, or the client's own timeout).
    socket.write(
      `POST /api/parsers?${q} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`,
    );
    socket.destroy();
    await vi.waitFor(() => expect(h.emulator.requestLog.at(-1)).toMatchObject({ method: 'POST' }), {
      timeout: 5000,
    });
    expect(warnings).toEqual([]);
    expect((await h.raw('GET', `/api/projects?${q}`)).status).toBe(200);
  });

  it('answers 500 when writing the answer itself throws, warns, and keeps serving', async () => {
    const projects = h.emulator.projects;
    // An injected fault: a header value Node refuses to write, thrown at writeHead, after the handler returned.
    projects.handle = () => Promise.resolve({ status: 200, headers: { 'x-broken': 'a\nb' }, body: {} });
    try {
      const answer = await h.raw('GET', `/api/projects?${q}`);
      expect(answer.status).toBe(500);
      expect(answer.body).toMatchObject({
        error: expect.stringMatching(/^emulator error: Invalid character in header/),
      });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(
        /^cannot answer GET \/api\/projects\?api_key=\*\*\*: Invalid character in header/,
      );
      // The log says what the client got, not the status the handler meant to send.
      expect(h.emulator.requestLog.at(-1)).toMatchObject({ method: 'GET', status: 500 });
    } finally {
      delete (projects as { handle?: unknown }).handle;
    }
    expect((await h.raw('GET', `/api/projects?${q}`)).status).toBe(200);
  });
});
