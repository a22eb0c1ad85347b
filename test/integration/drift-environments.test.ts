import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ParsersClient } from '../../src/api/parsers-client.js';
import { ProjectsClient } from '../../src/api/projects-client.js';
import { Transport } from '../../src/api/transport.js';
import { runScrapeform } from '../helpers/cli.js';
import type { CliRun } from '../helpers/cli.js';
import { EMULATOR_KEY, startTestEmulator, waitForVersion } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { tempProjects } from '../helpers/temp-projects.js';

const PROD_KEY = 'prod-key-3f9a';
const BOOK = 'https://books.example/catalogue/tipping-the-velvet_999/index.html';

/**
 * The layout examples/multi-env encourages: both environments read one folder, a variable telling their objects
 * apart; prod excludes one file of it, which only staging reads.
 */
const CONFIG = `kind: Config
variables:
  suffix: { type: string }
  interval: { type: string, default: daily }
environments:
  staging:
    paths: [m]
    exclude: [m/prod-*.yaml]
    variables: { suffix: stg }
    state: .scrapeform/staging.json
  prod:
    paths: [m]
    exclude: [m/staging-only.yaml]
    variables: { suffix: prd }
    state: .scrapeform/prod.json
    apiKeyEnv: SCRAPERAPI_PROD_KEY
`;
const SHARED = `kind: Parser
name: sh-\${var.suffix}
urls: [${BOOK}]
fields:
  title: { description: Book title, selector: h1 }
  price: { description: Price including tax, type: number }
`;
/** Two projects only prod reads: one's interval written with a reference, the other's as a value. */
const PROD_CRAWLS = `kind: Project
name: crawl-\${var.suffix}
projectType: urls
projectInput: { type: list, list: ['${BOOK}'] }
scrapingInterval: \${var.interval}
---
kind: Project
name: other-\${var.suffix}
projectType: urls
projectInput: { type: list, list: ['${BOOK}'] }
scrapingInterval: daily
`;
const STAGING_ONLY = `kind: Parser
name: solo-\${var.suffix}
urls: [${BOOK}]
fields:
  title: { description: Book title, selector: h1 }
  price: { description: Price including tax, type: number }
`;

interface DriftJson {
  drift: { address: string; accept: { possible: boolean; note?: string } }[];
}

/**
 * `drift --accept --env A` never edits a document another environment reads too: the edit would rename or delete
 * that environment's object at its next plan. The report says so before --accept is tried.
 */
