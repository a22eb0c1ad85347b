import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { emulatorEnv, runBuiltCli } from '../helpers/child-cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';

/**
 * What scrapeform.yaml's environments must refuse before anything is sent: environments that share one state,
 * paths outside the environment, references that would carry a key into declared values.
 */
let h: EmulatorHarness;
const dirs: string[] = [];

beforeAll(async () => {
  h = await startTestEmulator();
});

afterAll(async () => {
  await h.emulator.close();
});

afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function project(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-env-guards-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
  return dir;
}

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    SCRAPERAPI_API_KEY: EMULATOR_KEY,
    SCRAPEFORM_PARSER_URL: h.emulator.url,
    SCRAPEFORM_PIPELINE_URL: h.emulator.url,
    SCRAPEFORM_POLL_INTERVAL: '20ms',
    ...extra,
  };
}

const BOOKS = `kind: Parser
name: \${var.prefix}books
urls: [https://books.example/catalogue/a-light-in-the-attic_1000/index.html]
fields:
  title: { description: Book title from the main heading, selector: h1 }
`;

describe('environments that share one state', () => {
  it('are refused by validate and by plan, at scrapeform.yaml, with nothing sent', async () => {
    const dir = await project({
      'scrapeform.yaml': `kind: Config
variables:
  prefix: { type: string }
environments:
  staging:
    variables: { prefix: stg- }
  prod:
    variables: { prefix: prd- }
`,
      'parsers/books.yaml': BOOKS,
    });
    const file = path.join(dir, 'scrapeform.yaml');
    const message = `${file}:7:3 environments.prod: environments "staging" and "prod" share one state (.scrapeform/state.json, workspace default): each would plan deleting the other's objects`;
    const validate = await runScrapeform(['validate', dir], { env: env() });
    expect(validate.code).toBe(1);
    expect(validate.stderr).toContain(message);
    const before = h.emulator.requestLog.length;
    for (const command of [
      ['plan', '--env', 'prod', dir, '--state', path.join(dir, 'prod.json')],
      ['apply', '--env', 'staging', '--auto-approve', dir, '--state', path.join(dir, 'staging.json')],
    ]) {
      const run = await runScrapeform(command, { env: env() });
      expect(run.code, command.join(' ')).toBe(1);
      expect(run.stderr, command.join(' ')).toContain(message);
    }
    expect(h.emulator.requestLog.length).toBe(before);
  });
});

describe("a state given on the command line that is another environment's", () => {
  it('is refused with --state and with --workspace, at that environment in scrapeform.yaml, with nothing sent', async () => {
    const dir = await project({
      'scrapeform.yaml': `kind: Config
variables:
  prefix: { type: string }
environments:
  staging:
    state: .scrapeform/staging.json
    variables: { prefix: stg- }
  prod:
    state: .scrapeform/staging.json
    workspace: prod
    variables: { prefix: prd- }
`,
      'parsers/books.yaml': BOOKS,
    });
    const file = path.join(dir, 'scrapeform.yaml');
    const prodState = path.join(dir, '.scrapeform', 'staging.json');
    expect(
      await runScrapeform(['apply', '--env', 'prod', '--auto-approve', dir], { env: env() }),
    ).toMatchObject({
      code: 0,
    });
    const before = h.emulator.requestLog.length;
    const message = (given: string): string =>
      `${file}:8:3 environments.prod: the state given (${given}, workspace prod) is environment "prod"'s, and this run is for environment "staging": its manifests would plan deleting prod's objects, and its key act on them`;
    const hint =
      'hint: leave --state and --workspace out to use the state of environment "staging", or choose --env prod';
    const drifted = path.join(dir, '.scrapeform', '.', 'staging.json');
    for (const [command, given] of [
      [['plan', '--env', 'staging', '--workspace', 'prod', dir], prodState],
      [
        ['apply', '--env', 'staging', '--auto-approve', '--allow-destroy', '--workspace', 'prod', dir],
        prodState,
      ],
      [['drift', '--env', 'staging', '--state', drifted, '--workspace', 'prod', dir], drifted],
    ] as const) {
      const run = await runScrapeform([...command], { env: env() });
      expect(run.code, command.join(' ')).toBe(1);
      expect(run.stderr, command.join(' ')).toContain(message(given));
      expect(run.stderr, command.join(' ')).toContain(hint);
    }
    // Run where scrapeform.yaml is, as import and the commands that need no key (state pull) read it there.
    for (const command of [
      ['import', '--env', 'staging', '--workspace', 'prod'],
      ['state', 'pull', '--env', 'staging', '--workspace', 'prod'],
    ]) {
      const run = await runBuiltCli(command, { cwd: dir, env: emulatorEnv(h.emulator.url, EMULATOR_KEY) });
      expect([run.code, run.stdout], command.join(' ')).toEqual([1, '']);
      expect(run.stderr, command.join(' ')).toContain(
        `scrapeform.yaml:8:3 environments.prod: the state given (.scrapeform/staging.json, workspace prod) is environment "prod"'s, and this run is for environment "staging"`,
      );
    }
    expect(h.emulator.requestLog.length).toBe(before);
    // Its own state, given as a flag, and another workspace of its own are still taken.
    const own = await runScrapeform(['plan', '--env', 'staging', '--workspace', 'review', dir], {
      env: env(),
    });
    expect([own.code, own.stdout.split('\n')[0]], own.stderr).toEqual([
      0,
      'Plan: 1 to create (1 regeneration, ~30,000 credits).',
    ]);
  });
});

