import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/plan/model.js';
import { summarise } from '../../src/plan/build-plan.js';
import { parsePlanFile, parseSavedPlan } from '../../src/plan/plan-file.js';
import { renderSavedPlan } from '../../src/output/render-saved-plan.js';
import { runScrapeform } from '../helpers/cli.js';
import type { CliRun } from '../helpers/cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { BOOK_A } from '../helpers/workspace.js';

/*
 * A saved plan is what a reviewer approved: apply --plan refuses it for approval without changing anything, applies
 * it once approved, and applies it only to the state it was made for. Each scenario ends with an empty plan.
 */

let h: EmulatorHarness;
let dir: string;
beforeAll(async () => {
  h = await startTestEmulator({ generationDelayMs: 5 });
});
afterAll(async () => h.emulator.close());
beforeEach(async () => {
  h.emulator.reset();
  dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-saved-plan-'));
  await mkdir(path.join(dir, 'manifests'));
});

const parser = (name: string, extra = ''): string => `kind: Parser
name: ${name}
urls: [${BOOK_A}]
fields:
  title: { description: Book title, selector: h1 }
${extra}`;

async function manifests(files: Record<string, string>): Promise<void> {
  await mkdir(path.join(dir, 'manifests'), { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, 'manifests', name), text);
}

const rmManifest = (name: string): Promise<void> => rm(path.join(dir, 'manifests', name));

/**
 * The CLI in-process against the emulator, on the manifests folder; file state in the test's folder unless
 * `SCRAPEFORM_STATE` is given. A saved plan's name is a file of that folder.
 */
function scrapeform(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const [command = '', ...rest] = args;
  const inDir = rest.map((a, i) =>
    rest[i - 1] === '--out' || rest[i - 1] === '--plan' ? path.join(dir, a) : a,
  );
  const state = env.SCRAPEFORM_STATE === undefined ? ['--state', stateFile()] : [];
  return runScrapeform([command, path.join(dir, 'manifests'), ...state, ...inDir], {
    env: {
      SCRAPERAPI_API_KEY: EMULATOR_KEY,
      SCRAPEFORM_PARSER_URL: h.emulator.url,
      SCRAPEFORM_PIPELINE_URL: h.emulator.url,
      ...env,
    },
  });
}

const stateFile = (): string => path.join(dir, '.scrapeform', 'state.json');

/** Calls that change something (the emulator's log holds reads too). */
const sentCalls = (): string[] =>
  h.emulator.requestLog
    .filter((e) => e.method !== 'GET')
    .map((e) => `${e.method} ${e.path.split('?')[0] ?? ''}`);

async function expectConverged(args: string[] = [], env: Record<string, string> = {}): Promise<void> {
  const again = await scrapeform(['plan', '--detailed-exitcode', ...args], env);
  expect([again.code, again.stdout.trim()], again.stderr).toEqual([
    0,
    'No changes. The live services match the manifests.',
  ]);
}

