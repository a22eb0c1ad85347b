import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { ParsersClient } from '../../src/api/parsers-client.js';
import { ProjectsClient } from '../../src/api/projects-client.js';
import { Transport } from '../../src/api/transport.js';
import type { QuirkName } from '../../src/emulator/quirks.js';
import type { EmulatorOptions } from '../../src/emulator/server.js';
import type { Plan } from '../../src/plan/model.js';
import { runScrapeform } from '../helpers/cli.js';
import { BUILT_CLI, emulatorEnv, runBuiltCli } from '../helpers/child-cli.js';
import type { ChildRun } from '../helpers/child-cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { until } from '../helpers/until.js';
import { BOOK_A, BOOK_B, bookParser, TestWorkspace } from '../helpers/workspace.js';

/**
 * Issue 13: each reading of the real services that the emulator can play as a quirk, run through plan and apply.
 * Every scenario checks the same four things: apply succeeds, a second plan is empty, the service holds exactly
 * the declared objects, and the credits spent are those of the regenerations the plan showed (none wasted).
 */
const FIELDS = `  title: { description: The book title }\n  price: { description: The price }\n`;
const PROJECT = (name: string, extra = ''): string =>
  `kind: Project\nname: ${name}\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/catalogue/page-1.html] }\nscrapingInterval: daily\nscheduledAt: "2099-01-01T00:00:00Z"\nlifecycle: { ignore_changes: [scheduledAt] }\n${extra}`;
const GENERATION = 30_000;

const harnesses: EmulatorHarness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) {
    await h.emulator.projects.idle();
    await h.emulator.close();
  }
});

async function start(
  quirks: QuirkName[],
  settings: EmulatorOptions['quirkSettings'] = {},
  options: EmulatorOptions = {},
): Promise<EmulatorHarness> {
  const h = await startTestEmulator({ quirks, quirkSettings: settings, ...options });
  harnesses.push(h);
  return h;
}

/** Clients that retry as scrapeform does by default (a 429 after its Retry-After), quickly. */
function retrying(h: EmulatorHarness, pipelineUrl = h.emulator.url): EmulatorHarness {
  const transport = new Transport({ apiKey: EMULATOR_KEY, retry: { maxRetries: 3, baseDelayMs: 10 } });
  return {
    ...h,
    parsers: new ParsersClient(transport, h.emulator.url),
    projects: new ProjectsClient(transport, pipelineUrl),
  };
}

function credits(h: EmulatorHarness): number {
  return h.emulator.accounts.list().find((a) => a.key === EMULATOR_KEY)?.credits ?? NaN;
}

/** Every object of the account, read by id where a lagging list would hide it. */
async function liveCounts(
  h: EmulatorHarness,
  ws: TestWorkspace,
): Promise<{ parsers: number; projects: number }> {
  const state = await ws.state();
  let parsers = 0;
  let projects = 0;
  for (const r of Object.values(state.resources)) {
    if (r.kind === 'Parser')
      parsers +=
        (await h.parsers.get(r.id, undefined, undefined, { version: r.version ?? 0 })).id === r.id ? 1 : 0;
    else projects += (await h.projects.get(r.id)).id === r.id ? 1 : 0;
  }
  // Nothing beyond what state records: the lists, once caught up, hold exactly these.
  h.emulator.clock.advance(3_600_000);
  expect((await h.parsers.list()).length).toBe(parsers);
  expect((await h.projects.list()).length).toBe(projects);
  return { parsers, projects };
}

/** Plan, apply, second plan empty, declared count live, and credits spent only on the plan's regenerations. */
async function convergeAndCount(
  h: EmulatorHarness,
  ws: TestWorkspace,
  declared: { parsers: number; projects: number },
): Promise<Plan> {
  const before = credits(h);
  const { plan } = await ws.converge();
  expect(before - credits(h)).toBe(plan.summary.regenerations * GENERATION);
  expect(await liveCounts(h, ws)).toEqual(declared);
  return plan;
}

function calls(h: EmulatorHarness, method: string, prefix: string): number {
  return h.emulator.requestLog.filter((e) => e.method === method && e.path.startsWith(prefix)).length;
}

