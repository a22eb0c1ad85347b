import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { tempProjects } from '../helpers/temp-projects.js';

const q = `api_key=${EMULATOR_KEY}`;
const BOOK = 'https://books.example/catalogue/page-1.html';

/** Two environments, each with its own folder and state; prod excludes a folder of drafts. */
const CONFIG = `kind: Config
environments:
  staging:
    paths: [staging]
    state: .scrapeform/staging.json
  prod:
    paths: [prod, shared]
    exclude: [prod/drafts/, prod/project-old-*.yaml]
    state: .scrapeform/prod.json
`;

/** A project as a manifest and as the body that makes the same one live by hand. */
const NIGHTLY_MANIFEST = `kind: Project\nname: nightly\nprojectType: urls\nprojectInput: { type: list, list: ["${BOOK}"] }\nscrapingInterval: daily\n`;
const NIGHTLY_LIVE = {
  name: 'nightly',
  projectInput: { type: 'list', list: [BOOK] },
  scrapingInterval: 'daily',
};

/**
 * `import --env NAME` reads and writes the manifests of that environment: an object one of its manifests declares
 * is not imported again, and the manifests it writes are ones the next `plan --env NAME` reads.
 */
describe('import with environments', () => {
  let h: EmulatorHarness;
  const project = tempProjects('scrapeform-import-env-');
  const home = process.cwd();
  let dir: string;
  const env = (): Record<string, string> => ({
    SCRAPERAPI_API_KEY: EMULATOR_KEY,
    SCRAPEFORM_PARSER_URL: h.emulator.url,
    SCRAPEFORM_PIPELINE_URL: h.emulator.url,
    SCRAPEFORM_POLL_INTERVAL: '10ms',
  });
  // scrapeform.yaml is found in the folder a command runs in, as for a user running import at the project root.
  const scrapeform = (args: string[]) => runScrapeform(['--chdir', dir, ...args], { env: env() });
  const stateOf = async (name: string): Promise<Record<string, unknown>> =>
    (
      JSON.parse(await readFile(path.join(dir, '.scrapeform', `${name}.json`), 'utf8')) as {
        resources: Record<string, unknown>;
      }
    ).resources;

  beforeAll(async () => {
    h = await startTestEmulator();
  });
  afterAll(async () => h.emulator.close());
  beforeEach(async () => {
    h.emulator.reset();
    dir = await project({
      'scrapeform.yaml': CONFIG,
      'prod/nightly.yaml': NIGHTLY_MANIFEST,
      'staging/.keep': '',
      'shared/.keep': '',
    });
    for (const body of [NIGHTLY_LIVE, { ...NIGHTLY_LIVE, name: 'legacy' }])
      expect((await h.raw('POST', `/api/projects?${q}`, body)).status).toBe(201);
  });
  afterEach(() => process.chdir(home));

  it('a second import gives a new project whose file name an imported manifest holds the next suffix', async () => {
    const first = await scrapeform(['import', '--env', 'prod']);
    expect(first.stdout).toBe(`imported project.legacy -> ${path.join('prod', 'project-legacy.yaml')}\n`);
    expect((await h.raw('POST', `/api/projects?${q}`, { ...NIGHTLY_LIVE, name: 'Legacy' })).status).toBe(201);
    const second = await scrapeform(['import', '--env', 'prod']);
    expect([second.code, second.stdout, second.stderr]).toEqual([
      0,
      `imported project.Legacy -> ${path.join('prod', 'project-legacy-2.yaml')}\n`,
      '',
    ]);
    // nightly is declared and live, never applied: the plan adopts it, and neither imported project changes.
    const plan = await scrapeform(['plan', '--env', 'prod', '--json']);
    expect(plan.code, plan.stderr).toBe(0);
    const changes = (JSON.parse(plan.stdout) as { resource_changes: { address: string; action: string }[] })
      .resource_changes;
    expect(changes.map((c) => [c.address, c.action])).toEqual([['project.nightly', 'adopt']]);
  });

  it('leaves alone what a manifest of the environment declares, and the plan converges', async () => {
    const imported = await scrapeform(['import', '--env', 'prod', '--out', 'prod']);
    expect([imported.code, imported.stderr]).toEqual([
      0,
      `Added .scrapeform/ (local state) to ${path.join(dir, '.gitignore')}.\n`,
    ]);
    expect(imported.stdout).toBe(`imported project.legacy -> ${path.join('prod', 'project-legacy.yaml')}\n`);
    expect((await readdir(path.join(dir, 'prod'))).sort()).toEqual(['nightly.yaml', 'project-legacy.yaml']);
    expect(Object.keys(await stateOf('prod'))).toEqual(['project.legacy']);
    // nightly is declared and live: the plan adopts it, creates nothing and deletes nothing.
    const plan = await scrapeform(['plan', '--env', 'prod', '--json']);
    expect(plan.code, plan.stderr).toBe(0);
    const changes = (JSON.parse(plan.stdout) as { resource_changes: { address: string; action: string }[] })
      .resource_changes;
    expect(changes.map((c) => [c.address, c.action])).toEqual([['project.nightly', 'adopt']]);
    const apply = await scrapeform(['apply', '--env', 'prod', '--auto-approve', '--allow-adopt']);
    expect(apply.code, apply.stderr).toBe(0);
    const again = await scrapeform(['plan', '--env', 'prod', '--detailed-exitcode']);
    expect([again.code, again.stdout.split('\n')[0]]).toEqual([
      0,
      'No changes. The live services match the manifests.',
    ]);
  });

  it.each([
    [
      'the first path of the environment when --out is left out',
      [],
      path.join('prod', 'project-legacy.yaml'),
    ],
    [
      'any path of the environment given with --out',
      ['--out', 'shared/imported'],
      path.join('shared', 'imported', 'project-legacy.yaml'),
    ],
  ])('writes into %s, and the next plan reads it: no changes', async (_, out, file) => {
    const imported = await scrapeform(['import', '--env', 'prod', ...out, '--filter', 'legacy']);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toBe(`imported project.legacy -> ${file}\n`);
    const plan = await scrapeform([
      'plan',
      '--env',
      'prod',
      '--target',
      'project.legacy',
      '--detailed-exitcode',
    ]);
    expect([plan.code, plan.stdout.split('\n')[0]]).toEqual([
      0,
      'No changes among the objects selected (a partial plan: see its warning).',
    ]);
  });

  it('refuses an --out the environment does not read, before any call, writing nothing', async () => {
    const cases = [
      [
        'staging',
        `error: --out staging: environment "prod" does not read it (its paths: prod, shared); the next plan --env prod would not see the manifests imported there and would plan deleting their objects; nothing was imported\n  hint: import into one of its paths, or leave --out out to write into the first folder (prod)\n`,
      ],
      [
        'prod/drafts',
        `error: --out prod/drafts: environment "prod" excludes it (exclude: prod/drafts/, prod/project-old-*.yaml); the next plan --env prod would not see the manifests imported there and would plan deleting their objects; nothing was imported\n  hint: import into one of its paths, or leave --out out to write into the first folder (prod)\n`,
      ],
      [
        'prod/.hidden',
        `error: --out prod/.hidden: environment "prod" does not read it (a .scrapeformignore, a hidden folder, node_modules or another project's folder); the next plan --env prod would not see the manifests imported there and would plan deleting their objects; nothing was imported\n  hint: import into one of its paths, or leave --out out to write into the first folder (prod)\n`,
      ],
    ] as const;
    for (const [out, message] of cases) {
      const before = h.emulator.requestLog.length;
      const run = await scrapeform(['import', '--env', 'prod', '--out', out]);
      expect([run.code, run.stdout, run.stderr], out).toEqual([1, '', message]);
      expect(h.emulator.requestLog.length, out).toBe(before);
    }
    expect((await readdir(path.join(dir, 'staging'))).sort()).toEqual(['.keep']);
    expect(await readdir(path.join(dir, 'prod'))).toEqual(['nightly.yaml']);
    await expect(readdir(path.join(dir, '.scrapeform'))).rejects.toThrow('ENOENT');
  });

  it('refuses a folder another environment reads too, before any call, unless --allow-shared-out', async () => {
    await writeFile(
      path.join(dir, 'scrapeform.yaml'),
      CONFIG.replace('paths: [staging]', 'paths: [shared, staging]').replace(
        'exclude: [',
        'exclude: [shared/stg/, ',
      ),
    );
    const before = h.emulator.requestLog.length;
    // Without --out: the first path, shared, which prod reads too.
    for (const out of [[], ['--out', 'shared/sub']]) {
      const run = await scrapeform(['import', '--env', 'staging', ...out]);
      const folder = out.length === 0 ? 'shared' : 'shared/sub';
      expect([run.code, run.stdout, run.stderr], folder).toEqual([
        1,
        '',
        `error: --out ${folder}: environment "prod" reads it too, whose next plan would create what is imported there for "staging"; nothing was imported\n  hint: import into a folder only "staging" reads (--out, or a path of its own in scrapeform.yaml), or pass --allow-shared-out if the other environments should declare these objects too\n`,
      ]);
    }
    expect(h.emulator.requestLog.length).toBe(before);
    expect(await readdir(path.join(dir, 'shared'))).toEqual(['.keep']);
    await expect(stateOf('staging')).rejects.toThrow('ENOENT');

    // A folder prod excludes, or one only staging reads, is staging's own.
    const own = await scrapeform(['import', '--env', 'staging', '--out', 'shared/stg', '--filter', 'legacy']);
    expect([own.code, own.stdout], own.stderr).toEqual([
      0,
      `imported project.legacy -> ${path.join('shared', 'stg', 'project-legacy.yaml')}\n`,
    ]);
    const allowed = await scrapeform(['import', '--env', 'staging', '--allow-shared-out']);
    expect([allowed.code, allowed.stdout], allowed.stderr).toEqual([
      0,
      `imported project.nightly -> ${path.join('shared', 'project-nightly.yaml')}\n`,
    ]);
  });

  it('writes into the first path of the environment that is a folder, and refuses an --out that is a file', async () => {
    await writeFile(
      path.join(dir, 'scrapeform.yaml'),
      CONFIG.replace('paths: [prod, shared]', 'paths: [prod/nightly.yaml, shared]'),
    );
    const before = h.emulator.requestLog.length;
    const refused = await scrapeform(['import', '--env', 'prod', '--out', 'prod/nightly.yaml']);
    expect([refused.code, refused.stdout, refused.stderr]).toEqual([
      1,
      '',
      `error: --out prod/nightly.yaml: a file, not a folder to write manifests into; the next plan --env prod would not see the manifests imported there and would plan deleting their objects; nothing was imported\n  hint: import into one of its paths, or leave --out out to write into the first folder (shared)\n`,
    ]);
    const under = await scrapeform(['import', '--env', 'prod', '--out', 'prod/nightly.yaml/sub']);
    expect([under.code, under.stderr.split('\n')[0]]).toEqual([
      1,
      'error: --out prod/nightly.yaml/sub: a file, not a folder to write manifests into; the next plan --env prod would not see the manifests imported there and would plan deleting their objects; nothing was imported',
    ]);
    expect(h.emulator.requestLog.length).toBe(before);
    const imported = await scrapeform(['import', '--env', 'prod', '--filter', 'legacy']);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toBe(
      `imported project.legacy -> ${path.join('shared', 'project-legacy.yaml')}\n`,
    );
  });

  it('refuses a file the environment would not read, before writing anything', async () => {
    expect((await h.raw('POST', `/api/projects?${q}`, { ...NIGHTLY_LIVE, name: 'old-crawl' })).status).toBe(
      201,
    );
    const run = await scrapeform(['import', '--env', 'prod']);
    expect([run.code, run.stdout, run.stderr]).toEqual([
      1,
      '',
      `error: ${path.join('prod', 'project-old-crawl.yaml')}: environment "prod" excludes it (exclude: prod/drafts/, prod/project-old-*.yaml); the next plan --env prod would not read it and would plan deleting project.old-crawl; nothing was imported\n  hint: import into another of its folders with --out, or change what the environment reads\n`,
    ]);
    expect(await readdir(path.join(dir, 'prod'))).toEqual(['nightly.yaml']);
    await expect(stateOf('prod')).rejects.toThrow('ENOENT');
  });

  it('a manifest of the environment that cannot be read is an error, not "nothing declared"', async () => {
    dir = await project({
      'scrapeform.yaml': CONFIG,
      'prod/nightly.yaml': NIGHTLY_MANIFEST,
      'prod/broken.yaml': 'kind: Project\nname: [\n',
      'shared/.keep': '',
    });
    const run = await scrapeform(['import', '--env', 'prod']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`${path.join('prod', 'broken.yaml')}:3:1`);
    expect(run.stderr).toContain(
      'error: the manifests of environment "prod" have errors, so import cannot tell what they declare; nothing was imported\n',
    );
    expect(await readdir(path.join(dir, 'prod'))).toEqual(['broken.yaml', 'nightly.yaml']);
  });
});
