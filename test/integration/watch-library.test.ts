import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { loadManifests } from '../../src/manifest/load-manifests.js';
import { newWatchStatus, runWatch } from '../../src/workspace/watch-loop.js';
import type { LeftChange } from '../../src/workspace/heal-selection.js';
import { renderMetrics } from '../../src/output/render-metrics.js';
import { ApiError } from '../../src/api/api-error.js';
import type { WatchDriftNotification, WatchStatus } from '../../src/workspace/watch-loop.js';
import type { LoadedManifests } from '../../src/manifest/load-manifests.js';
import { BOOK_FIELDS, convergedBooks } from '../helpers/converged-books.js';
import { BOOK_A, BOOK_B, bookParser, TestWorkspace } from '../helpers/workspace.js';
import { FileStateBackend } from '../../src/state/file-backend.js';
/** The watch loop as a library (runWatch): heals, budgets, notifications, with fetch and sleep injected. */

let h: EmulatorHarness;
beforeAll(async () => {
  h = await startTestEmulator({ generationDelayMs: 5 });
});
afterAll(async () => h.emulator.close());

/**
 * `runs` runs (one by default) of a library watch that heals with no regeneration allowed (or `maxRegenerations`),
 * through the clients of the workspace or those given: its status, notifications and events.
 */