describe('1. a list is not proof of absence (lagging-list)', () => {
  it('objects created a moment ago are found by id, not created again', async () => {
    const h = await start(['lagging-list'], { listLagMs: 600_000 });
    const ws = await TestWorkspace.create(h);
    await ws.write({ 'books.yaml': bookParser(FIELDS), 'nightly.yaml': PROJECT('nightly') });
    const plan = await ws.converge();
    expect(plan.plan.resource_changes.map((c) => c.action)).toEqual(['create', 'create']);
    // The lists are still empty: the second plan saw both by id.
    expect(await h.parsers.list()).toEqual([]);
    expect(calls(h, 'GET', '/parsers/')).toBeGreaterThan(0);
    expect(calls(h, 'POST', '/parsers')).toBe(1);
    expect(calls(h, 'POST', '/api/projects')).toBe(1);
  });

  it('converges and counts', async () => {
    const h = await start(['lagging-list'], { listLagMs: 600_000 });
    const ws = await TestWorkspace.create(h);
    await ws.write({ 'books.yaml': bookParser(FIELDS), 'nightly.yaml': PROJECT('nightly') });
    await convergeAndCount(h, ws, { parsers: 1, projects: 1 });
  });

  it('status reads a recorded object the list lacks by id, not as missing', async () => {
    const h = await start(['lagging-list'], { listLagMs: 600_000 });
    const ws = await TestWorkspace.create(h);
    await ws.write({ 'books.yaml': bookParser(FIELDS), 'nightly.yaml': PROJECT('nightly') });
    await ws.converge();
    const run = await runScrapeform(['status', '--json', '--state', ws.backend.location], {
      env: {
        SCRAPERAPI_API_KEY: EMULATOR_KEY,
        SCRAPEFORM_PARSER_URL: h.emulator.url,
        SCRAPEFORM_PIPELINE_URL: h.emulator.url,
      },
    });
    expect(run.code).toBe(0);
    const rows = JSON.parse(run.stdout) as { address: string; status: string; drift: boolean }[];
    expect(rows.map((r) => [r.address, r.status, r.drift])).toEqual([
      ['parser.books', 'FINISHED', false],
      ['project.nightly', 'scheduled', false],
    ]);
  });

  it('a 404 by id of an object seen since its create means gone: the plan says so in its drift and creates again', async () => {
    const h = await start(['lagging-list'], { listLagMs: 600_000 });
    const ws = await TestWorkspace.create(h);
    await ws.write({ 'books.yaml': bookParser(FIELDS), 'nightly.yaml': PROJECT('nightly') });
    await ws.converge();
    // The next apply reads both by id (the list still lags): seen since their create, so a 404 now means gone.
    await ws.applyChanges();
    const state = await ws.state();
    const parser = state.resources['parser.books'];
    const project = state.resources['project.nightly'];
    if (parser?.kind !== 'Parser' || project?.kind !== 'Project') throw new Error('not recorded');
    await h.parsers.delete(parser.id);
    await h.projects.archive(project.id);
    const plan = await ws.plan();
    expect(plan.drift.map((d) => d.message)).toEqual([
      `parser ${parser.id} was deleted outside scrapeform; it will be created again (new id)`,
      `project ${project.id} was archived or deleted outside scrapeform; it will be created again (new id)`,
    ]);
    expect(plan.resource_changes.map((c) => [c.address, c.action])).toEqual([
      ['parser.books', 'create'],
      ['project.nightly', 'create'],
    ]);
  });
  it('a create whose answer was lost is not sent again while the list lags: apply asks for --recreate, then recovers it', async () => {
    const h = await start(['lagging-list'], { listLagMs: 600_000 });
    const ws = await TestWorkspace.create(h);
    await ws.write({ 'books.yaml': bookParser(FIELDS) });
    const apply = (...extra: string[]): Promise<ChildRun> =>
      runBuiltCli(['apply', 'manifests', '--auto-approve', '--state', ws.backend.location, ...extra], {
        cwd: ws.dir,
        env: emulatorEnv(h.emulator.url, EMULATOR_KEY),
      });
    const before = credits(h);
    // The service acts, then holds its answer past the client's timeout: the POST landed, nothing says so.
    h.emulator.setFaults({ responseDelayMs: 1500, responseDelayMethods: ['POST'] });
    const first = await apply('--timeout', '300ms');
    expect(first.code).toBe(1);
    expect(first.stderr).toContain('the create of "books" got no clear answer');
    h.emulator.setFaults({ responseDelayMs: 0 });
    // The emulator logs the POST when its held answer goes out.
    await until('the held answer to the POST went out', () => calls(h, 'POST', '/parsers') > 0);
    expect(calls(h, 'POST', '/parsers')).toBe(1);
    expect((await ws.state()).intents?.['parser.books']?.unconfirmed).toMatch(/^\d{4}-\d\d-\d\dT/);

    // A minute later the list still lags: the create is not sent again, and the refusal says what to do.
    h.emulator.clock.advance(60_000);
    const second = await apply();
    expect(second.code).toBe(3);
    expect(second.stdout).toContain('# unconfirmed create: the create sent at ');
    expect(second.stderr).toContain(
      'error: not applied: the plan sends again a create an earlier apply sent and could not confirm, which no list shows yet (parser.books); nothing was sent',
    );
    expect(second.stderr).toContain('pass --recreate parser.books');
    expect(calls(h, 'POST', '/parsers')).toBe(1);

    // Once the list shows it, it is recovered as ours: still one POST, one generation paid, nothing left to do.
    h.emulator.clock.advance(600_000);
    const third = await apply();
    expect(third.code).toBe(0);
    expect(calls(h, 'POST', '/parsers')).toBe(1);
    expect((await ws.state()).intents).toBeUndefined();
    expect(before - credits(h)).toBe(GENERATION);
    expect((await h.parsers.list()).map((p) => p.name)).toEqual(['books']);
    const plan = await runBuiltCli(
      ['plan', 'manifests', '--detailed-exitcode', '--state', ws.backend.location],
      {
        cwd: ws.dir,
        env: emulatorEnv(h.emulator.url, EMULATOR_KEY),
      },
    );
    expect(plan.code).toBe(0);
  }, 30_000);

  it('--recreate sends such a create again, for the address it names only', async () => {
    const h = await start(['lagging-list'], { listLagMs: 600_000 });
    const ws = await TestWorkspace.create(h);
    await ws.write({ 'books.yaml': bookParser(FIELDS), 'nightly.yaml': PROJECT('nightly') });
    const apply = (...extra: string[]): Promise<ChildRun> =>
      runBuiltCli(['apply', 'manifests', '--auto-approve', '--state', ws.backend.location, ...extra], {
        cwd: ws.dir,
        env: emulatorEnv(h.emulator.url, EMULATOR_KEY),
      });
    h.emulator.setFaults({ responseDelayMs: 1500, responseDelayMethods: ['POST'] });
    expect((await apply('--timeout', '300ms')).code).toBe(1);
    h.emulator.setFaults({ responseDelayMs: 0 });
    // A typo is an error, as for --target, not a refusal that names the right address.
    const typo = await apply('--recreate', 'parser.boks');
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain(
      'error: --recreate parser.boks: no manifest declares it and state does not manage it',
    );
    const refused = await apply('--recreate', 'parser.books');
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('which no list shows yet (project.nightly); nothing was sent');
    // Told so (here wrongly: both had landed), apply sends both again.
    const both = await apply('--recreate', 'parser.books', '--recreate', 'project.nightly');
    expect(both.code).toBe(0);
    expect(both.stderr).toContain('POST /parsers -> 201');
    expect(both.stderr).toContain('POST /api/projects -> 201');
    expect((await ws.state()).intents).toBeUndefined();
    expect(Object.keys((await ws.state()).resources).sort()).toEqual(['parser.books', 'project.nightly']);
    // And a second plan is empty: the first objects, made twice as told, are other objects of those names.
    const again = await runBuiltCli(
      ['plan', 'manifests', '--detailed-exitcode', '--state', ws.backend.location],
      {
        cwd: ws.dir,
        env: emulatorEnv(h.emulator.url, EMULATOR_KEY),
      },
    );
    expect(again.code, again.stdout + again.stderr).toBe(0);
  }, 30_000);
  it('a run killed after sending a create the list does not show yet: the next apply asks for --recreate, never a duplicate', async () => {
    const h = await start(['lagging-list'], { listLagMs: 600_000 });
    const ws = await TestWorkspace.create(h);
    await ws.write({ 'nightly.yaml': PROJECT('nightly') });
    const env = emulatorEnv(h.emulator.url, EMULATOR_KEY);
    const args = ['apply', 'manifests', '--auto-approve', '--state', ws.backend.location];
    // The service acts and holds its answer; the run is killed once its state says the POST went out.
    h.emulator.setFaults({ responseDelayMs: 5000, responseDelayMethods: ['POST'] });
    const child = spawn(process.execPath, [BUILT_CLI, ...args], { cwd: ws.dir, env, stdio: 'ignore' });
    const exited = new Promise((resolve) => child.on('close', resolve));
    try {
      // Or the run ended on its own (once the held answer came, its moment missed): no kill to test then.
      await until(
        'state says the POST went out',
        async () =>
          child.exitCode !== null ||
          (await readFile(ws.backend.location, 'utf8').catch(() => '')).includes('"sent"'),
      );
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    expect(child.exitCode, 'the apply ended on its own before the moment to kill it came').toBeNull();
    h.emulator.setFaults({ responseDelayMs: 0 });
    await h.emulator.projects.idle();
    const again = await runBuiltCli(args, { cwd: ws.dir, env });
    expect(again.code).toBe(3);
    expect(again.stderr).toContain('--recreate project.nightly');
    expect(h.emulator.projects.projects.size).toBe(1);
    // Once the list shows it, it is recovered: one project, and the second plan is empty.
    h.emulator.clock.advance(600_000);
    await convergeAndCount(h, ws, { parsers: 0, projects: 1 });
    expect(h.emulator.projects.projects.size).toBe(1);
  });

  it('a half-done replace whose parsers the list hides: the one it was replacing is read by id and deleted with it', async () => {
    const h = await start(['lagging-list'], { listLagMs: 600_000 });
    const ws = await TestWorkspace.create(h);
    await ws.write({ 'books.yaml': bookParser(FIELDS) });
    await ws.converge();
    const state = await ws.state();
    const old = state.resources['parser.books'];
    if (old?.kind !== 'Parser') throw new Error('not recorded');
    // As a replace killed while its new parser generated leaves state: the new parser recorded, the old one not
    // deleted yet. Both were made a moment ago, so the lagging list shows neither.
    const made = await h.parsers.create({ name: 'books', urls: [BOOK_A, BOOK_B] });
    await ws.backend.write({
      ...state,
      resources: {
        'parser.books': {
          ...old,
          id: made.id,
          version: null,
          definition: null,
          pending: {
            version: made.version,
            definition: old.definition ?? { urls: [], scraperParams: {}, fields: [] },
          },
          replacing: { oldId: old.id },
        },
      },
    });
    expect(await h.parsers.list()).toEqual([]);
    // Its manifest deleted: the plan deletes both, the old one read by id, not left live and forgotten.
    await ws.write({});
    const { plan } = await ws.converge();
    expect(plan.resource_changes).toMatchObject([{ action: 'delete', id: made.id, alsoDeletes: [old.id] }]);
    expect([...h.emulator.parsers.parsers.keys()]).toEqual([]);
  });
});

describe('1b. a list lagging behind a PATCH, and versions past a pending one (lagging-list, versionLagMs)', () => {
  const MORE = `${FIELDS}  availability: { description: Stock availability text }\n`;

  /** The books parser applied on an emulator whose list shows no version newer than the create's for 10 minutes. */
  async function convergedBehindPatches(
    quirks: QuirkName[],
  ): Promise<{ h: EmulatorHarness; ws: TestWorkspace }> {
    const h = await start(quirks, { listLagMs: 0, versionLagMs: 600_000 });
    const ws = await TestWorkspace.create(h);
    await ws.write({ 'books.yaml': bookParser(FIELDS) });
    await ws.converge();
    return { h, ws };
  }

  it('a PATCH whose version the list does not show yet (state pending from its 202) is not sent again', async () => {
    const { h, ws } = await convergedBehindPatches(['lagging-list']);
    const before = credits(h);
    await ws.write({ 'books.yaml': bookParser(MORE) });
    const plan = await ws.plan();
    expect(plan.summary.regenerations).toBe(1);
    await ws.applyChanges(plan, { noWait: true });
    expect((await ws.state()).resources['parser.books']).toMatchObject({
      version: 0,
      pending: { version: 1 },
    });
    // The list still shows version 0; the details, read by id, show version 1: it is ours.
    expect((await h.parsers.list()).map((p) => p.version)).toEqual([0]);
    await h.emulator.idle();
    await ws.converge();
    expect(calls(h, 'PATCH', '/parsers/')).toBe(1);
    expect(before - credits(h)).toBe(GENERATION);
    expect((await ws.state()).resources['parser.books']).toMatchObject({ version: 1 });
    expect((await ws.state()).resources['parser.books']).not.toHaveProperty('pending');
  });

  it('a PATCH that landed but whose answer was lost, the list still at its base: confirmed by id, not sent again', async () => {
    const { h, ws } = await convergedBehindPatches(['lagging-list']);
    const before = credits(h);
    await ws.write({ 'books.yaml': bookParser(MORE) });
    // The service acts, then holds its answer past the client's timeout.
    h.emulator.setFaults({ responseDelayMs: 1500, responseDelayMethods: ['PATCH'] });
    const lost = await runBuiltCli(
      ['apply', 'manifests', '--auto-approve', '--timeout', '300ms', '--state', ws.backend.location],
      { cwd: ws.dir, env: emulatorEnv(h.emulator.url, EMULATOR_KEY) },
    );
    expect(lost.code).toBe(1);
    h.emulator.setFaults({ responseDelayMs: 0 });
    // The emulator logs the PATCH when its held answer goes out.
    await until('the held answer to the PATCH went out', () => calls(h, 'PATCH', '/parsers/') > 0);
    await h.emulator.idle();
    const left = (await ws.state()).resources['parser.books'];
    expect(left).toMatchObject({ version: 0, patching: { from: 0 } });
    expect((await h.parsers.list()).map((p) => p.version)).toEqual([0]);
    const plan = await ws.plan();
    expect(plan.status).toBe('no_changes');
    expect(plan.warnings).toContain(
      "parser.books: version 1 was made by an apply whose PATCH got no answer; it is taken as that PATCH's, with the definition sent (its fields are the ones sent; not a change made outside scrapeform)",
    );
    await ws.converge();
    expect(calls(h, 'PATCH', '/parsers/')).toBe(1);
    expect(before - credits(h)).toBe(GENERATION);
    expect((await ws.state()).resources['parser.books']).toMatchObject({ version: 1 });
    // The intent said the PATCH went out: had no answer shown its version, it would not be sent again unasked.
    expect(left?.kind === 'Parser' ? left.patching?.sent : undefined).toMatch(/^\d{4}-\d\d-\d\dT/);
  }, 30_000);

  it('details without their version and a list behind a finished PATCH: no drift, the next PATCH based on the version seen', async () => {
    const { h, ws } = await convergedBehindPatches(['lagging-list', 'details-without-version']);
    await ws.write({ 'books.yaml': bookParser(FIELDS.replace('The price', 'The price with tax')) });
    await ws.converge();
    expect((await ws.state()).resources['parser.books']).toMatchObject({ version: 1 });
    // The list still says 0, and the latest details say no version: version 1 is read by its number.
    expect((await h.parsers.list()).map((p) => p.version)).toEqual([0]);
    const steady = await ws.plan();
    expect(steady.status).toBe('no_changes');
    expect(steady.drift).toEqual([]);
    const before = credits(h);
    await ws.write({
      'books.yaml': bookParser(
        `${FIELDS.replace('The price', 'The price with tax')}${MORE.slice(FIELDS.length)}`,
      ),
    });
    const { plan } = await ws.converge();
    expect(plan.summary.regenerations).toBe(1);
    const patches = h.emulator.requestLog
      .filter((e) => e.method === 'PATCH')
      .map((e) => e.path.split('?')[0]);
    expect(patches.at(-1)).toMatch(/^\/parsers\/[^/]+\/1$/);
    expect(before - credits(h)).toBe(GENERATION);
  });

  it('a field added by hand once a --no-wait create finished is removed, free: no replace, no second parser', async () => {
    const h = await start([]);
    const ws = await TestWorkspace.create(h);
    await ws.write({ 'books.yaml': bookParser(FIELDS) });
    await ws.applyChanges(await ws.plan(), { noWait: true });
    const recorded = (await ws.state()).resources['parser.books'];
    if (recorded?.kind !== 'Parser') throw new Error('not recorded');
    expect(recorded).toMatchObject({ version: null, pending: { version: 0 } });
    await h.emulator.idle();
    await h.parsers.update(recorded.id, 0, { add_fields: [{ name: 'author', description: 'Author name' }] });
    await h.emulator.idle();
    const before = credits(h);
    const { plan } = await ws.converge();
    expect(plan.resource_changes.map((c) => [c.action, c.regenerates])).toEqual([['update', false]]);
    expect(plan.drift.map((d) => d.message)).toEqual([
      'version moved from 0 to 1 outside scrapeform; fields added: author',
    ]);
    expect(before - credits(h)).toBe(0);
    expect([...h.emulator.parsers.parsers.keys()]).toEqual([recorded.id]);
    expect(calls(h, 'DELETE', '/parsers/')).toBe(0);
  });
});

describe('1c. a read by id may answer 404 a moment after a create (lagging-list with notFoundMs; F3)', () => {
  /** Whether the service has answered 404 to a read by id of version 0 of a parser. */
  const versionNotFound = (h: EmulatorHarness): boolean =>
    h.emulator.requestLog.some(
      (e) => e.method === 'GET' && /^\/parsers\/[^/?]+\/0(\?|$)/.test(e.path) && e.status === 404,
    );

  it('apply waits through the 404 of the parser it just created: one create, FINISHED, the second plan empty', async () => {
    const h = await start(['lagging-list'], { listLagMs: 1_200_000, notFoundMs: 600_000 });
    const ws = await TestWorkspace.create(h);
    await ws.write({ 'books.yaml': bookParser(FIELDS) });
    const before = credits(h);
    const plan = await ws.plan();
    expect(plan.resource_changes.map((c) => c.action)).toEqual(['create']);
    const applying = ws.applyChanges(plan);
    // The wait reads the new version by id and is answered 404; then the service catches up.
    await until('a read by id of the new version was answered 404', () => versionNotFound(h));
    h.emulator.clock.advance(600_000);
    const result = await applying;
    expect(result.results).toMatchObject([{ ok: true, status: 'FINISHED', version: 0 }]);
    expect(result.results[0]?.warnings?.[0]).toContain(
      'is not found yet (the service answers 404 right after it was made): read as not visible yet, waiting for it',
    );
    expect((await ws.plan()).status).toBe('no_changes');
    expect(calls(h, 'POST', '/parsers')).toBe(1);
    expect(before - credits(h)).toBe(GENERATION);
  });

  it('objects created and not seen since are not created again on a 404: apply asks for --recreate, then keeps them once seen', async () => {
    const h = await start(['lagging-list'], { listLagMs: 1_200_000, notFoundMs: 600_000 });
    const ws = await TestWorkspace.create(h);
    await ws.write({ 'books.yaml': bookParser(FIELDS), 'nightly.yaml': PROJECT('nightly') });
    const env = emulatorEnv(h.emulator.url, EMULATOR_KEY);
    const apply = (...extra: string[]): Promise<ChildRun> =>
      runBuiltCli(['apply', 'manifests', '--auto-approve', '--state', ws.backend.location, ...extra], {
        cwd: ws.dir,
        env,
      });
    const before = credits(h);
    // The creates land; the wait for the parser's generation sees only 404s until its bound.
    const first = await apply('--wait-timeout', '1s');
    expect(first.code).toBe(1);
    expect(first.stderr).toContain(
      'was made but the service still answers 404 for it after 1s (not visible yet)',
    );
    const recorded = await ws.state();
    expect(recorded.resources['parser.books']).toMatchObject({ version: null, pending: { version: 0 } });
    expect(recorded.resources['project.nightly']).toMatchObject({
      unseenSince: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
    });

    // The next apply, with the lists and reads still behind: nothing is created again, and it says what to do.
    const second = await apply();
    expect(second.code).toBe(3);
    expect(second.stdout).toContain('# not seen since its create: parser ');
    expect(second.stdout).toContain('# not seen since its create: project ');
    expect(second.stderr).toContain(
      'error: not applied: the plan creates again 2 objects scrapeform created that the service has not shown since (it answers 404, which may only mean not visible yet) (parser.books, project.nightly); nothing was sent',
    );
    expect(second.stderr).toContain('pass --recreate parser.books --recreate project.nightly');
    expect(calls(h, 'POST', '/parsers')).toBe(1);
    expect(calls(h, 'POST', '/api/projects')).toBe(1);

    // Once the service shows them, they are kept: no second create, one generation paid, the next plan empty.
    h.emulator.clock.advance(600_000);
    const third = await apply();
    expect(third.code, third.stdout + third.stderr).toBe(0);
    expect(calls(h, 'POST', '/parsers')).toBe(1);
    expect(calls(h, 'POST', '/api/projects')).toBe(1);
    expect(before - credits(h)).toBe(GENERATION);
    const seen = await ws.state();
    expect(seen.resources['parser.books']).toMatchObject({ version: 0 });
    expect(seen.resources['project.nightly']).not.toHaveProperty('unseenSince');
    const plan = await runBuiltCli(
      ['plan', 'manifests', '--detailed-exitcode', '--state', ws.backend.location],
      { cwd: ws.dir, env },
    );
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  }, 30_000);
});

describe('2. details without version (details-without-version)', () => {
  it('creates, then updates from the listed version; the second plan is empty', async () => {
    const h = await start(['details-without-version']);
    const ws = await TestWorkspace.create(h);
    await ws.write({ 'books.yaml': bookParser(FIELDS) });
    await convergeAndCount(h, ws, { parsers: 1, projects: 0 });
    await ws.write({ 'books.yaml': bookParser(`${FIELDS}  author: { description: The author }\n`) });
    const plan = await convergeAndCount(h, ws, { parsers: 1, projects: 0 });
    expect(plan.resource_changes.map((c) => [c.action, c.regenerates])).toEqual([['update', true]]);
    const state = await ws.state();
    expect(state.resources['parser.books']).toMatchObject({ version: 1 });
  });
});

describe('3. status vocabulary (queued-status)', () => {
  it('apply waits through a status it does not know and warns once, naming it', async () => {
    const h = await start(['queued-status'], { queuedMs: 300 });
    const ws = await TestWorkspace.create(h);
    await ws.write({ 'books.yaml': bookParser(FIELDS) });
    const plan = await ws.plan();
    const result = await ws.applyChanges(plan);
    expect(result.results.map((r) => [r.ok, r.status])).toEqual([[true, 'FINISHED']]);
    expect(result.results[0]?.warnings).toEqual([
      'version 0 reports status "QUEUED", which scrapeform does not know; read as still working, waiting for FINISHED or FAILED',
    ]);
    expect((await ws.plan()).status).toBe('no_changes');
  });

  it('a plan made while a version is QUEUED waits: no replace, no retry, no delete', async () => {
    const h = await start(['queued-status'], { queuedMs: 600_000 });
    const ws = await TestWorkspace.create(h);
    await ws.write({ 'books.yaml': bookParser(FIELDS) });
    await ws.applyChanges(undefined, { noWait: true });
    const plan = await ws.plan();
    expect(plan.status).toBe('no_changes');
    expect(plan.warnings).toEqual([
      'parser.books: version 0 is still generating (status QUEUED); nothing to change until it finishes',
    ]);
    // A manifest edit meanwhile is not sent either: the version is not ready to be changed.
    await ws.write({ 'books.yaml': bookParser(`${FIELDS}  author: { description: The author }\n`) });
    expect((await ws.plan()).resource_changes).toEqual([]);
  });

  it('converges and counts', async () => {
    const h = await start(['queued-status'], { queuedMs: 200 });
    const ws = await TestWorkspace.create(h);
    await ws.write({ 'books.yaml': bookParser(FIELDS) });
    await convergeAndCount(h, ws, { parsers: 1, projects: 0 });
  });
});

describe('5. example URLs as the service may spell them', () => {
  it('a live parser whose example pages differ only in spelling and order is adopted, not replaced', async () => {
    const h = await start([]);
    const shout = (url: string): string =>
      url.replace('https://books.example/', 'HTTPS://Books.Example:443/');
    const created = await h.parsers.create({
      name: 'books',
      urls: [shout(BOOK_B), `${shout(BOOK_A)}#top`],
      fields: [
        { name: 'title', description: 'The book title' },
        { name: 'price', description: 'The price' },
      ],
    });
    await until(
      'the parser made outside scrapeform is FINISHED',
      async () => (await h.parsers.get(created.id)).status === 'FINISHED',
    );
    const ws = await TestWorkspace.create(h);
    await ws.write({ 'books.yaml': bookParser(FIELDS) });
    const plan = await convergeAndCount(h, ws, { parsers: 1, projects: 0 });
    expect(plan.resource_changes.map((c) => [c.action, c.id])).toEqual([['adopt', created.id]]);
  });
});

describe('6. project fields the service does not echo (sparse-projects)', () => {
  const HOOK = 'webhookOutput: { url: "https://hooks.example/books" }\n';
  it('a webhook reported under projectOutput, and defaults left out, converge', async () => {
    const h = await start(['sparse-projects']);
    const ws = await TestWorkspace.create(h);
    await ws.write({
      'nightly.yaml': PROJECT('nightly', `${HOOK}output_format: CSV\napiParams: { render: true }\n`),
      'plain.yaml': PROJECT('plain'),
    });
    await convergeAndCount(h, ws, { parsers: 0, projects: 2 });
    // Dropping keys resets them, once.
    await ws.write({ 'nightly.yaml': PROJECT('nightly'), 'plain.yaml': PROJECT('plain', HOOK) });
    const plan = await convergeAndCount(h, ws, { parsers: 0, projects: 2 });
    expect(
      plan.resource_changes.map((c) =>
        c.kind === 'Project' && c.action === 'update' ? c.changed : c.action,
      ),
    ).toEqual([
      { output_format: 'JSON', webhookOutput: null, apiParams: {} },
      { webhookOutput: { url: 'https://hooks.example/books' } },
    ]);
    expect(calls(h, 'PATCH', '/api/projects/')).toBe(2);
  });
});

describe('7. 429 on a create (create-429)', () => {
  it('the refused create is sent again after Retry-After: one parser, one project', async () => {
    const h = retrying(await start(['create-429']));
    const ws = await TestWorkspace.create(h);
    await ws.write({ 'books.yaml': bookParser(FIELDS), 'nightly.yaml': PROJECT('nightly') });
    await convergeAndCount(h, ws, { parsers: 1, projects: 1 });
    expect(h.emulator.requestLog.filter((e) => e.method === 'POST').map((e) => e.status)).toEqual(
      expect.arrayContaining([429, 201, 429, 201]),
    );
  });
});

describe('lists paged and wrapped (paged-lists, wrapped-lists)', () => {
  const cases = [
    ['paged-lists', 'has-more'],
    ['paged-lists', 'laravel'],
    ['paged-lists', 'offset'],
    ['paged-lists', 'link'],
    ['wrapped-lists', 'has-more'],
  ] as const;
  for (const [quirk, pageStyle] of cases) {
    it(`${quirk}${quirk === 'paged-lists' ? ` (${pageStyle})` : ''}: every page is read, nothing is created twice`, async () => {
      const h = await start([quirk], { pageSize: 1, pageStyle });
      const ws = await TestWorkspace.create(h);
      const files: Record<string, string> = {};
      for (const n of [1, 2, 3]) {
        files[`p${n}.yaml`] = bookParser(FIELDS).replace('name: books', `name: books-${n}`);
        files[`j${n}.yaml`] = PROJECT(`nightly-${n}`);
      }
      await ws.write(files);
      await convergeAndCount(h, ws, { parsers: 3, projects: 3 });
    });
  }
});

describe('lists paged by a Link header (paged-lists, pageStyle link)', () => {
  it('objects past the first page are adopted, not created again: apply POSTs only the missing ones', async () => {
    const h = await start(['paged-lists'], { pageSize: 2, pageStyle: 'link' });
    const files = (count: number): Record<string, string> => {
      const out: Record<string, string> = {};
      for (let n = 1; n <= count; n++) {
        out[`p${n}.yaml`] = bookParser(FIELDS).replace('name: books', `name: books-${n}`);
        out[`j${n}.yaml`] = PROJECT(`nightly-${n}`);
      }
      return out;
    };
    // Three parsers and three projects exist, made from another state: only the lists can say so.
    const other = await TestWorkspace.create(h, 'cli');
    await other.write(files(3));
    await other.converge();
    // The lists come as bare arrays of 2, each pointing to the next page in its Link header only.
    for (const list of ['/parsers', '/api/projects']) {
      const first = await h.raw('GET', `${list}?api_key=${EMULATOR_KEY}`);
      expect([Array.isArray(first.body), (first.body as unknown[]).length]).toEqual([true, 2]);
      expect(first.headers.get('link')).toContain(`<${list}?api_key=${EMULATOR_KEY}&page=2>; rel="next"`);
    }
    const ws = await TestWorkspace.create(h, 'cli');
    await ws.write(files(4));
    h.emulator.requestLog.length = 0;

    const plan = await ws.plan();
    const actions = plan.resource_changes.map((c) => [c.address, c.action]);
    expect(actions).toEqual(
      expect.arrayContaining([
        ...[1, 2, 3].flatMap((n) => [
          [`parser.books-${n}`, 'adopt'],
          [`project.nightly-${n}`, 'adopt'],
        ]),
        ['parser.books-4', 'create'],
        ['project.nightly-4', 'create'],
      ]),
    );
    expect(actions).toHaveLength(8);
    // Their second pages were read.
    const listed = h.emulator.requestLog.filter(
      (e) => e.method === 'GET' && /^\/(parsers|api\/projects)\?/.test(e.path),
    );
    expect(listed.filter((e) => /[?&]page=2(&|$)/.test(e.path)).map((e) => e.path.split('?')[0])).toEqual(
      expect.arrayContaining(['/parsers', '/api/projects']),
    );

    h.emulator.requestLog.length = 0;
    const result = await ws.applyChanges(plan);
    expect(result.results.filter((r) => !r.ok)).toEqual([]);
    expect(calls(h, 'POST', '/parsers')).toBe(1);
    expect(calls(h, 'POST', '/api/projects')).toBe(1);
    expect((await ws.plan()).status).toBe('no_changes');
    expect(await liveCounts(h, ws)).toEqual({ parsers: 4, projects: 4 });
  });
});

describe('8. only the services a workspace uses are called', () => {
  it('a parsers-only workspace works with a key the DataPipeline service refuses, and never calls it', async () => {
    const h = await start([]);
    // The DataPipeline service here knows another key only: every call of ours would be a 401.
    const pipeline = await start([], {}, { apiKeys: ['another-key'] });
    const ws = await TestWorkspace.create(retrying(h, pipeline.emulator.url));
    await ws.write({ 'books.yaml': bookParser(FIELDS) });
    await ws.converge();
    expect(pipeline.emulator.requestLog).toEqual([]);
    expect(calls(h, 'GET', '/api/projects')).toBe(0);
  });

  it('a workspace with a project is told which service refused the key', async () => {
    const h = await start([]);
    const pipeline = await start([], {}, { apiKeys: ['another-key'] });
    const ws = await TestWorkspace.create(h);
    await ws.write({ 'books.yaml': bookParser(FIELDS), 'nightly.yaml': PROJECT('nightly') });
    const run = await runScrapeform(['plan', `${ws.dir}/manifests`, '--state', ws.backend.location], {
      env: {
        SCRAPERAPI_API_KEY: EMULATOR_KEY,
        SCRAPEFORM_PARSER_URL: h.emulator.url,
        SCRAPEFORM_PIPELINE_URL: pipeline.emulator.url,
      },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the DataPipeline service');
    expect(run.stderr).not.toContain(EMULATOR_KEY);
  });

  it('status and import call only the service asked for', async () => {
    const h = await start([]);
    const pipeline = await start([], {}, { apiKeys: ['another-key'] });
    const ws = await TestWorkspace.create(h);
    await ws.write({ 'books.yaml': bookParser(FIELDS) });
    await ws.converge();
    await h.parsers.create({ name: 'legacy', urls: [BOOK_A], fields: [{ name: 'title', description: 't' }] });
    const env = {
      SCRAPERAPI_API_KEY: EMULATOR_KEY,
      SCRAPEFORM_PARSER_URL: h.emulator.url,
      SCRAPEFORM_PIPELINE_URL: pipeline.emulator.url,
    };
    const status = await runScrapeform(['status', '--json', '--state', ws.backend.location], { env });
    expect([status.code, status.stderr]).toEqual([0, '']);
    const imported = await runScrapeform(
      ['import', '--only', 'parsers', '--out', `${ws.dir}/imported`, '--state', ws.backend.location],
      { env },
    );
    expect(imported.code).toBe(0);
    expect(pipeline.emulator.requestLog).toEqual([]);
  });
});