describe('an --env that names what every object has (constructor, toString, __proto__)', () => {
  it('names no environment: refused at environments in scrapeform.yaml, not run on the default state', async () => {
    const dir = await project({
      'scrapeform.yaml': `kind: Config
variables:
  prefix: { type: string, default: live- }
environments:
  staging:
    state: .scrapeform/staging.json
    variables: { prefix: stg- }
  prod: {}
`,
      'parsers/books.yaml': BOOKS,
    });
    // prod names no state: it is SCRAPEFORM_STATE's (else .scrapeform/state.json), as an --env naming none would be.
    const prodEnv = env({ SCRAPEFORM_STATE: path.join(dir, 'prod.json') });
    expect(
      await runScrapeform(['apply', '--env', 'prod', '--auto-approve', dir], { env: prodEnv }),
    ).toMatchObject({ code: 0 });
    const prodState = await readFile(path.join(dir, 'prod.json'), 'utf8');
    const before = h.emulator.requestLog.length;
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      for (const command of [
        ['plan', '--env', name, dir],
        ['apply', '--env', name, '--auto-approve', '--allow-destroy', dir],
        ['validate', '--env', name, dir],
      ]) {
        const run = await runScrapeform(command, { env: prodEnv });
        expect([run.code, run.stdout], command.join(' ')).toEqual([1, '']);
        expect(run.stderr, command.join(' ')).toContain(
          `${path.join(dir, 'scrapeform.yaml')}:4:1 environments: --env ${name}: no environment "${name}" in ${path.join(dir, 'scrapeform.yaml')}\n  hint: `,
        );
      }
    }
    expect(h.emulator.requestLog.length).toBe(before);
    expect(await readFile(path.join(dir, 'prod.json'), 'utf8')).toBe(prodState);
  });
});

describe("an --api-key-env that holds another environment's key", () => {
  it("is refused at that environment in scrapeform.yaml: prod's parser is not created again in another account", async () => {
    const keys = { SCRAPERAPI_API_KEY: 'staging-key-0b1e', QA_KEY: 'qa-key-4c2d', PROD_KEY: 'prod-key-8e3f' };
    const accounts = await startTestEmulator({ apiKeys: Object.values(keys) });
    try {
      const dir = await project({
        'scrapeform.yaml': `kind: Config
environments:
  staging:
    state: staging.json
  qa:
    state: qa.json
    apiKeyEnv: QA_KEY
  prod:
    state: prod.json
    apiKeyEnv: PROD_KEY
`,
        'parsers/books.yaml': BOOKS.replace('${var.prefix}', ''),
      });
      const file = path.join(dir, 'scrapeform.yaml');
      const runEnv = {
        ...keys,
        SCRAPEFORM_PARSER_URL: accounts.emulator.url,
        SCRAPEFORM_PIPELINE_URL: accounts.emulator.url,
        SCRAPEFORM_POLL_INTERVAL: '20ms',
      };
      expect(
        await runScrapeform(['apply', '--env', 'prod', '--auto-approve', dir], { env: runEnv }),
      ).toMatchObject({ code: 0 });
      const prodState = await readFile(path.join(dir, 'prod.json'), 'utf8');
      const before = accounts.emulator.requestLog.length;
      for (const [variable, at, other] of [
        ['QA_KEY', `${file}:7:16 environments.qa.apiKeyEnv`, 'qa'],
        ['SCRAPERAPI_API_KEY', `${file}:3:3 environments.staging`, 'staging'],
      ] as const) {
        for (const command of [
          ['plan', '--env', 'prod', '--api-key-env', variable, dir],
          ['apply', '--env', 'prod', '--auto-approve', '--api-key-env', variable, dir],
          ['drift', '--env', 'prod', '--api-key-env', variable, dir],
        ]) {
          const run = await runScrapeform(command, { env: runEnv });
          expect([run.code, run.stdout], command.join(' ')).toEqual([1, '']);
          expect(run.stderr, command.join(' ')).toContain(
            `${at}: --api-key-env ${variable} holds the key of environment "${other}", and this run is for environment "prod": prod's objects would be read in ${other}'s account, and those not found there created again in it\n  hint: leave --api-key-env out to use PROD_KEY, the key variable of environment "prod", or choose --env ${other}`,
          );
          for (const key of Object.values(keys)) expect(run.stderr).not.toContain(key);
        }
      }
      expect(accounts.emulator.requestLog.length).toBe(before);
      expect(await readFile(path.join(dir, 'prod.json'), 'utf8')).toBe(prodState);
      // Its own variable, named as a flag, is still taken: nothing to do.
      const own = await runScrapeform(['plan', '--env', 'prod', '--api-key-env', 'PROD_KEY', dir], {
        env: runEnv,
      });
      expect([own.code, own.stdout.split('\n')[0]], own.stderr).toEqual([
        0,
        'No changes. The live services match the manifests.',
      ]);
    } finally {
      await accounts.emulator.close();
    }
  });
});