async function watchHeal(
  ws: TestWorkspace,
  manifests: LoadedManifests,
  runs = 1,
  clients = ws.clients,
  maxRegenerations = 0,
): Promise<{ status: WatchStatus; posted: WatchDriftNotification[]; events: string[] }> {
  const posted: WatchDriftNotification[] = [];
  const events: string[] = [];
  const status = await runWatch(
    { clients, backend: ws.backend, warnings: [], close: async () => undefined },
    {
      intervalMs: 60_000,
      maxRuns: runs,
      signal: new AbortController().signal,
      heal: { maxRegenerations, loadManifests: async () => manifests },
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

/**
 * `maxRuns` runs of a library watch without heal that notifies, each failing with the error `failure` gives for its
 * number (the manifests could not be read), or working when it gives none: its status and notifications.
 */
async function watchFailing(
  ws: TestWorkspace,
  maxRuns: number,
  failure: (run: number) => string | undefined,
): Promise<{ status: WatchStatus; posted: Record<string, unknown>[] }> {
  const manifests = await loadManifests({ paths: [path.join(ws.dir, 'manifests')], env: {} });
  const posted: Record<string, unknown>[] = [];
  let runs = 0;
  const status = await runWatch(
    { clients: ws.clients, backend: ws.backend, warnings: [], close: async () => undefined },
    {
      intervalMs: 900_000,
      maxRuns,
      signal: new AbortController().signal,
      reloadManifests: async () => {
        const error = failure(++runs);
        if (error !== undefined) throw new Error(error);
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
  return { status, posted };
}

it('runWatch (library): a regeneration beyond the budget is left out and said so, and the free heal beside it is made; fetch and sleep injected', async () => {
  const { ws, id } = await convergedBooks(h);
  await ws.write({
    'books.yaml': bookParser(BOOK_FIELDS),
    'ign.yaml': `kind: Project\nname: ign\nprojectType: urls\nprojectInput: { type: list, list: ['${BOOK_A}'] }\noutput_format: JSON\n`,
  });
  await ws.converge();
  const project = Number((await ws.state()).resources['project.ign']?.id);
  // Reverting the removed field needs an add (a regeneration, beyond the budget of 0); the project, a free PATCH.
  await h.parsers.update(id, 0, { remove_fields: ['price'] });
  await h.projects.update(project, { output_format: 'CSV' });
  const manifests = await loadManifests({ paths: [path.join(ws.dir, 'manifests')], env: {} });
  const { status, posted, events } = await watchHeal(ws, manifests, 2);
  const left = [
    { address: 'parser.books', action: 'update', reason: 'regeneration-budget', credits: 30_000 },
  ];
  // Run 2 finds the parser's drift alone, as run 1 left it: nothing new to post.
  expect(events).toEqual([
    'checked',
    'heal-left',
    'healed',
    'checked',
    'notified',
    'checked',
    'heal-left',
    'healed',
  ]);
  expect(status).toMatchObject({
    objects: 2,
    drifted: 1,
    runs: 2,
    failures: 0,
    heals: 1,
    creditsSpent: 0,
    regenerationsLeft: 0,
    notHealed: left,
  });
  expect(posted).toHaveLength(1);
  expect(posted[0]?.heal).toEqual({
    applied: ['project.ign'],
    failed: [],
    left,
    regenerations: 0,
    credits: 0,
  });
  expect(String(posted[0]?.text).split('\n').slice(-2)).toEqual([
    'Healed: project.ign (0 credits)',
    'Not healed, beyond the regeneration budget (--max-regenerations): parser.books (update, ~30,000 credits)',
  ]);
  expect((await h.projects.get(project)).output_format).toBe('JSON');
  expect((await h.parsers.get(id)).version).toBe(1);
});

it('runWatch (library): with a budget for some of the regenerations, those first in plan order are made and the rest left', async () => {
  h.emulator.reset();
  const ws = await TestWorkspace.create(h);
  const named = (name: string): string => bookParser(BOOK_FIELDS).replace('name: books', `name: ${name}`);
  await ws.write({ 'books.yaml': named('books'), 'cat-gb.yaml': named('cat-gb') });
  await ws.converge();
  const ids = (await ws.state()).resources;
  for (const address of ['parser.books', 'parser.cat-gb'])
    await h.parsers.update(String(ids[address]?.id), 0, { remove_fields: ['price'] });
  const manifests = await loadManifests({ paths: [path.join(ws.dir, 'manifests')], env: {} });
  const { status, posted } = await watchHeal(ws, manifests, 2, ws.clients, 1);
  const left = [
    { address: 'parser.cat-gb', action: 'update', reason: 'regeneration-budget', credits: 30_000 },
  ];
  expect(status).toMatchObject({
    drifted: 1,
    heals: 1,
    creditsSpent: 30_000,
    regenerationsLeft: 0,
    notHealed: left,
  });
  expect(posted[0]?.heal).toEqual({
    applied: ['parser.books'],
    failed: [],
    left,
    regenerations: 1,
    credits: 30_000,
  });
  expect(String(posted[0]?.text)).toContain(
    '\nNot healed, beyond the regeneration budget (--max-regenerations): parser.cat-gb (update, ~30,000 credits)',
  );
  expect((await ws.plan()).resource_changes.map((c) => [c.address, c.action])).toEqual([
    ['parser.cat-gb', 'update'],
  ]);
});

it('runWatch (library): a check that starts failing is notified once, and the first run that works again says so', async () => {
  const { ws } = await convergedBooks(h);
  // Runs 2 and 3 fail (a bad commit in the checkout, a key revoked: the check cannot run); 1, 4 and 5 work.
  const { status, posted } = await watchFailing(ws, 5, (run) =>
    run === 2 || run === 3 ? `manifests/books.yaml:3:1 broken in run ${run}` : undefined,
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

it('runWatch (library): an adoption that needs consent is left out of a heal, the rest healed; a stop ends a notification that hangs', async () => {
  const { ws, id } = await convergedBooks(h);
  // A live parser no state manages, now declared as it is: the heal's plan adopts it, which needs --allow-adopt.
  // Left out (reason adopts), as a replace would be as destructive: before, the apply refused it and the free heal
  // beside it (a rename back) was not made either.
  await h.parsers.create({
    name: 'books-extra',
    urls: [BOOK_A, BOOK_B],
    fields: [
      { name: 'title', description: 'Book title', selector: 'h1' },
      { name: 'price', description: 'Price including tax', type: 'number' },
    ],
  });
  await ws.write({
    'books.yaml': bookParser(BOOK_FIELDS),
    'extra.yaml': bookParser(BOOK_FIELDS).replace('name: books', 'name: books-extra'),
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
  expect(events).toEqual(['checked', 'heal-left', 'healed', 'checked', 'notify-failed']);
  expect(status).toMatchObject({
    runs: 1,
    failures: 0,
    heals: 1,
    notHealed: [{ address: 'parser.books-extra', action: 'adopt', reason: 'adopts' }],
  });
  expect((await h.parsers.get(id)).fields.map((f) => f.name)).toContain('price');
}, 5_000);

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
  const { ws, id } = await convergedBooks(h);
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

/** One run of a library watch that heals with a budget of one regeneration, through the parsers client given. */
async function healWithBudgetOfOne(
  healed: Pick<Awaited<ReturnType<typeof fieldRemovedByHand>>, 'ws' | 'manifests' | 'parsers'>,
): Promise<WatchStatus> {
  const { ws, manifests, parsers } = healed;
  return runWatch(
    { clients: { ...ws.clients, parsers }, backend: ws.backend, warnings: [], close: async () => undefined },
    {
      intervalMs: 60_000,
      maxRuns: 1,
      signal: new AbortController().signal,
      heal: { maxRegenerations: 1, loadManifests: async () => manifests },
      sleep: async () => undefined,
    },
  );
}

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
  const status = await healWithBudgetOfOne({ ws, manifests, parsers });
  expect(patched()).toBe(true);
  // Before, the budget was left whole (1) and nothing counted as spent: the next heal could start another.
  expect(status).toMatchObject({ heals: 1, regenerationsLeft: 0, creditsSpent: 30_000 });
});

it('runWatch (library): a PATCH answered 202 with a body that cannot be read is taken from the budget: it landed', async () => {
  // The heal's PATCH lands and the service says so (202), but its body is not the {id, version} expected.
  const { ws, manifests, parsers, patched } = await fieldRemovedByHand(async (_answer, id) => {
    throw new ApiError({
      code: 'api.bad-response',
      status: 202,
      method: 'PATCH',
      url: `${h.emulator.url}/parsers/${id}/1`,
      body: '<html>Accepted</html>',
      retryable: false,
      secrets: [],
      message: 'unexpected response from PATCH: field (body): Invalid input',
    });
  });
  const status = await healWithBudgetOfOne({ ws, manifests, parsers });
  expect(patched()).toBe(true);
  // Before, the budget was left whole (1): the next heal could start another generation.
  expect(status).toMatchObject({ heals: 1, regenerationsLeft: 0, creditsSpent: 30_000 });
});

/**
 * parser.books applied and then renamed by hand (drift a heal reverts), and parser.hand-1 applied and then dropped
 * from the manifests: a delete, which a heal leaves (destructive).
 */
async function renamedByHandWithADeleteLeft(): Promise<{ ws: TestWorkspace; manifests: LoadedManifests }> {
  h.emulator.reset();
  const ws = await TestWorkspace.create(h);
  const named = (name: string): string => bookParser(BOOK_FIELDS).replace('name: books', `name: ${name}`);
  await ws.write({ 'books.yaml': bookParser(BOOK_FIELDS), 'hand-1.yaml': named('hand-1') });
  await ws.converge();
  const id = String((await ws.state()).resources['parser.books']?.id);
  await ws.write({ 'books.yaml': bookParser(BOOK_FIELDS) });
  await h.parsers.update(id, 0, { rename_fields: [{ name: 'price', new_name: 'cost' }] });
  const manifests = await loadManifests({ paths: [path.join(ws.dir, 'manifests')], env: {} });
  return { ws, manifests };
}

it('runWatch (library): the notification of a heal says which deletes it left', async () => {
  const { ws, manifests } = await renamedByHandWithADeleteLeft();
  const { status, posted, events } = await watchHeal(ws, manifests);
  expect(events).toEqual(['checked', 'heal-left', 'healed', 'checked', 'notified']);
  expect(status).toMatchObject({
    drifted: 0,
    heals: 1,
    notHealed: [{ address: 'parser.hand-1', action: 'delete', reason: 'destructive' }],
  });
  expect(posted[0]?.heal).toMatchObject({
    applied: ['parser.books'],
    left: [{ address: 'parser.hand-1', action: 'delete', reason: 'destructive' }],
  });
  expect(posted[0]?.text).toContain('\nNot healed, destructive: parser.hand-1 (delete)');
  expect((await ws.plan()).resource_changes.map((c) => [c.address, c.action])).toEqual([
    ['parser.hand-1', 'delete'],
  ]);
});

it('runWatch (library): what a heal left stops showing in /healthz and /metrics once an apply made it, though no drift is left to heal', async () => {
  const { ws, manifests } = await renamedByHandWithADeleteLeft();
  const left: (LeftChange[] | undefined)[] = [];
  let reads = 0;
  const status = newWatchStatus({ heal: { maxRegenerations: 0 } });
  await runWatch(
    { clients: ws.clients, backend: ws.backend, warnings: [], close: async () => undefined },
    {
      intervalMs: 60_000,
      maxRuns: 3,
      signal: new AbortController().signal,
      heal: {
        maxRegenerations: 0,
        loadManifests: async () => {
          // Before run 3, someone's `apply --allow-destroy` makes the delete the heal of run 1 left.
          if (++reads === 3) await ws.converge();
          return manifests;
        },
      },
      sleep: async () => {
        left.push(status.notHealed);
      },
    },
    status,
  );
  const deleteLeft = [{ address: 'parser.hand-1', action: 'delete', reason: 'destructive' }];
  // Run 2 finds no drift, and the delete is still to make: still said.
  expect(left).toEqual([deleteLeft, deleteLeft]);
  // Before, run 3 still said the delete was left, made by then: /metrics kept a destructive change pending.
  expect(status).toMatchObject({ runs: 3, failures: 0, heals: 1, drifted: 0, notHealed: [] });
  expect(renderMetrics(status)).toContain('scrapeform_not_healed_changes{reason="destructive"} 0\n');
});

it('runWatch (library): with only changes a heal leaves out, no run takes the lock or applies; each still says what it left', async () => {
  h.emulator.reset();
  const ws = await TestWorkspace.create(h);
  const named = (name: string): string => bookParser(BOOK_FIELDS).replace('name: books', `name: ${name}`);
  await ws.write({ 'books.yaml': bookParser(BOOK_FIELDS), 'hand-1.yaml': named('hand-1') });
  await ws.converge();
  const id = String((await ws.state()).resources['parser.books']?.id);
  // A delete (destructive) and a field to add back (a regeneration, beyond the budget of 0): nothing a heal makes.
  await ws.write({ 'books.yaml': bookParser(BOOK_FIELDS) });
  await h.parsers.update(id, 0, { remove_fields: ['price'] });
  const manifests = await loadManifests({ paths: [path.join(ws.dir, 'manifests')], env: {} });
  const before = await ws.state();
  // Someone's `scrapeform apply` holds the lock all along: a run that took it would fail with state.locked.
  const other = await new FileStateBackend(ws.backend.location).lock('apply');
  try {
    const { status, posted, events } = await watchHeal(ws, manifests, 2);
    const left = [
      { address: 'parser.books', action: 'update', reason: 'regeneration-budget', credits: 30_000 },
      { address: 'parser.hand-1', action: 'delete', reason: 'destructive' },
    ];
    expect(events).toEqual(['checked', 'heal-left', 'healed', 'notified', 'checked', 'heal-left', 'healed']);
    expect(status).toMatchObject({
      runs: 2,
      failures: 0,
      heals: 0,
      drifted: 1,
      creditsSpent: 0,
      notHealed: left,
    });
    expect(status.lastError).toBeUndefined();
    expect(posted).toHaveLength(1);
    expect(posted[0]?.heal).toEqual({ applied: [], failed: [], left, regenerations: 0, credits: 0 });
    expect(String(posted[0]?.text).split('\n').slice(-2)).toEqual([
      'Not healed, destructive: parser.hand-1 (delete)',
      'Not healed, beyond the regeneration budget (--max-regenerations): parser.books (update, ~30,000 credits)',
    ]);
  } finally {
    await other.release();
  }
  expect((await ws.state()).serial).toBe(before.serial);
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

it('runWatch (library): a heal that applied something is notified also when the check after it fails', async () => {
  const { ws, id } = await convergedBooks(h);
  await h.parsers.update(id, 0, { rename_fields: [{ name: 'price', new_name: 'cost' }] });
  const manifests = await loadManifests({ paths: [path.join(ws.dir, 'manifests')], env: {} });
  // Once the heal is over, the next list (the check after it) meets a network failure.
  let healed = false;
  const parsers = new Proxy(ws.clients.parsers, {
    get: (target, key) =>
      key === 'list' && healed
        ? async () => {
            healed = false;
            throw new Error('socket hang up');
          }
        : (Reflect.get(target, key, target) as unknown),
  });
  const posted: Record<string, unknown>[] = [];
  const status = await runWatch(
    { clients: { ...ws.clients, parsers }, backend: ws.backend, warnings: [], close: async () => undefined },
    {
      intervalMs: 60_000,
      maxRuns: 1,
      signal: new AbortController().signal,
      heal: { maxRegenerations: 0, loadManifests: async () => manifests },
      notifyUrl: 'http://127.0.0.1:9/never-called',
      fetch: async (_url, init) => {
        posted.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
        return new Response(null, { status: 200 });
      },
      sleep: async () => undefined,
      onEvent: (e) => {
        if (e.type === 'healed') healed = true;
      },
    },
  );
  expect(status).toMatchObject({
    runs: 1,
    failures: 1,
    heals: 1,
    lastRunOk: false,
    lastError: 'socket hang up',
  });
  // Before, only the failure was posted: what the heal changed in the service was never told.
  expect(posted.map((p) => Object.keys(p).filter((k) => k !== 'text'))).toEqual([
    ['drift', 'heal'],
    ['failing'],
  ]);
  expect(posted[0]?.heal).toEqual({
    applied: ['parser.books'],
    failed: [],
    left: [],
    regenerations: 0,
    credits: 0,
  });
  expect(String(posted[0]?.text)).toContain('\nHealed: parser.books (0 credits)');
  expect((await h.parsers.get(id)).fields.map((f) => f.name)).toContain('price');
});

it('runWatch (library): names and errors in the notification text cannot mention anyone or hide a link in chat; the structured parts stay exact', async () => {
  const { ws, id } = await convergedBooks(h);
  const renamed = '<!channel> @channel <https://evil|click> & co';
  await h.parsers.update(id, 0, { rename_fields: [{ name: 'price', new_name: renamed }] });
  const error = 'key revoked by <@U123> in <#C123>, ask <!here> or @here';
  // Run 1 fails with an error quoting mentions (Slack's, and Mattermost's and Discord's plain @here); run 2 works again and finds the field renamed by hand.
  const { posted } = await watchFailing(ws, 2, (run) => (run === 1 ? error : undefined));
  expect(posted[0]).toEqual({
    text: 'scrapeform watch: the drift check failed: key revoked by &lt;@\u200bU123&gt; in &lt;#C123&gt;, ask &lt;!here&gt; or @\u200bhere\nNo drift can be seen until it works again; the next run is in 15m 00s.',
    failing: { error },
  });
  const shown = '&lt;!channel&gt; @\u200bchannel &lt;https://evil|click&gt; &amp; co';
  expect(String(posted[1]?.text).split('\n')).toEqual([
    'scrapeform watch: the drift check works again (after 1 failed run).',
    'scrapeform: 1 of 1 managed object changed outside scrapeform',
    `• parser.books: version moved from 0 to 1 outside scrapeform: field price renamed to ${shown}`,
    expect.stringMatching(/^Revert: /),
  ]);
  expect(posted[1]).toMatchObject({
    recovered: { failures: 1 },
    drift: { drift: [{ changes: [{ change: 'rename', from: 'price', to: renamed }] }] },
  });
});

it('runWatch (library): a heal the service refuses the same way at every run is notified once, not at every run', async () => {
  // The service keeps a paused project scheduled: its list and reads say schedulingEnabled true, and it answers every
  // PATCH so. Each run heals (a free PATCH) and fails the same way (apply.schedule-not-taken).
  const ws = await TestWorkspace.create(h);
  await ws.write({
    'paused.yaml': `kind: Project\nname: paused\nprojectType: urls\nprojectInput: { type: list, list: ['${BOOK_A}'] }\nschedulingEnabled: false\n`,
  });
  await ws.converge();
  const scheduled = <T extends { schedulingEnabled?: unknown }>(p: T): T => ({
    ...p,
    schedulingEnabled: true,
  });
  let patches = 0;
  const projects = new Proxy(h.projects, {
    get: (target, key) => {
      if (key === 'list') return async () => (await target.list()).map(scheduled);
      if (key === 'get') return async (id: number) => scheduled(await target.get(id));
      if (key === 'update')
        return async (...args: Parameters<typeof target.update>) => {
          patches++;
          const answer = await target.update(...args);
          return answer === undefined ? undefined : scheduled(answer);
        };
      return Reflect.get(target, key, target) as unknown;
    },
  });
  const manifests = await loadManifests({ paths: [path.join(ws.dir, 'manifests')], env: {} });
  const { status, posted } = await watchHeal(ws, manifests, 3, { ...ws.clients, projects });
  expect(patches).toBe(3);
  expect(status).toMatchObject({ runs: 3, failures: 3 });
  expect(posted).toHaveLength(1);
  expect(posted[0]?.heal?.failed[0]).toContain('not the schedule the manifest asks for');
});