describe('adopting a parser whose latest version FAILED after one that FINISHED (review F1)', () => {
  it('is a destructive replace: --allow-adopt alone is refused with nothing sent; --allow-destroy applies it', async () => {
    // Made outside scrapeform: version 0 FINISHED, then version 1 FAILED.
    const made = await h.parsers.create({
      name: 'shared-books',
      urls: [BOOK_A],
      fields: [{ name: 'title', description: 'Book title', selector: 'h1' }],
    });
    await h.emulator.idle();
    h.emulator.setFaults({ failGenerations: 1 });
    await h.raw('PATCH', `/parsers/${made.id}/0`, {
      api_key: EMULATOR_KEY,
      add_fields: [{ name: 'author', description: 'Author' }],
    });
    await h.emulator.idle();
    expect((await h.parsers.get(made.id, 1)).status).toBe('FAILED');

    await manifests({ 'shared.yaml': parser('shared-books') });
    const planned = await scrapeform(['plan', '--out', 'plan.json', '--markdown']);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toContain('[!WARNING]');
    const saved = JSON.parse(await readFile(path.join(dir, 'plan.json'), 'utf8')) as {
      resource_changes: { action: string; destructive: boolean; breaking: string[] }[];
    };
    expect(saved.resource_changes.map((c) => [c.action, c.destructive])).toEqual([['replace', true]]);

    h.emulator.requestLog.length = 0;
    const refused = await scrapeform(['apply', '--plan', 'plan.json', '--auto-approve', '--allow-adopt']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(
      'error: not applied: the plan has destructive changes (parser.shared-books (replace)); nothing was sent',
    );
    expect(sentCalls()).toEqual([]);
    expect((await h.parsers.get(made.id, 0)).status).toBe('FINISHED');

    const applied = await scrapeform([
      'apply',
      '--plan',
      'plan.json',
      '--auto-approve',
      '--allow-adopt',
      '--allow-destroy',
    ]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(sentCalls()).toEqual(['POST /parsers', `DELETE /parsers/${made.id}`]);
    await expectConverged();
  });
});

describe('an apply refused for approval changes nothing (review F6)', () => {
  it('state is not written, so the same saved plan applies once approved', async () => {
    await manifests({ 'keep.yaml': parser('keep'), 'drop.yaml': parser('drop') });
    expect((await scrapeform(['apply', '--auto-approve'])).code).toBe(0);
    // The pull request deletes one parser, and protects the other (recorded in state at apply) and adds a field.
    const kept = parser(
      'keep',
      '  price: { description: Price, type: number }\nlifecycle: { prevent_destroy: true }\n',
    );
    await manifests({ 'keep.yaml': kept });
    await rmManifest('drop.yaml');
    expect((await scrapeform(['plan', '--out', 'plan.json'])).code).toBe(0);
    const before = await readFile(stateFile(), 'utf8');

    h.emulator.requestLog.length = 0;
    const refused = await scrapeform(['apply', '--plan', 'plan.json', '--auto-approve']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(
      'error: not applied: the plan has destructive changes (parser.drop (delete)); nothing was sent',
    );
    const tooCostly = await scrapeform([
      'apply',
      '--plan',
      'plan.json',
      '--auto-approve',
      '--allow-destroy',
      '--max-regenerations',
      '0',
    ]);
    expect(tooCostly.code).toBe(3);
    expect(tooCostly.stderr).toContain('more than --max-regenerations 0');
    expect(await readFile(stateFile(), 'utf8')).toBe(before);
    expect(sentCalls()).toEqual([]);

    const approved = await scrapeform(['apply', '--plan', 'plan.json', '--auto-approve', '--allow-destroy']);
    expect(approved.code, approved.stderr).toBe(0);
    expect(sentCalls().sort()).toEqual([
      expect.stringMatching(/^DELETE \/parsers\//),
      expect.stringMatching(/^PATCH \/parsers\/.+\/0$/),
    ]);
    // The protection the refused runs did not record is recorded by the apply that went ahead.
    const state = JSON.parse(await readFile(stateFile(), 'utf8')) as {
      resources: Record<string, { preventDestroy?: boolean }>;
    };
    expect(state.resources['parser.keep']?.preventDestroy).toBe(true);
    expect(state.resources['parser.drop']).toBeUndefined();
    await expectConverged();
  });
});

describe('a saved plan applies only to the workspace and state it was made for (review F5)', () => {
  it('a plan saved for staging, before any state existed, is refused in production and applies in staging', async () => {
    await manifests({
      'books.yaml': `kind: Parser
name: ws-books
urls: [${BOOK_A}]
fields:
  title: { description: "Book title for \${TARGET_ENV}", selector: h1 }
`,
    });
    const staging = { TARGET_ENV: 'staging' };
    const saved = await scrapeform(['plan', '--workspace', 'staging', '--out', 'staging-plan.json'], staging);
    expect(saved.code, saved.stderr).toBe(0);
    const text = await readFile(path.join(dir, 'staging-plan.json'), 'utf8');
    // The state is given by its absolute path here, recorded as it is (a relative one is recorded relative).
    const where = (workspace: string): string =>
      path.join(dir, '.scrapeform', workspace, 'state.json').split(path.sep).join('/');
    expect((JSON.parse(text) as Plan).fingerprint.target?.state).toEqual({
      workspace: 'staging',
      location: where('staging'),
    });

    h.emulator.requestLog.length = 0;
    const refused = await scrapeform(
      ['apply', '--workspace', 'production', '--plan', 'staging-plan.json', '--auto-approve'],
      { TARGET_ENV: 'production' },
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `error: refusing the saved plan: it was made for workspace staging (state ${where('staging')}), and this run is for workspace production (state ${where('production')})`,
    );
    expect(sentCalls()).toEqual([]);
    await expect(readFile(path.join(dir, '.scrapeform', 'production', 'state.json'))).rejects.toThrow(
      'ENOENT',
    );

    // The same plan as an earlier scrapeform saved it (no state recorded) is still read, and refused: made before
    // any state existed, nothing ties it to one.
    const legacy = parseSavedPlan(text, 'staging-plan.json');
    delete legacy.fingerprint.target?.state;
    await writeFile(path.join(dir, 'legacy-plan.json'), renderSavedPlan(legacy));
    const old = await scrapeform(
      ['apply', '--workspace', 'staging', '--plan', 'legacy-plan.json', '--auto-approve'],
      staging,
    );
    expect(old.code).toBe(1);
    expect(old.stderr).toContain(
      `error: refusing the saved plan: it was saved by an earlier scrapeform, which did not record the workspace and state it was made for, before any state existed, so nothing ties it to workspace staging (state ${where('staging')})`,
    );
    expect(sentCalls()).toEqual([]);

    const applied = await scrapeform(
      ['apply', '--workspace', 'staging', '--plan', 'staging-plan.json', '--auto-approve'],
      staging,
    );
    expect(applied.code, applied.stderr).toBe(0);
    expect(sentCalls()).toEqual(['POST /parsers']);
    await expectConverged(['--workspace', 'staging'], staging);
  });
});

describe('a saved delete of an object the manifests protect again (review: saved plans and prevent_destroy)', () => {
  it('is refused as stale with nothing sent, and the parser keeps its id', async () => {
    await manifests({ 'keep.yaml': parser('keep-me') });
    expect((await scrapeform(['apply', '--auto-approve'])).code).toBe(0);
    const before = JSON.parse(await readFile(stateFile(), 'utf8')) as {
      resources: Record<string, { id: string }>;
    };
    await rmManifest('keep.yaml');
    expect((await scrapeform(['plan', '--out', 'del.json'])).code).toBe(0);
    await manifests({ 'keep.yaml': parser('keep-me', 'lifecycle: { prevent_destroy: true }\n') });
    await expectConverged();

    h.emulator.requestLog.length = 0;
    const refused = await scrapeform(['apply', '--plan', 'del.json', '--auto-approve', '--allow-destroy']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'error: refusing the saved plan: parser.keep-me: the saved plan deletes it, and lifecycle.prevent_destroy protects it now',
    );
    expect(sentCalls()).toEqual([]);
    await expectConverged();
    const after = JSON.parse(await readFile(stateFile(), 'utf8')) as typeof before;
    expect(after.resources['parser.keep-me']?.id).toBe(before.resources['parser.keep-me']?.id);
  });
});

describe('a saved plan edited to delete another parser, its digest computed again (review: tampered plans)', () => {
  it('is refused as stale with nothing sent: both parsers stay live and managed', async () => {
    await manifests({ 'a.yaml': parser('tamp-a'), 'b.yaml': parser('tamp-b') });
    expect((await scrapeform(['apply', '--auto-approve'])).code).toBe(0);
    const ids = (
      JSON.parse(await readFile(stateFile(), 'utf8')) as { resources: Record<string, { id: string }> }
    ).resources;
    const [a, b] = [ids['parser.tamp-a']?.id ?? '', ids['parser.tamp-b']?.id ?? ''];
    await rmManifest('b.yaml');
    expect((await scrapeform(['plan', '--out', 'del.json'])).code).toBe(0);
    const plan = JSON.parse(await readFile(path.join(dir, 'del.json'), 'utf8')) as {
      resource_changes: { id: string; requests: { path: string }[] }[];
      digest?: string;
    };
    delete plan.digest;
    const [remove] = plan.resource_changes;
    if (remove === undefined) throw new Error('expected the delete of tamp-b');
    remove.id = a;
    for (const r of remove.requests) r.path = r.path.replace(b, a);
    await writeFile(
      path.join(dir, 'del.json'),
      renderSavedPlan(parsePlanFile(JSON.stringify(plan), 'del.json')),
    );

    h.emulator.requestLog.length = 0;
    const refused = await scrapeform(['apply', '--plan', 'del.json', '--auto-approve', '--allow-destroy']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `error: refusing the saved plan: parser.tamp-b: the saved plan acts on ${a}, and the object there is ${b}; parser.tamp-b: the saved plan makes other calls than a fresh plan (DELETE /parsers/${a}, where a fresh plan sends DELETE /parsers/${b})`,
    );
    expect(sentCalls()).toEqual([]);
    await manifests({ 'b.yaml': parser('tamp-b') });
    await expectConverged();
  });
});

describe('a saved plan edited to leave out a change a fresh plan makes, its digest computed again (review: tampered plans)', () => {
  it('a dropped create or update is refused as stale, naming its address, with nothing sent', async () => {
    await manifests({ 'a.yaml': parser('keep-a') });
    expect((await scrapeform(['apply', '--auto-approve'])).code).toBe(0);
    // parser.keep-a gains a field (an update) and parser.new-c is declared (a create): the reviewed plan has both.
    await manifests({
      'a.yaml': parser('keep-a', '  upc: { description: Universal product code, selector: td.upc }\n'),
      'c.yaml': parser('new-c'),
    });
    expect((await scrapeform(['plan', '--out', 'full.json'])).code).toBe(0);
    const full = parseSavedPlan(await readFile(path.join(dir, 'full.json'), 'utf8'), 'full.json');
    expect(full.resource_changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      'update parser.keep-a',
      'create parser.new-c',
    ]);
    for (const [left, action] of [
      ['parser.new-c', 'creates'],
      ['parser.keep-a', 'updates'],
    ] as const) {
      const kept = full.resource_changes.filter((c) => c.address !== left);
      const edited: Plan = { ...full, resource_changes: kept, summary: summarise(kept) };
      await writeFile(path.join(dir, 'edited.json'), renderSavedPlan(edited));
      h.emulator.requestLog.length = 0;
      const refused = await scrapeform(['apply', '--plan', 'edited.json', '--auto-approve']);
      expect(refused.code, left).toBe(1);
      expect(refused.stderr).toBe(
        `error: refusing the saved plan: ${left}: a fresh plan ${action} it, and the saved plan makes no change to it\n` +
          '  hint: run scrapeform plan --out again and review the new plan\n',
      );
      expect(sentCalls()).toEqual([]);
    }
    // A plan made with --target leaves the create out as it says, and applies: only the update is sent.
    expect((await scrapeform(['plan', '--target', 'parser.keep-a', '--out', 'target.json'])).code).toBe(0);
    h.emulator.requestLog.length = 0;
    const targeted = await scrapeform(['apply', '--plan', 'target.json', '--auto-approve']);
    expect(targeted.code, targeted.stderr).toBe(0);
    expect(sentCalls()).toEqual([`PATCH /parsers/${full.resource_changes[0]?.id ?? ''}/0`]);
    // What is left, saved in full, still applies.
    expect((await scrapeform(['plan', '--out', 'rest.json'])).code).toBe(0);
    expect((await scrapeform(['apply', '--plan', 'rest.json', '--auto-approve'])).code).toBe(0);
    await expectConverged();
  });
});

describe('a saved plan made with --target or --exclude records what it chose as data (review: the choice read back from its warning)', () => {
  const named = async (): Promise<string[]> => (await h.parsers.list()).map((p) => p.name).sort();

  it('a target whose name holds ", " applies exactly that object, and the file says what it chose', async () => {
    await manifests({ 'a.yaml': parser('"books, fiction"'), 'b.yaml': parser('books') });
    const planned = await scrapeform(['plan', '--target', 'parser.books, fiction', '--out', 'target.json']);
    expect(planned.code, planned.stderr).toBe(0);
    const text = await readFile(path.join(dir, 'target.json'), 'utf8');
    expect((JSON.parse(text) as { selection?: unknown }).selection).toEqual({
      targets: ['parser.books, fiction'],
      excludes: [],
      paths: [],
    });
    h.emulator.requestLog.length = 0;
    const applied = await scrapeform(['apply', '--plan', 'target.json', '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(sentCalls()).toEqual(['POST /parsers']);
    expect(await named()).toEqual(['books, fiction']);
    // What the target left out is still planned, and applies.
    expect((await scrapeform(['plan', '--out', 'rest.json'])).code).toBe(0);
    const rest = parseSavedPlan(await readFile(path.join(dir, 'rest.json'), 'utf8'), 'rest.json');
    expect(rest.resource_changes.map((c) => `${c.action} ${c.address}`)).toEqual(['create parser.books']);
    expect(rest.selection).toBeUndefined();
    expect((await scrapeform(['apply', '--plan', 'rest.json', '--auto-approve'])).code).toBe(0);
    await expectConverged();
  });

  it('the same name excluded leaves out only that object', async () => {
    await manifests({ 'a.yaml': parser('"books, fiction"'), 'b.yaml': parser('books') });
    const planned = await scrapeform(['plan', '--exclude', 'parser.books, fiction', '--out', 'exclude.json']);
    expect(planned.code, planned.stderr).toBe(0);
    h.emulator.requestLog.length = 0;
    const applied = await scrapeform(['apply', '--plan', 'exclude.json', '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(sentCalls()).toEqual(['POST /parsers']);
    expect(await named()).toEqual(['books']);
    expect((await scrapeform(['apply', '--auto-approve'])).code).toBe(0);
    await expectConverged();
  });

  it('a plan file saved by an earlier version, with the choice only in its warning, is still held to it', async () => {
    await manifests({ 'a.yaml': parser('keep-a'), 'b.yaml': parser('keep-b') });
    expect((await scrapeform(['plan', '--target', 'parser.keep-a', '--out', 'target.json'])).code).toBe(0);
    const { selection, ...earlier } = parseSavedPlan(
      await readFile(path.join(dir, 'target.json'), 'utf8'),
      'target.json',
    );
    expect(selection).toEqual({ targets: ['parser.keep-a'], excludes: [], paths: [] });
    expect(earlier.warnings[0]).toBe(
      'partial plan: only parser.keep-a (--target); changes to other objects are neither shown nor applied, and a plan without these flags may have more',
    );
    await writeFile(path.join(dir, 'earlier.json'), renderSavedPlan(earlier));
    expect(await readFile(path.join(dir, 'earlier.json'), 'utf8')).not.toContain('"selection"');
    // Its warning dropped too, it is a whole plan that leaves out parser.keep-b: refused, nothing sent.
    const whole = { ...earlier, warnings: earlier.warnings.slice(1) };
    await writeFile(path.join(dir, 'whole.json'), renderSavedPlan(whole));
    h.emulator.requestLog.length = 0;
    const refused = await scrapeform(['apply', '--plan', 'whole.json', '--auto-approve']);
    expect([refused.code, refused.stderr]).toEqual([
      1,
      'error: refusing the saved plan: parser.keep-b: a fresh plan creates it, and the saved plan makes no change to it\n' +
        '  hint: run scrapeform plan --out again and review the new plan\n',
    ]);
    expect(sentCalls()).toEqual([]);
    const applied = await scrapeform(['apply', '--plan', 'earlier.json', '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(sentCalls()).toEqual(['POST /parsers']);
    expect(await named()).toEqual(['keep-a']);
    expect((await scrapeform(['apply', '--auto-approve'])).code).toBe(0);
    await expectConverged();
  });
});
