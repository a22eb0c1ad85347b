import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeEach, afterEach, describe, expect, it } from 'vitest';
import { digestOf } from '../../src/plan/save-plan.js';
import { runScrapeform } from '../helpers/cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';

/**
 * One category parser and one nightly project per element: `name` names them, `site` (which page they read) stays
 * when an element is renamed. `moved` is appended when given.
 */
const manifest = (countries: string[], moved = ''): string => {
  const elements = `[${countries.map((c) => `{ name: ${c}, site: ${c === 'gb' ? 'uk' : c} }`).join(', ')}]`;
  return `kind: Parser
name: category-\${each.name}
for_each: ${elements}
urls: ['https://books.example/catalogue/a-light-in-the-attic_1000/index.html?country=\${each.site}']
fields:
  title: { description: Book title from the main heading, selector: h1 }
${moved === '' ? '' : `moved:\n${moved}`}---
kind: Project
name: nightly-\${each.name}
for_each: ${elements}
projectType: urls
projectInput: { type: list, list: ['https://books.example/catalogue/page-2.html?country=\${each.site}'] }
scrapingInterval: daily
${moved === '' ? '' : `moved:\n${moved.replace(/parser\.category-/g, 'project.nightly-')}`}`;
};

/** Issue 16: renaming a for_each instance keeps its object with a `moved:` hint, and is a delete + create without. */
describe('moved hints', () => {
  let h: EmulatorHarness;
  let dir: string;
  beforeEach(async () => {
    h = await startTestEmulator();
    dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-moved-'));
    await mkdir(path.join(dir, 'manifests'));
    await writeFile(path.join(dir, 'manifests', 'category.yaml'), manifest(['de', 'fr', 'uk']));
    const created = await run('apply', ['--auto-approve']);
    expect(created.code, created.stderr).toBe(0);
    h.emulator.requestLog.length = 0;
  });
  afterEach(async () => {
    await h.emulator.close();
  });
  const run = (command: string, extra: string[] = []) =>
    runScrapeform([command, path.join(dir, 'manifests'), '--state', path.join(dir, 'state.json'), ...extra], {
      env: {
        SCRAPERAPI_API_KEY: EMULATOR_KEY,
        SCRAPEFORM_PARSER_URL: h.emulator.url,
        SCRAPEFORM_PIPELINE_URL: h.emulator.url,
        SCRAPEFORM_POLL_INTERVAL: '10ms',
      },
    });
  const sent = (): string[] =>
    h.emulator.requestLog
      .filter((e) => e.method !== 'GET')
      .map((e) => `${e.method} ${e.path.split('?')[0] ?? ''}`);
  const stateOf = async (): Promise<Record<string, { id: string | number; name: string }>> =>
    (JSON.parse(await readFile(path.join(dir, 'state.json'), 'utf8')) as { resources: Record<string, never> })
      .resources;

  it('with a hint, a renamed element keeps its objects: the plan moves state, renames the project, then is empty', async () => {
    const before = await stateOf();
    const hint = '  - { from: parser.category-uk, to: parser.category-gb }\n';
    await writeFile(path.join(dir, 'manifests', 'category.yaml'), manifest(['de', 'fr', 'gb'], hint));
    const plan = await run('plan', ['--detailed-exitcode']);
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout).toContain('Plan: 2 to move, 1 to update (no regeneration, no credits).');
    expect(plan.stdout).toContain(
      `Moved by moved: hints (state only, no call)\n  → parser.category-uk -> parser.category-gb (${String(before['parser.category-uk']?.id)}, live name "category-uk")\n  → project.nightly-uk -> project.nightly-gb (${String(before['project.nightly-uk']?.id)}, live name "nightly-uk")`,
    );
    expect(plan.stdout).toContain('# moved from project.nightly-uk');
    expect(plan.stdout).toContain('name: "nightly-uk" -> "nightly-gb"');
    expect(plan.stdout).toContain(
      `warning: parser.category-gb: moved from parser.category-uk; the live parser ${String(before['parser.category-uk']?.id)} keeps its name "category-uk" (the parser service cannot rename a parser; its id, versions and results stay)`,
    );
    expect(plan.stdout).not.toMatch(/to create|to delete|to archive/);
    const json = JSON.parse((await run('plan', ['--json'])).stdout) as { moved: unknown[] };
    expect(json.moved).toEqual([
      {
        from: 'parser.category-uk',
        to: 'parser.category-gb',
        kind: 'Parser',
        id: before['parser.category-uk']?.id,
        name: 'category-uk',
      },
      {
        from: 'project.nightly-uk',
        to: 'project.nightly-gb',
        kind: 'Project',
        id: before['project.nightly-uk']?.id,
        name: 'nightly-uk',
      },
    ]);
    expect(sent()).toEqual([]);

    const applied = await run('apply', ['--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(sent()).toEqual([`PATCH /api/projects/${String(before['project.nightly-uk']?.id)}`]);
    const after = await stateOf();
    expect(Object.keys(after).sort()).toEqual([
      'parser.category-de',
      'parser.category-fr',
      'parser.category-gb',
      'project.nightly-de',
      'project.nightly-fr',
      'project.nightly-gb',
    ]);
    expect(after['parser.category-gb']).toMatchObject({
      id: before['parser.category-uk']?.id,
      name: 'category-uk',
    });
    expect(after['project.nightly-gb']).toMatchObject({
      id: before['project.nightly-uk']?.id,
      name: 'nightly-gb',
    });
    // The hint can stay in the file: once applied it is history.
    const second = await run('plan', ['--detailed-exitcode']);
    expect([second.code, second.stdout.trim()]).toEqual([
      0,
      'No changes. The live services match the manifests.',
    ]);
    expect(second.stderr).not.toContain('moved');
  });

  // The hint stays in the file once applied (the docs say it can): renaming the element again adds a second hint
  // from where the first one led. Refused as a chain, the message said to write uk -> gg instead, and that hint
  // finds nothing at uk (state holds gb): gb was deleted and gg created, a new parser (~30,000 credits).
  it('an element renamed twice keeps its objects: the second hint continues the applied one, a state move only', async () => {
    const before = await stateOf();
    const first = '  - { from: parser.category-uk, to: parser.category-gb }\n';
    await writeFile(path.join(dir, 'manifests', 'category.yaml'), manifest(['de', 'fr', 'gb'], first));
    expect((await run('apply', ['--auto-approve'])).code).toBe(0);
    h.emulator.requestLog.length = 0;
    const second = `${first}  - { from: parser.category-gb, to: parser.category-gg }\n`;
    const renamed = manifest(['de', 'fr', 'gg'], second).replaceAll('site: gg', 'site: uk');
    await writeFile(path.join(dir, 'manifests', 'category.yaml'), renamed);
    const plan = await run('plan', ['--json']);
    expect(plan.code, plan.stderr).toBe(0);
    const json = JSON.parse(plan.stdout) as {
      moved: { from: string; to: string; id: unknown }[];
      resource_changes: { address: string; action: string }[];
      summary: { estimated_credits: number };
    };
    expect(json.moved.map((m) => [m.from, m.to, m.id])).toEqual([
      ['parser.category-gb', 'parser.category-gg', before['parser.category-uk']?.id],
      ['project.nightly-gb', 'project.nightly-gg', before['project.nightly-uk']?.id],
    ]);
    expect(json.resource_changes.map((c) => [c.address, c.action])).toEqual([
      ['project.nightly-gg', 'update'],
    ]);
    expect(json.summary.estimated_credits).toBe(0);
    const applied = await run('apply', ['--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(sent()).toEqual([`PATCH /api/projects/${String(before['project.nightly-uk']?.id)}`]);
    const after = await stateOf();
    expect(after['parser.category-gg']?.id).toBe(before['parser.category-uk']?.id);
    expect(after['parser.category-gb']).toBeUndefined();
    const again = await run('plan', ['--detailed-exitcode']);
    expect([again.code, again.stdout.trim(), again.stderr]).toEqual([
      0,
      'No changes. The live services match the manifests.',
      '',
    ]);
  });

  it('both renames written before any apply: the object at the first address moves to the last in one step', async () => {
    const before = await stateOf();
    const hints =
      '  - { from: parser.category-uk, to: parser.category-gb }\n  - { from: parser.category-gb, to: parser.category-gg }\n';
    const renamed = manifest(['de', 'fr', 'gg'], hints).replaceAll('site: gg', 'site: uk');
    await writeFile(path.join(dir, 'manifests', 'category.yaml'), renamed);
    const plan = await run('plan', ['--json']);
    expect(plan.code, plan.stderr).toBe(0);
    const json = JSON.parse(plan.stdout) as { moved: { from: string; to: string; id: unknown }[] };
    expect(json.moved.map((m) => [m.from, m.to, m.id])).toEqual([
      ['parser.category-uk', 'parser.category-gg', before['parser.category-uk']?.id],
      ['project.nightly-uk', 'project.nightly-gg', before['project.nightly-uk']?.id],
    ]);
    expect(sent()).toEqual([]);
  });

  // A move is no call, so no change of the saved plan may tell it; the fingerprint of the object at its new
  // address does: applied, the move would put the objects at addresses no manifest declares any more, and the next
  // plan would delete parser.category-gb and create parser.category-uk again (~30,000 credits).
  it('apply --plan refuses a saved plan whose move a fresh plan no longer makes, and moves nothing', async () => {
    const before = await readFile(path.join(dir, 'state.json'), 'utf8');
    const hint = '  - { from: parser.category-uk, to: parser.category-gb }\n';
    await writeFile(path.join(dir, 'manifests', 'category.yaml'), manifest(['de', 'fr', 'gb'], hint));
    const saved = path.join(dir, 'rename.plan.json');
    expect((await run('plan', ['--out', saved])).code).toBe(0);
    await writeFile(path.join(dir, 'manifests', 'category.yaml'), manifest(['de', 'fr', 'uk']));
    h.emulator.requestLog.length = 0;

    const applied = await run('apply', ['--plan', saved, '--auto-approve']);
    expect(applied.code).toBe(1);
    const ids = JSON.parse(before) as { resources: Record<string, { id: string | number }> };
    expect(applied.stderr).toContain(
      `error: refusing the saved plan: parser.category-gb moved (${String(ids.resources['parser.category-uk']?.id)}@0 -> gone); project.nightly-gb moved (`,
    );
    expect(sent()).toEqual([]);
    expect(await readFile(path.join(dir, 'state.json'), 'utf8')).toBe(before);
  });

  it('apply --plan applies the move of a saved plan that a fresh plan makes too', async () => {
    const before = await stateOf();
    const hint = '  - { from: parser.category-uk, to: parser.category-gb }\n';
    await writeFile(path.join(dir, 'manifests', 'category.yaml'), manifest(['de', 'fr', 'gb'], hint));
    const saved = path.join(dir, 'rename.plan.json');
    expect((await run('plan', ['--out', saved])).code).toBe(0);
    const applied = await run('apply', ['--plan', saved, '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    const after = await stateOf();
    expect(after['parser.category-gb']?.id).toBe(before['parser.category-uk']?.id);
    expect(after['parser.category-uk']).toBeUndefined();
    expect((await run('plan', ['--detailed-exitcode'])).code).toBe(0);
  });

  // A move is no call, and nothing else in the file stands for it: one written into a saved plan by hand (its digest
  // computed again) would move state to an address no manifest declares, and the next plan would delete the parser
  // and create it again (a regeneration). Apply moves only what a fresh plan moves.
  it('apply --plan refuses a move a fresh plan does not make (an edited file), and moves nothing', async () => {
    const before = await readFile(path.join(dir, 'state.json'), 'utf8');
    const saved = path.join(dir, 'nothing.plan.json');
    expect((await run('plan', ['--out', saved])).code).toBe(0);
    const { digest: _digest, ...content } = JSON.parse(await readFile(saved, 'utf8')) as Record<
      string,
      unknown
    >;
    const ids = JSON.parse(before) as { resources: Record<string, { id: string; name: string }> };
    const uk = ids.resources['parser.category-uk'];
    const edited = {
      ...content,
      status: 'changes',
      moved: [
        { from: 'parser.category-uk', to: 'parser.category-zz', kind: 'Parser', id: uk?.id, name: uk?.name },
      ],
    };
    await writeFile(
      saved,
      JSON.stringify({ ...edited, digest: digestOf(JSON.stringify(edited, null, 2)) }, null, 2),
    );

    const applied = await run('apply', ['--plan', saved, '--auto-approve']);
    expect(applied.stderr).toContain(
      'error: refusing the saved plan: parser.category-zz: the saved plan moves it from parser.category-uk, and a fresh plan does not',
    );
    expect(applied.code).toBe(1);
    expect(sent()).toEqual([]);
    expect(await readFile(path.join(dir, 'state.json'), 'utf8')).toBe(before);
  });

  // A partial plan promises that changes to other objects are neither shown nor applied: a move is a change of
  // state, so a targeted plan makes only the moves of the objects it chose (either end of the hint).
  it('--target and --exclude leave the moves of objects they did not choose alone: shown nowhere, state kept', async () => {
    const before = await stateOf();
    const hint = '  - { from: parser.category-uk, to: parser.category-gb }\n';
    await writeFile(path.join(dir, 'manifests', 'category.yaml'), manifest(['de', 'fr', 'gb'], hint));
    const other = await run('plan', ['--target', 'parser.category-de', '--json']);
    expect(other.code, other.stderr).toBe(0);
    const json = JSON.parse(other.stdout) as { status: string; moved?: unknown };
    expect(json.moved).toBeUndefined();
    expect(json.status).toBe('no_changes');
    const excluded = await run('plan', [
      '--exclude',
      'parser.category-gb',
      '--exclude',
      'parser.category-uk',
      '--target',
      'parser.category-fr',
    ]);
    expect(excluded.code, excluded.stderr).toBe(0);
    expect(excluded.stdout).not.toContain('Moved');
    // Its new address excluded, the object is left alone at its old one too: neither moved nor deleted there.
    const away = JSON.parse((await run('plan', ['--exclude', 'parser.category-gb', '--json'])).stdout) as {
      moved?: { from: string; to: string }[];
      resource_changes: { address: string; action: string }[];
    };
    expect(away.moved?.map((m) => `${m.from} -> ${m.to}`)).toEqual([
      'project.nightly-uk -> project.nightly-gb',
    ]);
    expect(away.resource_changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      'update project.nightly-gb',
    ]);
    const applied = await run('apply', ['--auto-approve', '--target', 'parser.category-de']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(sent()).toEqual([]);
    const after = await stateOf();
    expect(after['parser.category-uk']?.id).toBe(before['parser.category-uk']?.id);
    expect(after['parser.category-gb']).toBeUndefined();
    // Chosen by either end, the move is made as before (the old address alone would plan a delete).
    for (const address of ['parser.category-gb', 'parser.category-uk']) {
      const chosen = JSON.parse((await run('plan', ['--target', address, '--json'])).stdout) as {
        moved?: { from: string; to: string }[];
      };
      expect(chosen.moved?.map((m) => `${m.from} -> ${m.to}`)).toEqual([
        'parser.category-uk -> parser.category-gb',
      ]);
    }
  });

  it('without a hint, the renamed element is a delete and a create', async () => {
    await writeFile(path.join(dir, 'manifests', 'category.yaml'), manifest(['de', 'fr', 'gb']));
    const plan = await run('plan');
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(
      'Plan: 2 to create, 1 to delete, 1 to archive (1 regeneration, ~30,000 credits; project runs cost credits per page).',
    );
    expect(plan.stdout).toContain('- parser.category-uk');
    expect(plan.stdout).toContain('+ parser.category-gb');
    expect(plan.stdout).not.toContain('Moved');
  });

  it('a hint from an address state does not hold is ignored with a note; the object is created', async () => {
    const hint = '  - { from: parser.category-xx, to: parser.category-gb }\n';
    await writeFile(path.join(dir, 'manifests', 'category.yaml'), manifest(['de', 'fr', 'uk', 'gb'], hint));
    const plan = await run('plan');
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(
      'Plan: 2 to create (1 regeneration, ~30,000 credits; project runs cost credits per page).',
    );
    expect(plan.stdout).toContain(
      'warning: parser.category-gb: moved from parser.category-xx, but state has nothing at parser.category-xx; the hint is ignored and parser.category-gb is planned as declared',
    );
  });

  it('a hint onto an address state holds already is an error, and nothing is sent', async () => {
    // category-fr is managed already: the hint cannot give it category-uk's state as well.
    const hint = '  - { from: parser.category-uk, to: parser.category-fr }\n';
    await writeFile(path.join(dir, 'manifests', 'category.yaml'), manifest(['de', 'fr'], hint));
    const plan = await run('apply', ['--auto-approve', '--allow-destroy']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(
      'parser.category-fr: moved from parser.category-uk, but state holds both parser.category-uk and parser.category-fr; the hint cannot say which to keep: remove it (both stay managed), or remove one from state',
    );
    expect(sent()).toEqual([]);
  });

  it('a hint whose to names no declared object is refused at its line, and nothing is sent', async () => {
    const hint = '  - { from: parser.category-uk, to: parser.category-bg }\n';
    await writeFile(path.join(dir, 'manifests', 'category.yaml'), manifest(['de', 'fr', 'gb'], hint));
    const plan = await run('plan');
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(
      `${path.join(dir, 'manifests', 'category.yaml')}:8:5 moved: to parser.category-bg names no declared object`,
    );
    expect(h.emulator.requestLog).toEqual([]);
  });
});

/** The example of docs/manifests.md ("Renaming objects: moved"), as written there: the rename is a state move alone. */
describe('the moved example of docs/manifests.md', () => {
  it('plans the uk -> gb rename as a move with no call, where its URLs would once have replaced the parser', async () => {
    const docs = await readFile(path.resolve(import.meta.dirname, '../../docs/manifests.md'), 'utf8');
    const section = docs.slice(docs.indexOf('### Renaming objects'));
    const example = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    expect(example).toContain('- { from: parser.category-uk, to: parser.category-gb }');
    const before = example.replace('country: gb', 'country: uk').replace(/moved:[\s\S]*$/, '');
    const h = await startTestEmulator();
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-moved-docs-'));
    try {
      const run = (command: string, extra: string[] = []) =>
        runScrapeform([command, dir, '--state', path.join(dir, '.state.json'), ...extra], {
          env: {
            SCRAPERAPI_API_KEY: EMULATOR_KEY,
            SCRAPEFORM_PARSER_URL: h.emulator.url,
            SCRAPEFORM_PIPELINE_URL: h.emulator.url,
            SCRAPEFORM_POLL_INTERVAL: '10ms',
          },
        });
      await writeFile(path.join(dir, 'category.yaml'), before);
      const created = await run('apply', ['--auto-approve']);
      expect(created.code, created.stderr).toBe(0);
      await writeFile(path.join(dir, 'category.yaml'), example);
      const planned = await run('plan', ['--json']);
      expect(planned.code, planned.stderr).toBe(0);
      const plan = JSON.parse(planned.stdout) as {
        resource_changes: unknown[];
        moved?: { from: string; to: string }[];
        summary: { estimated_credits: number };
      };
      expect(plan.moved?.map((m) => `${m.from} -> ${m.to}`)).toEqual([
        'parser.category-uk -> parser.category-gb',
      ]);
      expect(plan.resource_changes).toEqual([]);
      expect(plan.summary.estimated_credits).toBe(0);
      h.emulator.requestLog.length = 0;
      const applied = await run('apply', ['--auto-approve']);
      expect(applied.code, applied.stderr).toBe(0);
      expect(h.emulator.requestLog.filter((e) => e.method !== 'GET')).toEqual([]);
      expect((await run('plan', ['--detailed-exitcode'])).code).toBe(0);
    } finally {
      await h.emulator.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
