import { spawn } from 'node:child_process';
import { access, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUILT_CLI, emulatorEnv, runBuiltCli } from '../helpers/child-cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { heldByLiveProcess } from '../helpers/state.js';
import { BOOK_FIELDS } from '../helpers/converged-books.js';
import { bookParser, TestWorkspace } from '../helpers/workspace.js';

let h: EmulatorHarness;
beforeAll(async () => {
  h = await startTestEmulator({ generationDelayMs: 5 });
});
afterAll(async () => h.emulator.close());

/** Resolves once `check` holds, looking again every 20 ms (gives up after 20 s with what was seen). */
async function until<T>(what: string, check: () => T | undefined | false, seen: () => string): Promise<T> {
  for (let i = 0; i < 1000; i++) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${what} never happened; stderr so far:\n${seen()}`);
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

it('watch --interval 1s --heal: two runs around an out-of-band rename, /metrics, a notification, SIGTERM exits 0 with the lock released', async () => {
  const ws = await TestWorkspace.create(h);
  await ws.write({ 'books.yaml': bookParser(BOOK_FIELDS) });
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
  await ws.write({ 'books.yaml': bookParser(BOOK_FIELDS) });
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

it('watch --heal with deletes pending besides a rename by hand: the rename is healed, the deletes are left, reported and not sent', async () => {
  h.emulator.reset();
  const ws = await TestWorkspace.create(h);
  const named = (name: string): string => bookParser(BOOK_FIELDS).replace('name: books', `name: ${name}`);
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
      { address: 'parser.hand-1', action: 'delete', reason: 'destructive' },
      { address: 'parser.hand-2', action: 'delete', reason: 'destructive' },
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

it('watch --heal with a regeneration beyond the budget besides a project edited by hand: the project is healed, the parser left and said so in the log and /healthz', async () => {
  h.emulator.reset();
  const ws = await TestWorkspace.create(h);
  await ws.write({
    'cat-gb.yaml': bookParser(BOOK_FIELDS).replace('name: books', 'name: cat-gb'),
    'ign.yaml': `kind: Project\nname: ign\nprojectType: urls\nprojectInput: { type: list, list: ['https://books.example/catalogue/page-1.html'] }\noutput_format: JSON\n`,
  });
  await ws.converge();
  const ids = (await ws.state()).resources;
  const catId = String(ids['parser.cat-gb']?.id);
  const projectId = Number(ids['project.ign']?.id);
  // Putting price back needs an add (a regeneration; the budget is 0); putting the output format back, a free PATCH.
  await h.parsers.update(catId, 0, { remove_fields: ['price'] });
  await h.projects.update(projectId, { output_format: 'CSV' });

  const { child, stderr, stdout, exited } = startWatch(ws, []);
  try {
    const endpoint = await endpointOf(stderr);
    await until('the heal', () => stderr().includes('watch: healed project.ign; 0 regeneration(s)'), stderr);
    // /healthz counts the drift its last check found: the check of the run after the heal finds the parser alone.
    const runs = stderr().split('watch: drift in').length;
    await until('the check after the heal', () => stderr().split('watch: drift in').length > runs, stderr);
    const health = (await (await fetch(`${endpoint}/healthz`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ status: 'ok', drifted: 1 });
    expect(health.not_healed).toEqual([
      { address: 'parser.cat-gb', action: 'update', reason: 'regeneration-budget', credits: 30_000 },
    ]);
    const metrics = await (await fetch(`${endpoint}/metrics`)).text();
    expect(metrics).toContain(
      'scrapeform_not_healed_changes{reason="destructive"} 0\nscrapeform_not_healed_changes{reason="starts-runs"} 0\nscrapeform_not_healed_changes{reason="adopts"} 0\nscrapeform_not_healed_changes{reason="regeneration-budget"} 1\n',
    );
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  } finally {
    child.kill('SIGKILL');
  }
  expect(stdout()).toBe('');
  expect(stderr()).toContain(
    'watch: not healed, beyond the regeneration budget (--max-regenerations raises it): parser.cat-gb (update, ~30,000 credits)',
  );
  expect(stderr()).not.toContain('more than --max-regenerations');
  expect((await h.projects.get(projectId)).output_format).toBe('JSON');
  expect((await h.parsers.get(catId)).fields.map((f) => f.name)).toEqual(['title']);
});

it('watch without --heal: manifests that turn invalid are reported with their place, and the check goes on with the last valid ones', async () => {
  h.emulator.reset();
  const ws = await TestWorkspace.create(h);
  await ws.write({ 'books.yaml': bookParser(BOOK_FIELDS) });
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
    await writeFile(
      file,
      bookParser(BOOK_FIELDS).replace('  title:', '  title:\n    descriptio: oops\n  other:'),
    );
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
