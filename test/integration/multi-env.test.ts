import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ParsersClient } from '../../src/api/parsers-client.js';
import { ProjectsClient } from '../../src/api/projects-client.js';
import { Transport } from '../../src/api/transport.js';
import { startEmulator } from '../../src/emulator/server.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { parsePlanFile } from '../../src/plan/plan-file.js';
import type { Plan } from '../../src/plan/model.js';
import { runBuiltCli } from '../helpers/child-cli.js';

/**
 * The team repository of issue 16, written with no generator and no wrapper: three teams' folders, a template
 * used by several parsers, a for_each of 8 countries in prod (3 in staging), a project template, staging and prod
 * with different variables and accounts, and a folder only prod reads. Each environment is planned and applied
 * against its own account of one emulator, and a second plan of each is empty.
 */
const STAGING_KEY = 'staging-key-5d1a';
const PROD_KEY = 'prod-key-93be';
const COUNTRIES = ['de', 'fr', 'it', 'es', 'nl', 'pl', 'se', 'at'];

const FILES: Record<string, string> = {
  'scrapeform.yaml': `kind: Config
variables:
  shop: { type: string, default: https://books.example }
  edition: { type: string, default: live }
  render: { type: boolean, default: false }
  countries: { type: list, description: one category parser per element }
environments:
  staging:
    paths: [templates, teams]
    variables:
      edition: staging
      countries: [{ country: de }, { country: fr }, { country: it }]
    state: .scrapeform/staging.json
    apiKeyEnv: STAGING_KEY
    parserUrl: \${EMULATOR_URL}
    pipelineUrl: \${EMULATOR_URL}
  prod:
    paths: [templates, teams, legacy]
    varFiles: [vars/prod.yaml]
    state: .scrapeform/prod.json
    apiKeyEnv: PROD_KEY
    parserUrl: \${EMULATOR_URL}
    pipelineUrl: \${EMULATOR_URL}
`,
  'vars/prod.yaml': `countries:\n${COUNTRIES.map((c) => `  - { country: ${c} }`).join('\n')}\n`,
  'templates/product.yaml': `kind: ParserTemplate
name: product
scraper_params:
  render: \${var.render}
fields:
  title: { description: Title from the main heading, selector: h1 }
  price: { description: 'Price including tax, as a number', type: number }
  availability: { description: Stock availability text }
`,
  'templates/crawl.yaml': `kind: ProjectTemplate
name: nightly
projectType: urls
scrapingInterval: daily
schedulingEnabled: true
notificationConfig: { notifyOnSuccess: never }
`,
  'teams/catalogue/books.yaml': `kind: Parser
name: books-product
extends: product
urls: ['\${var.shop}/catalogue/a-light-in-the-attic_1000/index.html?edition=\${var.edition}']
fields:
  upc: { description: Universal product code }
---
kind: Parser
name: ebooks-product
extends: product
urls: ['\${var.shop}/catalogue/soumission_998/index.html?edition=\${var.edition}']
fields:
  price: { description: 'Price of the download, as a number' }
  availability: null
`,
  'teams/search/category.yaml': `x-listing: &listing
  description: Books listed on the category page
  fields:
    title: { description: Book title as linked }
kind: Parser
name: category-\${each.country}
extends: product
for_each: \${var.countries}
urls: ['\${var.shop}/catalogue/page-1.html?country=\${each.country}&edition=\${var.edition}']
scraper_params:
  country_code: \${each.country}
fields:
  books: *listing
`,
  'teams/partners/nightly.yaml': `kind: Project
name: partners-nightly
extends: nightly
projectInput:
  type: list
  list: ['\${var.shop}/catalogue/page-2.html?edition=\${var.edition}']
`,
  'legacy/old-catalogue.yaml': `kind: Project
name: old-catalogue
projectType: urls
projectInput: { type: list, list: [https://books.example/catalogue/page-1.html] }
`,
};

let emulator: RunningEmulator;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ apiKeys: [STAGING_KEY, PROD_KEY], generationDelayMs: 20, seed: 1 });
  dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-multi-env-'));
  for (const [name, text] of Object.entries(FILES)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
});

