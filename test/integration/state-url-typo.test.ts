import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { emulatorEnv, runBuiltCli } from '../helpers/child-cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';

/*
 * Review: `postgres//user:pw@host/db` (the colon after postgres left out) was a file path: apply made folders
 * named after the password, and plan, its saved plan, state pull and force-unlock showed it. The built CLI, as
 * users run it, refuses it before anything is made, written or sent, from --state and from scrapeform.yaml.
 */
let h: EmulatorHarness;
const dirs: string[] = [];
const PASSWORD = 'S3cretPw';

beforeAll(async () => {
  h = await startTestEmulator();
});

afterAll(async () => {
  await h.emulator.close();
});

afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const BOOKS = `kind: Parser
name: books
urls: [https://books.example/catalogue/a-light-in-the-attic_1000/index.html]
fields:
  title: { description: Book title from the main heading, selector: h1 }
`;

/** A state file as state pull writes one, for state push. */
const PUSHED = JSON.stringify({
  format_version: 1,
  serial: 3,
  lineage: 'b8f3c1de-6a0e-4a55-9d0f-2f4a6d1c9e77',
  resources: {},
});

async function project(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-state-url-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  return dir;
}

/** Every file and folder under dir, recursively: what a refused run must leave as it was. */
async function tree(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).sort();
}

const NO_COLON = {
  state: `postgres//scrapeform:${PASSWORD}@127.0.0.1:5432/db`,
  error:
    'error: the state location postgres//scrapeform:***@127.0.0.1:5432/db is not a URL: the : after postgres is missing (a PostgreSQL state is postgres://USER:PASSWORD@HOST:PORT/DATABASE)\n  hint: write postgres:// (percent-encode a /, # or @ in the password), or ./ before the path of a state file in a folder named postgres\n',
};

/** A project whose two environments, prod and staging, both keep their state at the mistyped location. */
function twoEnvironments(stagingExtra = ''): Promise<string> {
  return project({
    'books.yaml': BOOKS,
    'pushed.json': PUSHED,
    'scrapeform.yaml': `kind: Config\nenvironments:\n  prod:\n    state: ${NO_COLON.state}\n  staging:\n    state: ${NO_COLON.state}\n${stagingExtra}`,
  });
}

const COMMANDS = [
  ['plan', '--out', 'plan.json'],
  ['apply', '--auto-approve'],
  ['state', 'pull'],
  ['state', 'push', 'pushed.json', '--force'],
  ['force-unlock', 'lock-1', '--force'],
];

