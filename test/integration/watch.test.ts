import { spawn } from 'node:child_process';
import { access, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUILT_CLI, emulatorEnv, runBuiltCli } from '../helpers/child-cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { loadManifests } from '../../src/manifest/load-manifests.js';
import { runWatch } from '../../src/workspace/watch-loop.js';
import { ApiError } from '../../src/api/api-error.js';
import type { WatchDriftNotification, WatchStatus } from '../../src/workspace/watch-loop.js';
import type { LoadedManifests } from '../../src/manifest/load-manifests.js';
import { heldByLiveProcess } from '../helpers/state.js';
import { BOOK_A, BOOK_B, bookParser, TestWorkspace } from '../helpers/workspace.js';

let h: EmulatorHarness;
beforeAll(async () => {
  h = await startTestEmulator({ generationDelayMs: 5 });
});
afterAll(async () => h.emulator.close());

const FIELDS = `  title: { description: Book title, selector: h1 }
  price: { description: Price including tax, type: number }
`;

/** Resolves once `check` holds, looking again every 20 ms (gives up after 20 s with what was seen). */
async function until<T>(what: string, check: () => T | undefined | false, seen: () => string): Promise<T> {
  for (let i = 0; i < 1000; i++) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${what} never happened; stderr so far:\n${seen()}`);
}

/** A fresh emulator account and workspace with the books parser applied: the workspace and the parser's id. */
async function convergedBooks(): Promise<{ ws: TestWorkspace; id: string }> {
  h.emulator.reset();
  const ws = await TestWorkspace.create(h);
  await ws.write({ 'books.yaml': bookParser(FIELDS) });
  await ws.converge();
  return { ws, id: String((await ws.state()).resources['parser.books']?.id) };
}

/** The address of the watch's /healthz and /metrics, once it says it. */
function endpointOf(stderr: () => string): Promise<string> {
  return until(
    'the endpoint',
    () => /and \/metrics on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr())?.[1],
    stderr,
  );
}

/** `watch manifests --interval 1s --heal --listen 127.0.0.1:0` with `extra` flags, over the workspace's state. */
function startWatch(ws: TestWorkspace, extra: string[], heal = true) {
  const child = spawn(
    process.execPath,
    [
      BUILT_CLI,
      'watch',
      'manifests',
      '--interval',
      '1s',
      ...(heal ? ['--heal'] : []),
      '--listen',
      '127.0.0.1:0',
      ...extra,
      '--state',
      ws.backend.location,
    ],
    { cwd: ws.dir, env: emulatorEnv(h.emulator.url, EMULATOR_KEY) },
  );
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, stderr: () => stderr, stdout: () => stdout, exited };
}

/** One run of a library watch that heals with no regeneration allowed: its status, notifications and events. */
async function healOnce(
  ws: TestWorkspace,
  manifests: LoadedManifests,
): Promise<{ status: WatchStatus; posted: WatchDriftNotification[]; events: string[] }> {
  const posted: WatchDriftNotification[] = [];
  const events: string[] = [];
  const status = await runWatch(
    { clients: ws.clients, backend: ws.backend, warnings: [], close: async () => undefined },
    {
      intervalMs: 60_000,
      maxRuns: 1,
      signal: new AbortController().signal,
      heal: { maxRegenerations: 0, loadManifests: async () => manifests },
      notifyUrl: 'http://127.0.0.1:9/never-called',
      fetch: async (_url, init) => {
        posted.push(JSON.parse(String(init?.body)) as WatchDriftNotification);
        return new Response(null, { status: 200 });
      },
      sleep: async () => undefined,
      onEvent: (e) => events.push(e.type),
    },
  );
  return { status, posted, events };
}

it('watch --interval 1s --heal: two runs around an out-of-band rename, /metrics, a notification, SIGTERM exits 0 with the lock released', async () => {
  const ws = await TestWorkspace.create(h);
  await ws.write({ 'books.yaml': bookParser(FIELDS) });
  await ws.converge();
  const id = String((await ws.state()).resources['parser.books']?.id);

  const notifications: { text: string; drift: { status: string }; heal?: { applied: string[] } }[] = [];
  const hook = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      notifications.push(JSON.parse(body) as (typeof notifications)[number]);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;

  const { child, stderr, stdout, exited } = startWatch(ws, ['--notify', hookUrl]);
  try {
    const endpoint = await endpointOf(stderr);
    await until(
      'a first run',
      () => stderr().includes('watch: no drift (1 managed)'),
      () => stderr(),
    );
    const health = await fetch(`${endpoint}/healthz`);
    expect([health.status, ((await health.json()) as { status: string }).status]).toEqual([200, 'ok']);

    await h.parsers.update(id, 0, { rename_fields: [{ name: 'price', new_name: 'cost' }] });
    const notified = await until(
      'a notification',
      () => notifications[0],
      () => stderr(),
    );
    expect(notified.drift.status).toBe('drift');
    expect(notified.text).toContain(
      'parser.books: version moved from 0 to 1 outside scrapeform: field price renamed to cost',
    );
    expect(notified.heal?.applied).toEqual(['parser.books']);
    await until(
      'the heal',
      () => stderr().includes('watch: healed parser.books; 0 regeneration(s)'),
      () => stderr(),
    );

    const metrics = await (await fetch(`${endpoint}/metrics`)).text();
    expect(metrics).toContain('# TYPE scrapeform_objects gauge\nscrapeform_objects 1\n');
    expect(metrics).toContain('scrapeform_drifted_objects 0\n');
    expect(metrics).toContain('scrapeform_heals_total 1\n');
    expect(metrics).toContain('scrapeform_credits_spent_total 0\n');
    expect(metrics).toContain('scrapeform_failures_total 0\n');
    expect(metrics).toMatch(/scrapeform_runs_total [2-9]\d*\n/);
    expect(metrics).toMatch(/scrapeform_last_run_timestamp_seconds \d{10}\n/);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  } finally {
    child.kill('SIGKILL');
    await new Promise<void>((resolve) => hook.close(() => resolve()));
  }
  expect(stdout()).toBe('');
  expect(stderr()).toContain('watch: stopping');
  await expect(access(`${ws.backend.location}.lock`)).rejects.toThrow();
  // Renamed back by one rename-only PATCH: version 2, no regeneration.
  const details = await h.parsers.get(id);
  expect([details.version, details.fields.map((f) => f.name)]).toEqual([2, ['title', 'price']]);
  expect((await ws.state()).resources['parser.books']).toMatchObject({ version: 2 });
  expect(path.isAbsolute(ws.backend.location)).toBe(true);
});

it('watch --heal --env --var-file heals with the values of that environment and var file, not the defaults', async () => {
  const ws = await TestWorkspace.create(h);
  await ws.write({
    'crawl.yaml': `kind: Project
name: nightly-pages
projectType: urls
projectInput: { type: list, list: ['\${var.shop}/catalogue/page-1.html'] }
scrapingInterval: daily
notificationConfig: { notifyOnSuccess: never, notifyOnFailure: with_every_run }
`,
  });
  await writeFile(
    path.join(ws.dir, 'scrapeform.yaml'),
    'kind: Config\nvariables:\n  shop: { type: string, default: https://staging.books.example }\nenvironments:\n  prod: {}\n',
  );
  await writeFile(path.join(ws.dir, 'prod.yaml'), 'shop: https://books.example\n');
  const flags = ['--env', 'prod', '--var-file', 'prod.yaml'];
  const applied = await runBuiltCli(
    ['apply', ...flags, '--auto-approve', 'manifests', '--state', ws.backend.location],
    { cwd: ws.dir, env: emulatorEnv(h.emulator.url, EMULATOR_KEY) },
  );
  expect(applied.stderr).not.toContain('error');
  const id = Number((await ws.state()).resources['project.nightly-pages']?.id);
  await h.raw('PATCH', `/api/projects/${id}?api_key=${EMULATOR_KEY}`, { scrapingInterval: 'weekly' });

  const { child, stderr, exited } = startWatch(ws, flags);
  try {
    await until(
      'the heal',
      () => stderr().includes('watch: healed project.nightly-pages'),
      () => stderr(),
    );
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  } finally {
    child.kill('SIGKILL');
  }
  expect(stderr()).not.toContain('error');
  const live = await h.projects.get(id);
  expect([live.scrapingInterval, live.projectInput]).toEqual([
    'daily',
    { type: 'list', list: ['https://books.example/catalogue/page-1.html'] },
  ]);
});

it('watch --heal waiting for a lock another run holds stops on SIGTERM, not after --lock-timeout', async () => {
  const ws = await TestWorkspace.create(h);
  await ws.write({ 'books.yaml': bookParser(FIELDS) });
  await ws.converge();
  const id = String((await ws.state()).resources['parser.books']?.id);
  // Held by a live process of this machine (this one): not stale, so the heal waits for it.
  await writeFile(`${ws.backend.location}.lock`, JSON.stringify(heldByLiveProcess()));
  await h.parsers.update(id, 0, { rename_fields: [{ name: 'price', new_name: 'cost' }] });
  const { child, stderr, exited } = startWatch(ws, ['--lock-timeout', '5m']);
  try {
    await until(
      'the wait for the lock',
      () => stderr().includes('waiting for the state lock held by ci@elsewhere'),
      () => stderr(),
    );
    child.kill('SIGTERM');
    // Before, it waited out the five minutes: this test's own timeout fails it.
    expect(await exited).toBe(0);
    expect(stderr()).toContain('watch: stopping');
  } finally {
    child.kill('SIGKILL');
  }
}, 30_000);

it('runWatch (library): a heal that needs a regeneration beyond the budget is skipped and said so; fetch and sleep injected', async () => {
  const { ws, id } = await convergedBooks();
  await h.parsers.update(id, 0, { remove_fields: ['price'] });
  const manifests = await loadManifests({ paths: [path.join(ws.dir, 'manifests')], env: {} });
  const { status, posted, events } = await healOnce(ws, manifests);
  expect(events).toEqual(['checked', 'heal-skipped', 'notified']);
  expect(status).toMatchObject({ objects: 1, drifted: 1, runs: 1, failures: 0, heals: 0, creditsSpent: 0 });
  expect(posted[0]?.heal?.skipped).toContain('regenerate');
  expect(posted[0]?.text).toContain('Not healed:');
  expect((await h.parsers.get(id)).version).toBe(1);
});

it('runWatch (library): a check that starts failing is notified once, and the first run that works again says so', async () => {
  const { ws } = await convergedBooks();
  const manifests = await loadManifests({ paths: [path.join(ws.dir, 'manifests')], env: {} });
  const posted: Record<string, unknown>[] = [];
  let runs = 0;
  const status = await runWatch(
    { clients: ws.clients, backend: ws.backend, warnings: [], close: async () => undefined },
    {
      intervalMs: 900_000,
      maxRuns: 5,
      signal: new AbortController().signal,
      // Runs 2 and 3 fail (a bad commit in the checkout, a key revoked: the check cannot run); 1, 4 and 5 work.
      reloadManifests: async () => {
        runs++;
        if (runs === 2 || runs === 3) throw new Error(`manifests/books.yaml:3:1 broken in run ${runs}`);
        return manifests;
      },
      notifyUrl: 'http://127.0.0.1:9/never-called',
      fetch: async (_url, init) => {
        posted.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
        return new Response(null, { status: 200 });
      },
      sleep: async () => undefined,
    },
  );
  expect(status).toMatchObject({ runs: 5, failures: 2, lastRunOk: true });
  // Run 1 finds no drift (nothing to say); run 2 starts failing; run 3 fails again (said already); run 4 works
  // again (said, with the drift it reads: none); run 5 is as run 4.
  expect(posted).toEqual([
    {
      text: 'scrapeform watch: the drift check failed: manifests/books.yaml:3:1 broken in run 2\nNo drift can be seen until it works again; the next run is in 15m 00s.',
      failing: { error: 'manifests/books.yaml:3:1 broken in run 2' },
    },
    expect.objectContaining({
      recovered: { failures: 2 },
      drift: expect.objectContaining({ status: 'no_drift' }),
    }),
  ]);
  expect(String(posted[1]?.text)).toMatch(
    /^scrapeform watch: the drift check works again \(after 2 failed runs\)\.\n/,
  );
});

it('runWatch (library): a heal refused for an adoption is skipped, not a failed run; a stop ends a notification that hangs', async () => {
  const { ws, id } = await convergedBooks();
  // A live parser no state manages, now declared as it is: the heal's plan adopts it, which needs --allow-adopt.
  // (With other urls it would be a replace: destructive, so left out of the heal and the rest healed.)
  await h.parsers.create({
    name: 'books-extra',
    urls: [BOOK_A, BOOK_B],
    fields: [
      { name: 'title', description: 'Book title', selector: 'h1' },
      { name: 'price', description: 'Price including tax', type: 'number' },
    ],
  });
  await ws.write({
    'books.yaml': bookParser(FIELDS),
    'extra.yaml': bookParser(FIELDS).replace('name: books', 'name: books-extra'),
  });
  await h.parsers.update(id, 0, { rename_fields: [{ name: 'price', new_name: 'cost' }] });
  const manifests = await loadManifests({ paths: [path.join(ws.dir, 'manifests')], env: {} });
  const events: string[] = [];
  const stop = new AbortController();
  const status = await runWatch(
    { clients: ws.clients, backend: ws.backend, warnings: [], close: async () => undefined },
    {
      intervalMs: 60_000,
      maxRuns: 1,
      signal: stop.signal,
      heal: { maxRegenerations: 0, loadManifests: async () => manifests },
      notifyUrl: 'http://127.0.0.1:9/hangs',
      // An endpoint that never answers: only the stop ends the post.
      fetch: (_url, init) =>
        new Promise((_resolve, reject) => {
          init?.signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
          setTimeout(() => stop.abort(), 50);
        }),
      sleep: async () => undefined,
      onEvent: (e) => events.push(e.type === 'failed' ? String(e.error) : e.type),
    },
  );
  // Before, the post waited out its 10 s timeout: this test's own timeout fails it.
  expect(events).toEqual(['checked', 'heal-skipped', 'notify-failed']);
  expect(status).toMatchObject({ runs: 1, failures: 0, heals: 0 });
  expect((await h.parsers.get(id)).fields.map((f) => f.name)).toContain('cost');
}, 5_000);

it('watch --heal with deletes pending besides a rename by hand: the rename is healed, the deletes are left, reported and not sent', async () => {
  h.emulator.reset();
  const ws = await TestWorkspace.create(h);
  const named = (name: string): string => bookParser(FIELDS).replace('name: books', `name: ${name}`);
  await ws.write({
    'cat-gb.yaml': named('cat-gb'),
    'hand-1.yaml': named('hand-1'),
    'hand-2.yaml': named('hand-2'),
  });
  await ws.converge();
  const ids = (await ws.state()).resources;
  const catId = String(ids['parser.cat-gb']?.id);
  // The two manifests are removed (the plan deletes their parsers), and a field of the third is renamed by hand.
  await ws.write({ 'cat-gb.yaml': named('cat-gb') });
  await h.parsers.update(catId, 0, { rename_fields: [{ name: 'price', new_name: 'cost' }] });

  const { child, stderr, stdout, exited } = startWatch(ws, []);
  try {
    const endpoint = await endpointOf(stderr);
    await until(
      'the heal',
      () => stderr().includes('watch: healed parser.cat-gb; 0 regeneration(s)'),
      () => stderr(),
    );
    const health = (await (await fetch(`${endpoint}/healthz`)).json()) as Record<string, unknown>;
    expect(health.not_healed).toEqual([
      { address: 'parser.hand-1', action: 'delete' },
      { address: 'parser.hand-2', action: 'delete' },
    ]);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  } finally {
    child.kill('SIGKILL');
  }
  expect(stdout()).toBe('');
  expect(stderr()).toContain(
    'watch: not healed, destructive (apply --allow-destroy makes them): parser.hand-1 (delete), parser.hand-2 (delete)',
  );
  expect(stderr()).not.toContain('not applied');
  // Renamed back by a free PATCH; the parsers the plan deletes are still there.
  expect((await h.parsers.get(catId)).fields.map((f) => f.name)).toEqual(['title', 'price']);
  for (const address of ['parser.hand-1', 'parser.hand-2'])
    expect((await h.parsers.get(String(ids[address]?.id))).name).toBe(address.slice('parser.'.length));
  const next = await ws.plan();
  expect(next.resource_changes.map((c) => [c.address, c.action])).toEqual([
    ['parser.hand-1', 'delete'],
    ['parser.hand-2', 'delete'],
  ]);
});

/**
 * A converged workspace with a field removed by hand (a heal adds it back: one regeneration), its manifests, and a
 * parsers client whose PATCH lands and then ends as `landed` says (its answer, or a throw).
 */
async function fieldRemovedByHand(
  landed: (answer: Awaited<ReturnType<EmulatorHarness['parsers']['update']>>, id: string) => Promise<unknown>,
): Promise<{
  ws: TestWorkspace;
  manifests: LoadedManifests;
  parsers: EmulatorHarness['parsers'];
  patched: () => boolean;
}> {
  const { ws, id } = await convergedBooks();
  await h.parsers.update(id, 0, { remove_fields: ['price'] });
  const manifests = await loadManifests({ paths: [path.join(ws.dir, 'manifests')], env: {} });
  let patched = false;
  const parsers = new Proxy(h.parsers, {
    get: (target, key) =>
      key === 'update'
        ? async (...args: Parameters<typeof target.update>) => {
            const answer = await target.update(...args);
            patched = true;
            return landed(answer, id);
          }
        : (Reflect.get(target, key, target) as unknown),
  });
  return { ws, manifests, parsers, patched: () => patched };
}

it('runWatch (library): a regeneration a heal started is taken from the budget also when the apply then fails (a state write)', async () => {
  // Every state write fails once the heal's PATCH is answered: the apply throws after its generation started.
  const { ws, manifests, parsers, patched } = await fieldRemovedByHand(async (answer) => answer);
  const backend = new Proxy(ws.backend, {
    get: (target, key) => {
      if (key === 'write' && patched()) return async () => Promise.reject(new Error('disk full'));
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
    },
  });
  const events: string[] = [];
  const status = await runWatch(
    { clients: { ...ws.clients, parsers }, backend, warnings: [], close: async () => undefined },
    {
      intervalMs: 60_000,
      maxRuns: 1,
      signal: new AbortController().signal,
      heal: { maxRegenerations: 1, loadManifests: async () => manifests },
      sleep: async () => undefined,
      pollMinMs: 5,
      pollMaxMs: 20,
      onEvent: (e) => events.push(e.type),
    },
  );
  expect(patched()).toBe(true);
  expect(events).toEqual(['checked', 'failed']);
  expect(status).toMatchObject({ failures: 1, regenerationsLeft: 0, creditsSpent: 30_000 });
});

it('runWatch (library): a PATCH whose answer was lost is taken from the budget: its generation may have started', async () => {
  // The heal's PATCH lands (the generation starts) and its answer is lost on the way back.
  const { ws, manifests, parsers, patched } = await fieldRemovedByHand(async (_answer, id) => {
    throw new ApiError({
      code: 'api.network',
      status: 0,
      method: 'PATCH',
      url: `${h.emulator.url}/parsers/${id}/1`,
      retryable: false,
      secrets: [],
      cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
    });
  });
  const status = await runWatch(
    { clients: { ...ws.clients, parsers }, backend: ws.backend, warnings: [], close: async () => undefined },
    {
      intervalMs: 60_000,
      maxRuns: 1,
      signal: new AbortController().signal,
      heal: { maxRegenerations: 1, loadManifests: async () => manifests },
      sleep: async () => undefined,
    },
  );
  expect(patched()).toBe(true);
  // Before, the budget was left whole (1) and nothing counted as spent: the next heal could start another.
  expect(status).toMatchObject({ heals: 1, regenerationsLeft: 0, creditsSpent: 30_000 });
});

it('runWatch (library): the notification of a heal says which deletes it left', async () => {
  h.emulator.reset();
  const ws = await TestWorkspace.create(h);
  const named = (name: string): string => bookParser(FIELDS).replace('name: books', `name: ${name}`);
  await ws.write({ 'books.yaml': bookParser(FIELDS), 'hand-1.yaml': named('hand-1') });
  await ws.converge();
  const id = String((await ws.state()).resources['parser.books']?.id);
  await ws.write({ 'books.yaml': bookParser(FIELDS) });
  await h.parsers.update(id, 0, { rename_fields: [{ name: 'price', new_name: 'cost' }] });
  const manifests = await loadManifests({ paths: [path.join(ws.dir, 'manifests')], env: {} });
  const { status, posted, events } = await healOnce(ws, manifests);
  expect(events).toEqual(['checked', 'heal-left', 'healed', 'checked', 'notified']);
  expect(status).toMatchObject({
    drifted: 0,
    heals: 1,
    notHealed: [{ address: 'parser.hand-1', action: 'delete' }],
  });
  expect(posted[0]?.heal).toMatchObject({
    applied: ['parser.books'],
    left: [{ address: 'parser.hand-1', action: 'delete' }],
  });
  expect(posted[0]?.text).toContain('\nNot healed, destructive: parser.hand-1 (delete)');
  expect((await ws.plan()).resource_changes.map((c) => [c.address, c.action])).toEqual([
    ['parser.hand-1', 'delete'],
  ]);
});

it('runWatch (library) without heal reads the manifests again at every run: an ignore_changes added there counts from the next run', async () => {
  h.emulator.reset();
  const ws = await TestWorkspace.create(h);
  const project = `kind: Project
name: nightly
projectType: urls
projectInput: { type: list, list: ['${BOOK_A}'] }
scrapingInterval: daily
notificationConfig: { notifyOnSuccess: never, notifyOnFailure: with_every_run }
`;
  await ws.write({ 'nightly.yaml': project });
  await ws.converge();
  const id = Number((await ws.state()).resources['project.nightly']?.id);
  await h.raw('PATCH', `/api/projects/${id}?api_key=${EMULATOR_KEY}`, { scrapingInterval: 'weekly' });
  const folder = path.join(ws.dir, 'manifests');
  let reads = 0;
  const drifted: number[] = [];
  const status = await runWatch(
    { clients: ws.clients, backend: ws.backend, warnings: [], close: async () => undefined },
    {
      intervalMs: 60_000,
      maxRuns: 2,
      signal: new AbortController().signal,
      reloadManifests: async () => {
        reads++;
        // Between the two runs, the checkout moves on: the schedule is left to the service from now on.
        if (reads === 2)
          await writeFile(
            path.join(folder, 'nightly.yaml'),
            `${project}lifecycle: { ignore_changes: [scrapingInterval] }\n`,
          );
        return loadManifests({ paths: [folder], env: {} });
      },
      sleep: async () => undefined,
      onEvent: (e) => {
        if (e.type === 'checked') drifted.push(e.report.drift.length);
      },
    },
  );
  expect(reads).toBe(2);
  expect(drifted).toEqual([1, 0]);
  expect(status).toMatchObject({ runs: 2, failures: 0 });
});

it('watch without --heal: manifests that turn invalid are reported with their place, and the check goes on with the last valid ones', async () => {
  h.emulator.reset();
  const ws = await TestWorkspace.create(h);
  await ws.write({ 'books.yaml': bookParser(FIELDS) });
  await ws.converge();
  const { child, stderr, exited } = startWatch(ws, [], false);
  try {
    const endpoint = await endpointOf(stderr);
    await until(
      'a first run',
      () => stderr().includes('watch: no drift (1 managed)'),
      () => stderr(),
    );
    const file = path.join(ws.dir, 'manifests', 'books.yaml');
    await writeFile(file, bookParser(FIELDS).replace('  title:', '  title:\n    descriptio: oops\n  other:'));
    await until(
      'the manifests reported',
      () => stderr().includes('watch: the manifests have errors; checking with the last valid ones: '),
      () => stderr(),
    );
    expect(stderr()).toMatch(/checking with the last valid ones: manifests\/books\.yaml:\d+:\d+ /);
    const runs = (stderr().match(/watch: no drift \(1 managed\)/g) ?? []).length;
    await until(
      'a run after it',
      () => (stderr().match(/watch: no drift \(1 managed\)/g) ?? []).length > runs,
      () => stderr(),
    );
    expect((await fetch(`${endpoint}/healthz`)).status).toBe(200);
  } finally {
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }
}, 30_000);