afterAll(async () => {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

/** The CLI as CI runs it: keys in their own variables, no SCRAPEFORM_* URL (the environment gives them). */
function scrapeform(args: string[], cwd = dir): ReturnType<typeof runBuiltCli> {
  return runBuiltCli(args, {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      CI: 'true',
      STAGING_KEY,
      PROD_KEY,
      EMULATOR_URL: emulator.url,
      SCRAPEFORM_POLL_INTERVAL: '20ms',
    },
  });
}

async function planJson(args: string[]): Promise<Plan> {
  const run = await scrapeform(['plan', '--json', ...args]);
  expect(run.stderr).not.toContain('error');
  expect(run.code).toBe(0);
  return parsePlanFile(run.stdout, 'plan --json');
}

function clientsFor(key: string): { parsers: ParsersClient; projects: ProjectsClient } {
  const transport = new Transport({ apiKey: key, retry: { maxRetries: 0 } });
  return {
    parsers: new ParsersClient(transport, emulator.url),
    projects: new ProjectsClient(transport, emulator.url),
  };
}

describe('a team repository with templates, for_each and two environments', () => {
  it('validates every environment without --env, and refuses plan without one', async () => {
    const validate = await scrapeform(['validate']);
    expect(validate.code).toBe(0);
    expect(validate.stdout).toContain('staging: 5 parsers, 1 project; prod: 10 parsers, 2 projects');
    const plan = await scrapeform(['plan']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(
      'scrapeform.yaml:7:1 environments: choose an environment with --env: staging, prod',
    );
    expect(emulator.requestLog).toEqual([]);
  });

  it.each([
    ['staging', STAGING_KEY, ['category-de', 'category-fr', 'category-it'], ['partners-nightly']],
    ['prod', PROD_KEY, COUNTRIES.map((c) => `category-${c}`), ['old-catalogue', 'partners-nightly']],
  ])(
    'plans and applies %s on its own account, then plans nothing',
    async (env, key, categories, projects) => {
      const first = await planJson(['--env', env]);
      const parsers = ['books-product', 'ebooks-product', ...categories].sort();
      expect(
        first.resource_changes.filter((c) => c.kind === 'Parser').map((c) => [c.name, c.action]),
      ).toEqual(parsers.map((name) => [name, 'create']));
      expect(first.resource_changes.filter((c) => c.kind === 'Project').map((c) => c.name)).toEqual(projects);

      // The human plan says where a generated or inherited object's values come from.
      const human = await scrapeform(['plan', '--env', env]);
      expect(human.stdout).toContain(
        '# from teams/search/category.yaml:1, for_each[1] at teams/search/category.yaml:8, ParserTemplate "product" at templates/product.yaml:1',
      );
      expect(human.stdout).toContain(
        '# from teams/partners/nightly.yaml:1, ProjectTemplate "nightly" at templates/crawl.yaml:1',
      );

      const applied = await scrapeform(['apply', '--env', env, '--auto-approve']);
      expect(applied.stderr).not.toContain('error');
      expect(applied.code).toBe(0);
      const second = await planJson(['--env', env]);
      expect(second.status).toBe('no_changes');

      // Each environment's objects live in its own account and its own state file.
      const live = clientsFor(key);
      expect((await live.parsers.list()).map((p) => p.name).sort()).toEqual(parsers);
      expect((await live.projects.list()).map((p) => p.name).sort()).toEqual(projects);
      const state = JSON.parse(await readFile(path.join(dir, '.scrapeform', `${env}.json`), 'utf8')) as {
        resources: Record<string, unknown>;
      };
      expect(Object.keys(state.resources)).toHaveLength(parsers.length + projects.length);
    },
  );

  it('reads the values each environment gives: staging its own, prod its var file and the defaults', async () => {
    const staging = await scrapeform(['render', '--env', 'staging']);
    expect(staging.code).toBe(0);
    expect(staging.stdout).toContain(
      'https://books.example/catalogue/page-1.html?country=de&edition=staging',
    );
    const prod = await scrapeform(['render', '--env', 'prod']);
    expect(prod.stdout).toContain('https://books.example/catalogue/page-1.html?country=at&edition=live');
    expect(prod.stdout).not.toContain('edition=staging');
    // ebooks-product drops availability and overrides price's description; books-product adds upc.
    expect(prod.stdout).toContain('Price of the download, as a number');
    const ebooks = prod.stdout.split('---\n').find((doc) => doc.includes('name: ebooks-product')) ?? '';
    expect(ebooks).toContain('title:');
    expect(ebooks).not.toContain('availability');
  });

  it('plans the delete of one instance when a --var-file removes its element, and nothing else', async () => {
    await writeFile(
      path.join(dir, 'fewer.yaml'),
      `countries:\n${COUNTRIES.filter((c) => c !== 'pl')
        .map((c) => `  - { country: ${c} }`)
        .join('\n')}\n`,
    );
    const plan = await planJson(['--env', 'prod', '--var-file', 'fewer.yaml']);
    expect(plan.resource_changes.map((c) => [c.address, c.action])).toEqual([
      ['parser.category-pl', 'delete'],
    ]);
  });
});

describe('a saved plan stays with its environment', () => {
  it('a plan saved for staging is refused by apply --env prod, and nothing is changed', async () => {
    await writeFile(path.join(dir, 'two.yaml'), 'countries:\n  - { country: de }\n  - { country: fr }\n');
    const saved = await scrapeform([
      'plan',
      '--env',
      'staging',
      '--var-file',
      'two.yaml',
      '--out',
      'staging.plan',
    ]);
    expect(saved.code).toBe(0);
    expect(saved.stdout).toContain('parser.category-it');
    const before = emulator.requestLog.length;
    const applied = await scrapeform([
      'apply',
      '--env',
      'prod',
      '--plan',
      'staging.plan',
      '--auto-approve',
      '--allow-destroy',
    ]);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain(
      `error: refusing the saved plan: it was made for environment staging (${emulator.url} and ${emulator.url}), and this run is for environment prod (${emulator.url} and ${emulator.url})`,
    );
    expect(emulator.requestLog.slice(before).filter((r) => r.method !== 'GET')).toEqual([]);
  });
});

describe('paths on the command line narrow the environment', () => {
  it('refuses a folder the environment does not read, sending nothing', async () => {
    const before = emulator.requestLog.length;
    const run = await scrapeform(['plan', '--env', 'staging', 'legacy']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'legacy: not among the paths of environment "staging" (templates, teams)\n  hint: paths on the command line narrow the environment\'s paths: name a file or folder under them, or the environment that reads this one',
    );
    expect(emulator.requestLog.length).toBe(before);
  });

  it("plans only the objects under the paths, with the environment's templates, and deletes nothing else", async () => {
    await writeFile(path.join(dir, 'edition.yaml'), 'edition: next\n');
    for (const env of ['staging', 'prod']) {
      const plan = await planJson(['--env', env, '--var-file', 'edition.yaml', 'teams/catalogue']);
      expect(plan.resource_changes.map((c) => [c.address, c.action])).toEqual([
        ['parser.books-product', 'replace'],
        ['parser.ebooks-product', 'replace'],
      ]);
      expect(plan.warnings).toContain(
        'partial plan: only the objects declared under teams/catalogue (paths given); changes to other objects are neither shown nor applied, and a plan without these flags may have more',
      );
      // Without the paths the same values change every object that reads the edition.
      const whole = await planJson(['--env', env, '--var-file', 'edition.yaml']);
      expect(whole.resource_changes.length).toBeGreaterThan(2);
    }
    // A folder holding no object of the environment plans nothing at all, where it planned deleting everything.
    const none = await planJson(['--env', 'staging', 'templates']);
    expect(none.resource_changes).toEqual([]);
  });

  it('drift looks only at the objects under the paths, as the plan does', async () => {
    const narrowed = await scrapeform(['drift', '--env', 'staging', 'teams/catalogue', '--json']);
    expect(narrowed.code, narrowed.stderr).toBe(0);
    const report = JSON.parse(narrowed.stdout) as { summary: { objects: number }; warnings: string[] };
    expect(report.summary.objects).toBe(2);
    expect(report.warnings).toContain(
      'partial drift report: only the objects declared under teams/catalogue (paths given)',
    );
    const whole = JSON.parse((await scrapeform(['drift', '--env', 'staging', '--json'])).stdout) as {
      summary: { objects: number };
    };
    expect(whole.summary.objects).toBe(6);
  });
});

describe('bad input sends nothing', () => {
  const BROKEN = path.resolve(import.meta.dirname, '../fixtures/broken');
  it.each([
    ['extends-unknown.yaml', 'unknown ParserTemplate "prodcut-page"'],
    ['extends-cycle.yaml', 'extends forms a cycle: base -> product-page -> base'],
    ['each-outside-for-each.yaml', '${each.country} is used outside for_each'],
    ['unknown-variable', '${var.regoin}: no variable "regoin" is declared'],
    ['duplicate-generated-name.yaml', 'duplicate Parser name "books-de"'],
    ['merge-not-a-map.yaml', 'the merge key << takes a map or a list of maps, got the boolean true'],
  ])('%s: plan fails before any request', async (fixture, message) => {
    const work = await mkdtemp(path.join(tmpdir(), 'scrapeform-broken-'));
    try {
      await cp(path.join(BROKEN, fixture), path.join(work, fixture), { recursive: true });
      const before = emulator.requestLog.length;
      const run = await runBuiltCli(['plan', fixture], {
        cwd: work,
        env: {
          PATH: process.env.PATH ?? '',
          CI: 'true',
          SCRAPERAPI_API_KEY: STAGING_KEY,
          SCRAPEFORM_PARSER_URL: emulator.url,
          SCRAPEFORM_PIPELINE_URL: emulator.url,
        },
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(message);
      expect(emulator.requestLog.length).toBe(before);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});

describe('a mistake in scrapeform.yaml', () => {
  /** The repository with its scrapeform.yaml edited, in a folder of its own; the CLI run there, then removed. */
  async function runEdited(edit: (config: string) => string, args: string[]): ReturnType<typeof scrapeform> {
    const edited = await mkdtemp(path.join(tmpdir(), 'scrapeform-multi-env-edited-'));
    try {
      for (const [name, text] of Object.entries(FILES)) {
        await mkdir(path.dirname(path.join(edited, name)), { recursive: true });
        await writeFile(path.join(edited, name), name === 'scrapeform.yaml' ? edit(text) : text);
      }
      return await scrapeform(args, edited);
    } finally {
      await rm(edited, { recursive: true, force: true });
    }
  }

  it('reports a varFiles entry that cannot be read at the entry, sending nothing', async () => {
    const before = emulator.requestLog.length;
    const run = await runEdited(
      (config) => config.replace('varFiles: [vars/prod.yaml]', 'varFiles: [vars/prod.yaml, vars/prodX.yaml]'),
      ['plan', '--env', 'prod'],
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'scrapeform.yaml:19:32 environments.prod.varFiles[1]: cannot read var file "vars/prodX.yaml": no such file\n  hint: varFiles are relative to scrapeform.yaml: fix the path, or remove the entry',
    );
    expect(emulator.requestLog.length).toBe(before);
  });

  it('refuses two environments on one PostgreSQL database spelled two ways, before connecting to it', async () => {
    const before = emulator.requestLog.length;
    const run = await runEdited(
      (config) =>
        config
          .replace('state: .scrapeform/staging.json', 'state: postgres://ci@db.invalid/scrapeform')
          .replace('state: .scrapeform/prod.json', 'state: postgresql://ci@DB.invalid:5432/scrapeform'),
      ['plan', '--env', 'staging'],
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `scrapeform.yaml:17:3 environments.prod: environments "staging" and "prod" share one state (postgresql://ci@DB.invalid:5432/scrapeform, workspace default): each would plan deleting the other's objects`,
    );
    expect(emulator.requestLog.length).toBe(before);
  });
});