describe('drift --accept with environments that share manifests', () => {
  let h: EmulatorHarness;
  let prodParsers: ParsersClient;
  const project = tempProjects('scrapeform-drift-env-');
  const home = process.cwd();
  let dir: string;
  const scrapeform = (args: string[]): Promise<CliRun> =>
    runScrapeform(['--chdir', dir, ...args], {
      env: {
        SCRAPERAPI_API_KEY: EMULATOR_KEY,
        SCRAPERAPI_PROD_KEY: PROD_KEY,
        SCRAPEFORM_PARSER_URL: h.emulator.url,
        SCRAPEFORM_PIPELINE_URL: h.emulator.url,
        SCRAPEFORM_POLL_INTERVAL: '10ms',
      },
    });
  const prodProjects = (): ProjectsClient =>
    new ProjectsClient(new Transport({ apiKey: PROD_KEY, retry: { maxRetries: 0 } }), h.emulator.url);
  const idIn = async (env: string, address: string): Promise<string> =>
    String(
      (
        JSON.parse(await readFile(path.join(dir, '.scrapeform', `${env}.json`), 'utf8')) as {
          resources: Record<string, { id: string | number }>;
        }
      ).resources[address]?.id,
    );
  const converge = async (): Promise<void> => {
    for (const env of ['staging', 'prod']) {
      const applied = await scrapeform(['apply', '--env', env, '--auto-approve']);
      expect(applied.code, applied.stderr).toBe(0);
    }
  };
  const noChanges = async (env: string): Promise<void> => {
    const plan = await scrapeform(['plan', '--env', env, '--detailed-exitcode']);
    expect([plan.code, plan.stdout.split('\n')[0]], plan.stdout).toEqual([
      0,
      'No changes. The live services match the manifests.',
    ]);
  };

  beforeAll(async () => {
    h = await startTestEmulator({ apiKeys: [EMULATOR_KEY, PROD_KEY], generationDelayMs: 5 });
    const transport = new Transport({ apiKey: PROD_KEY, retry: { maxRetries: 0 } });
    prodParsers = new ParsersClient(transport, h.emulator.url);
  });
  afterAll(async () => h.emulator.close());
  beforeEach(async () => {
    h.emulator.reset();
    dir = await project({
      'scrapeform.yaml': CONFIG,
      'm/shared2.yaml': SHARED,
      'm/staging-only.yaml': STAGING_ONLY,
    });
  });
  afterEach(async () => {
    process.chdir(home);
    await h.emulator.projects.idle();
  });

  it('a parser deleted by hand in prod, declared by a document staging reads too, is not accepted: the document stays', async () => {
    await converge();
    await prodParsers.delete(await idIn('prod', 'parser.sh-prd'));

    const report = await scrapeform(['drift', '--env', 'prod', '--json']);
    expect(report.code, report.stderr).toBe(4);
    const why = `its document at ${path.join('m', 'shared2.yaml')}:1 is read by environment "staging" too, whose next plan would delete its object if it went; remove it by hand if no environment needs it, give each environment its own file, or revert with apply`;
    expect((JSON.parse(report.stdout) as DriftJson).drift).toMatchObject([
      { address: 'parser.sh-prd', accept: { possible: false, note: why } },
    ]);
    const human = await scrapeform(['drift', '--env', 'prod']);
    expect(human.stdout).toContain(`accept: not possible; ${why}`);
    expect(human.stdout).toContain(
      'Accept (scrapeform drift --accept): nothing can be accepted (see each object)',
    );

    const run = await scrapeform(['drift', '--env', 'prod', '--accept']);
    expect(run.code, run.stderr).toBe(4);
    expect(run.stderr).toContain(`not accepted: parser.sh-prd: ${why}\n`);
    expect(run.stderr).not.toContain('rewrote');
    expect(await readFile(path.join(dir, 'm', 'shared2.yaml'), 'utf8')).toBe(SHARED);
    await noChanges('staging');
  });

  it('a field renamed by hand in prod is not written into a document staging reads too; one only prod reads is accepted', async () => {
    await converge();
    const id = await idIn('prod', 'parser.sh-prd');
    const renamed = await prodParsers.update(id, 0, { rename_fields: [{ name: 'price', new_name: 'cost' }] });
    await waitForVersion(prodParsers, id, renamed.version);

    const run = await scrapeform(['drift', '--env', 'prod', '--accept']);
    expect(run.code, run.stderr).toBe(4);
    expect(run.stderr).toContain(
      `not accepted: parser.sh-prd: its document at ${path.join('m', 'shared2.yaml')}:1 is read by environment "staging" too, whose next plan would change its object to match; edit the manifest by hand (a variable for what differs between environments), give each environment its own file, or revert with apply\n`,
    );
    expect(await readFile(path.join(dir, 'm', 'shared2.yaml'), 'utf8')).toBe(SHARED);
    await noChanges('staging');

    // staging-only.yaml is excluded by prod: staging alone reads it, so accepting there edits it.
    const solo = await idIn('staging', 'parser.solo-stg');
    const moved = await h.parsers.update(solo, 0, { rename_fields: [{ name: 'price', new_name: 'cost' }] });
    await waitForVersion(h.parsers, solo, moved.version);
    const accepted = await scrapeform(['drift', '--env', 'staging', '--accept']);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stderr).toContain('accepted parser.solo-stg');
    expect(await readFile(path.join(dir, 'm', 'staging-only.yaml'), 'utf8')).toContain('  cost:');
    await noChanges('staging');
  });

  it('the report marks not possible what --accept refuses (a value written with a reference), and its summary says so', async () => {
    await writeFile(path.join(dir, 'm', 'prod-crawls.yaml'), PROD_CRAWLS);
    await converge();
    for (const address of ['project.crawl-prd', 'project.other-prd'])
      await prodProjects().update(Number(await idIn('prod', address)), { scrapingInterval: 'weekly' });

    const report = await scrapeform(['drift', '--env', 'prod', '--json']);
    expect(report.code, report.stderr).toBe(4);
    const why = `scrapingInterval at ${path.join('m', 'prod-crawls.yaml')}:5:19 is written with a reference`;
    const entries = (JSON.parse(report.stdout) as DriftJson).drift;
    expect(entries.map((d) => [d.address, d.accept.possible])).toEqual([
      ['project.crawl-prd', false],
      ['project.other-prd', true],
    ]);
    expect(entries[0]?.accept.note).toContain(why);
    const human = await scrapeform(['drift', '--env', 'prod']);
    expect(human.stdout.trimEnd().split('\n').at(-1)).toBe(
      'Accept (scrapeform drift --accept): 1 of 2 can be accepted, free, no call',
    );

    const run = await scrapeform(['drift', '--env', 'prod', '--accept']);
    expect(run.code, run.stderr).toBe(4);
    expect(run.stderr).toContain('accepted project.other-prd\n');
    expect(run.stderr).toContain(`not accepted: project.crawl-prd: ${why}`);
    const text = await readFile(path.join(dir, 'm', 'prod-crawls.yaml'), 'utf8');
    expect(text).toContain('scrapingInterval: ${var.interval}');
    expect(text).toContain('scrapingInterval: weekly');
  });
});