describe('a state location with the colon after postgres left out', () => {
  it.each([
    [NO_COLON.state, NO_COLON.error],
    [
      `PostgreSQL//scrapeform:${PASSWORD}@127.0.0.1:5432/db`,
      'error: the state location PostgreSQL//scrapeform:***@127.0.0.1:5432/db is not a URL: the : after PostgreSQL is missing (a PostgreSQL state is postgres://USER:PASSWORD@HOST:PORT/DATABASE)\n  hint: write PostgreSQL:// (percent-encode a /, # or @ in the password), or ./ before the path of a state file in a folder named PostgreSQL\n',
    ],
    [
      `state/scrapeform:${PASSWORD}@127.0.0.1/db`,
      'error: the state location state/scrapeform:***@127.0.0.1/db is a file path holding a user name and password (USER:PASSWORD@): a mistyped URL, whose password would become folder names\n  hint: a PostgreSQL state is postgres://USER:PASSWORD@HOST:PORT/DATABASE; a state file needs a path with no :…@ in it\n',
    ],
  ])('--state %j is a usage error, its password not shown, nothing made or sent', async (state, error) => {
    const dir = await project({ 'books.yaml': BOOKS, 'pushed.json': PUSHED });
    const before = await tree(dir);
    const requests = h.emulator.requestLog.length;
    for (const command of COMMANDS) {
      const run = await runBuiltCli([...command, '--state', state], {
        cwd: dir,
        env: emulatorEnv(h.emulator.url, EMULATOR_KEY),
      });
      expect([run.code, run.stdout, run.stderr], command.join(' ')).toEqual([1, '', error]);
    }
    expect(await tree(dir)).toEqual(before);
    expect(h.emulator.requestLog.length).toBe(requests);
  });

  it("is refused as an environment's state in scrapeform.yaml, and as SCRAPEFORM_STATE", async () => {
    const dir = await twoEnvironments('    workspace: staging\n');
    const before = await tree(dir);
    const requests = h.emulator.requestLog.length;
    for (const command of COMMANDS)
      for (const where of ['prod', 'staging']) {
        const run = await runBuiltCli([...command, '--env', where], {
          cwd: dir,
          env: emulatorEnv(h.emulator.url, EMULATOR_KEY),
        });
        expect([run.code, run.stdout, run.stderr], `${command.join(' ')} --env ${where}`).toEqual([
          1,
          '',
          NO_COLON.error,
        ]);
      }
    const fromEnv = await runBuiltCli(['plan'], {
      cwd: await project({ 'books.yaml': BOOKS, 'pushed.json': PUSHED }),
      env: emulatorEnv(h.emulator.url, EMULATOR_KEY, { SCRAPEFORM_STATE: NO_COLON.state }),
    });
    expect([fromEnv.code, fromEnv.stdout, fromEnv.stderr]).toEqual([1, '', NO_COLON.error]);
    expect(await tree(dir)).toEqual(before);
    expect(h.emulator.requestLog.length).toBe(requests);
  });

  it('shows two environments sharing such a state without the password', async () => {
    const dir = await twoEnvironments();
    const run = await runBuiltCli(['validate'], { cwd: dir, env: emulatorEnv(h.emulator.url, EMULATOR_KEY) });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `scrapeform.yaml:5:3 environments.staging: environments "prod" and "staging" share one state (postgres//scrapeform:***@127.0.0.1:5432/db, workspace default): each would plan deleting the other's objects`,
    );
    expect(run.stderr).not.toContain(PASSWORD);
  });
});

/*
 * Review: validate said "Valid" for a project whose one environment (or SCRAPEFORM_STATE) keeps its state at such a
 * location, which every command that opens state then refused; only two environments sharing it were caught. It
 * reports each with the text those commands print, at its line in scrapeform.yaml or under SCRAPEFORM_STATE.
 */