describe('a key in a declared value', () => {
  const STAGING_KEY = 'stagingkey0123456789abcdef0123456';

  it('is refused by validate, render and plan --out: the key is printed and written nowhere, nothing sent', async () => {
    const dir = await project({
      'scrapeform.yaml': `kind: Config
variables:
  hook: { type: string }
environments:
  staging:
    state: .scrapeform/staging.json
    apiKeyEnv: STAGING_KEY
    variables: { hook: "https://hooks.example/in" }
  prod:
    state: .scrapeform/prod.json
    apiKeyEnv: PROD_KEY
    variables: { hook: "https://hooks.example/in?token=\${STAGING_KEY}" }
`,
      'p.yaml': `kind: Project
name: nightly
projectType: urls
projectInput: { type: list, list: [https://books.example/catalogue/page-1.html] }
webhookOutput:
  url: \${var.hook}
`,
    });
    const keys = env({ STAGING_KEY, PROD_KEY: EMULATOR_KEY });
    const message = `${path.join(dir, 'scrapeform.yaml')}:12:56: \${STAGING_KEY} holds an API key: scrapeform writes declared values to state, saved plans and its output, where a key never goes`;
    const out = path.join(dir, 'plan.json');
    const before = h.emulator.requestLog.length;
    for (const command of [
      ['validate', dir],
      ['render', '--env', 'prod', dir],
      ['plan', '--env', 'prod', '--out', out, dir, '--state', path.join(dir, 'prod.json')],
    ]) {
      const run = await runScrapeform(command, { env: keys });
      expect(run.code, command[0]).toBe(1);
      expect(run.stderr, command[0]).toContain(message);
      expect(run.stdout + run.stderr, command[0]).not.toContain(STAGING_KEY);
    }
    expect(h.emulator.requestLog.length).toBe(before);
    await expect(readFile(out, 'utf8')).rejects.toThrow('ENOENT');
  });
});

describe('a second project file beside scrapeform.yaml', () => {
  it("is an error before anything is sent, not the project's folder skipped and every object planned for deletion", async () => {
    const config = `kind: Config
variables:
  prefix: { type: string }
environments:
  staging:
    state: staging.json
    variables: { prefix: stg- }
  prod:
    state: prod.json
    variables: { prefix: prd- }
`;
    const dir = await project({ 'scrapeform.yaml': config, 'parsers/books.yaml': BOOKS });
    expect(
      await runScrapeform(['apply', '--env', 'staging', '--auto-approve', dir], { env: env() }),
    ).toMatchObject({ code: 0 });
    const stagingState = await readFile(path.join(dir, 'staging.json'), 'utf8');
    // A copy left behind by a rename to .yaml, or both files brought in by a merge.
    await writeFile(path.join(dir, 'scrapeform.yml'), config);
    const before = h.emulator.requestLog.length;
    const message = `${path.join(dir, 'scrapeform.yml')}: a second project file beside scrapeform.yaml: a project has one, and which of the two holds its variables and environments is in doubt\n  hint: keep one of them, with what the other holds that it lacks; nothing is read or sent until then`;
    for (const command of [
      ['validate', dir],
      ['plan', '--env', 'staging', dir],
      ['apply', '--env', 'staging', '--auto-approve', '--allow-destroy', dir],
    ]) {
      const run = await runScrapeform(command, { env: env() });
      expect([run.code, run.stdout], command.join(' ')).toEqual([1, '']);
      expect(run.stderr, command.join(' ')).toContain(message);
      expect(run.stderr, command.join(' ')).not.toContain('another project');
    }
    expect(h.emulator.requestLog.length).toBe(before);
    expect(await readFile(path.join(dir, 'staging.json'), 'utf8')).toBe(stagingState);
  });
});