describe('validate and a mistyped state location', () => {
  const STATES = [
    {
      state: NO_COLON.state,
      message:
        'the state location postgres//scrapeform:***@127.0.0.1:5432/db is not a URL: the : after postgres is missing (a PostgreSQL state is postgres://USER:PASSWORD@HOST:PORT/DATABASE)',
      hint: 'write postgres:// (percent-encode a /, # or @ in the password), or ./ before the path of a state file in a folder named postgres',
    },
    {
      state: `postgresql//scrapeform:${PASSWORD}@127.0.0.1:5432/db`,
      message:
        'the state location postgresql//scrapeform:***@127.0.0.1:5432/db is not a URL: the : after postgresql is missing (a PostgreSQL state is postgres://USER:PASSWORD@HOST:PORT/DATABASE)',
      hint: 'write postgresql:// (percent-encode a /, # or @ in the password), or ./ before the path of a state file in a folder named postgresql',
    },
    {
      state: `state/scrapeform:${PASSWORD}@127.0.0.1/db`,
      message:
        'the state location state/scrapeform:***@127.0.0.1/db is a file path holding a user name and password (USER:PASSWORD@): a mistyped URL, whose password would become folder names',
      hint: 'a PostgreSQL state is postgres://USER:PASSWORD@HOST:PORT/DATABASE; a state file needs a path with no :…@ in it',
    },
  ];

  /** validate run as users run it: exit code, stdout, stderr, and that it made nothing and sent nothing. */
  async function validate(dir: string, args: string[] = [], extra: Record<string, string> = {}) {
    const before = await tree(dir);
    const requests = h.emulator.requestLog.length;
    const run = await runBuiltCli(['validate', ...args], {
      cwd: dir,
      env: emulatorEnv(h.emulator.url, EMULATOR_KEY, extra),
    });
    expect(await tree(dir)).toEqual(before);
    expect(h.emulator.requestLog.length).toBe(requests);
    expect(`${run.stdout}${run.stderr}`).not.toContain(PASSWORD);
    return run;
  }

  it.each(STATES)(
    '$state as the one environment state: is an error at its line',
    async ({ state, message, hint }) => {
      const dir = await project({
        'books.yaml': BOOKS,
        'scrapeform.yaml': `kind: Config\nenvironments:\n  prod:\n    state: ${state}\n`,
      });
      const expected = `scrapeform.yaml:4:12 environments.prod.state: ${message}\n  hint: ${hint}\n1 error\n`;
      for (const args of [[], ['--env', 'prod']]) {
        const run = await validate(dir, args);
        expect([run.code, run.stdout, run.stderr], args.join(' ')).toEqual([1, '', expected]);
      }
      const json = await validate(dir, ['--json']);
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stdout)).toMatchObject({
        valid: false,
        diagnostics: [
          {
            severity: 'error',
            code: 'config.state-location',
            file: 'scrapeform.yaml',
            line: 4,
            column: 12,
            path: 'environments.prod.state',
            message,
            hint,
          },
        ],
      });
    },
  );

  it.each(STATES)(
    '$state as SCRAPEFORM_STATE: is an error under that name',
    async ({ state, message, hint }) => {
      const expected = `SCRAPEFORM_STATE: ${message}\n  hint: ${hint}\n1 error\n`;
      // Without scrapeform.yaml, and for an environment that names no state of its own.
      const alone = await project({ 'books.yaml': BOOKS });
      const bare = await project({
        'books.yaml': BOOKS,
        'scrapeform.yaml': 'kind: Config\nenvironments:\n  prod: {}\n',
      });
      for (const dir of [alone, bare]) {
        const run = await validate(dir, [], { SCRAPEFORM_STATE: state });
        expect([run.code, run.stdout, run.stderr]).toEqual([1, '', expected]);
      }
      // An environment with a state of its own does not read the variable.
      const own = await project({
        'books.yaml': BOOKS,
        'scrapeform.yaml': 'kind: Config\nenvironments:\n  prod: { state: .scrapeform/prod.json }\n',
      });
      const run = await validate(own, [], { SCRAPEFORM_STATE: state });
      expect([run.code, run.stderr]).toEqual([0, '']);
    },
  );

  it('with --env, looks only at that environment; without, at every one', async () => {
    const dir = await project({
      'books.yaml': BOOKS,
      'scrapeform.yaml': `kind: Config\nenvironments:\n  dev: { state: .scrapeform/dev.json }\n  prod:\n    state: ${NO_COLON.state}\n`,
    });
    const expected = `scrapeform.yaml:5:12 environments.prod.state: ${STATES[0]?.message ?? ''}\n  hint: ${STATES[0]?.hint ?? ''}\n1 error\n`;
    const dev = await validate(dir, ['--env', 'dev']);
    expect([dev.code, dev.stderr]).toEqual([0, '']);
    for (const args of [['--env', 'prod'], []]) {
      const run = await validate(dir, args);
      expect([run.code, run.stdout, run.stderr], args.join(' ')).toEqual([1, '', expected]);
    }
  });

  it('reports each environment sharing such a state, beside the sharing', async () => {
    const all = await validate(await twoEnvironments());
    expect(all.code).toBe(1);
    expect(all.stderr.split('\n').filter((l) => /^\S/.test(l))).toEqual([
      `scrapeform.yaml:4:12 environments.prod.state: ${STATES[0]?.message ?? ''}`,
      `scrapeform.yaml:5:3 environments.staging: environments "prod" and "staging" share one state (postgres//scrapeform:***@127.0.0.1:5432/db, workspace default): each would plan deleting the other's objects`,
      `scrapeform.yaml:6:12 environments.staging.state: ${STATES[0]?.message ?? ''}`,
      '3 errors',
    ]);
  });
});
