import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { emulatorEnv, runBuiltCli } from '../helpers/child-cli.js';
import { EMULATOR_KEY, startTestEmulator, waitForVersion } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { newDatabase, skipWithoutPostgres } from '../helpers/postgres.js';
import { tempProjects } from '../helpers/temp-projects.js';
import { BOOK_A } from '../helpers/workspace.js';

/**
 * Two environments that reach one state by spellings scrapeform.yaml's check cannot join (here a symbolic link to
 * the state folder): the state records the environment that applied it, and a run of the other is refused at its
 * first read of it, before anything is planned or sent. A state whose environment is no longer declared is taken.
 */
let h: EmulatorHarness;
beforeAll(async () => {
  h = await startTestEmulator({ generationDelayMs: 5 });
});
afterAll(async () => {
  await h.emulator.close();
});

const project = tempProjects('scrapeform-state-environment-');
const env = (): Record<string, string> => ({
  SCRAPERAPI_API_KEY: EMULATOR_KEY,
  SCRAPEFORM_PARSER_URL: h.emulator.url,
  SCRAPEFORM_PIPELINE_URL: h.emulator.url,
  SCRAPEFORM_POLL_INTERVAL: '20ms',
});
const config = (prod: string): string => `kind: Config
environments:
  staging:
    state: linked/one.json
  ${prod}:
    state: states/one.json
`;
const books = (name: string): string => `kind: Parser
name: ${name}
urls: ['${BOOK_A}']
fields:
  title: { description: Book title from the main heading, selector: h1 }
`;

/** The built CLI in `dir`, as CI runs it: it must exit. */
const built = (dir: string, args: string[]) =>
  runBuiltCli(args, { cwd: dir, env: emulatorEnv(h.emulator.url, EMULATOR_KEY), exitWithinMs: 30_000 });

/** A project whose two environments reach states/one.json, one of them through the link `linked`. */
async function sharedByLink(name: string): Promise<string> {
  const dir = await project({ 'scrapeform.yaml': config('prod'), 'parsers/books.yaml': books(name) });
  await mkdir(path.join(dir, 'states'));
  await symlink(path.join(dir, 'states'), path.join(dir, 'linked'));
  return dir;
}

it('a state prod applied is refused to staging by plan, apply, drift, status and output; nothing is sent', async () => {
  const dir = await sharedByLink('books');
  const applied = await runScrapeform(['apply', '--env', 'prod', '--auto-approve', dir], { env: env() });
  expect(applied.code, applied.stderr).toBe(0);
  const stateFile = path.join(dir, 'states/one.json');
  const recorded = await readFile(stateFile, 'utf8');
  expect((JSON.parse(recorded) as { environment?: string }).environment).toBe('prod');

  const message = (location: string): string =>
    `error: the state ${location} was last applied by environment "prod", and this run is for environment "staging": its manifests would plan deleting prod's objects, and its key act on them; nothing was changed\n`;
  const before = h.emulator.requestLog.length;
  for (const command of [
    ['plan', '--env', 'staging', dir],
    ['apply', '--env', 'staging', '--auto-approve', '--allow-destroy', dir],
    ['drift', '--env', 'staging', dir],
  ]) {
    const run = await runScrapeform(command, { env: env() });
    expect(run.code, command.join(' ')).toBe(1);
    expect(run.stderr, command.join(' ')).toContain(message(path.join(dir, 'linked/one.json')));
    expect(run.stderr, command.join(' ')).toContain(
      `hint: environments "staging" and "prod" reach this one state: check each one's state: and workspace: in scrapeform.yaml`,
    );
  }
  // status and output read the project's folder (a child process: a test's own folder stays where it is).
  for (const command of [
    ['status', '--env', 'staging'],
    ['output', '--env', 'staging'],
  ]) {
    const run = await built(dir, command);
    expect(run.code, command.join(' ')).toBe(1);
    // Relative to the project's folder, as its scrapeform.yaml writes it.
    expect(run.stderr, command.join(' ')).toContain(message('linked/one.json'));
  }
  expect(h.emulator.requestLog.slice(before)).toEqual([]);
  expect(await readFile(stateFile, 'utf8')).toBe(recorded);

  // The way to look into it stays open.
  const pulled = await built(dir, ['state', 'pull', '--env', 'staging']);
  expect(pulled.code, pulled.stderr).toBe(0);
  expect((JSON.parse(pulled.stdout) as { environment?: string }).environment).toBe('prod');

  // prod itself goes on, and its plan after the apply is empty.
  const again = await runScrapeform(['plan', '--env', 'prod', '--json', dir], { env: env() });
  expect(again.code, again.stderr).toBe(0);
  expect((JSON.parse(again.stdout) as { status: string }).status).toBe('no_changes');
});

it('the refusal ends the process of a built CLI with exit 1, before any call', async () => {
  const dir = await sharedByLink('atlas');
  expect((await runScrapeform(['apply', '--env', 'prod', '--auto-approve', dir], { env: env() })).code).toBe(
    0,
  );
  const before = h.emulator.requestLog.length;
  const run = await built(dir, ['apply', '--env', 'staging', '--auto-approve', dir]);
  expect(run.code, run.stderr).toBe(1);
  expect(run.stderr).toContain('was last applied by environment "prod"');
  expect(h.emulator.requestLog.slice(before)).toEqual([]);
});

it('an environment renamed in scrapeform.yaml takes its state, and its next apply records the new name', async () => {
  const dir = await sharedByLink('velvet');
  expect((await runScrapeform(['apply', '--env', 'prod', '--auto-approve', dir], { env: env() })).code).toBe(
    0,
  );
  await writeFile(path.join(dir, 'scrapeform.yaml'), config('production'));
  // The same state under the new name: nothing to change, so nothing is written yet.
  const plan = await runScrapeform(['plan', '--env', 'production', '--json', dir], { env: env() });
  expect(plan.code, plan.stderr).toBe(0);
  expect((JSON.parse(plan.stdout) as { status: string }).status).toBe('no_changes');
  // A change applied under the new name records it; staging is then refused by the new name.
  await writeFile(
    path.join(dir, 'parsers/books.yaml'),
    books('velvet').replace('main heading', 'top heading'),
  );
  const applied = await runScrapeform(['apply', '--env', 'production', '--auto-approve', dir], {
    env: env(),
  });
  expect(applied.code, applied.stderr).toBe(0);
  const state = JSON.parse(await readFile(path.join(dir, 'states/one.json'), 'utf8')) as {
    environment?: string;
  };
  expect(state.environment).toBe('production');
  const empty = await runScrapeform(['plan', '--env', 'production', '--json', dir], { env: env() });
  expect((JSON.parse(empty.stdout) as { status: string }).status).toBe('no_changes');
  const staging = await runScrapeform(['plan', '--env', 'staging', dir], { env: env() });
  expect(staging.code).toBe(1);
  expect(staging.stderr).toContain('was last applied by environment "production"');
});

it('import records its environment too: the other environment reaching the same state is refused after it', async () => {
  const dir = await sharedByLink('lantern');
  const orphan = await h.parsers.create({
    name: 'orphan',
    urls: [BOOK_A],
    fields: [{ name: 'title', description: 'Title' }],
  });
  await waitForVersion(h.parsers, orphan.id, 0);
  const imported = await built(dir, ['import', '--env', 'staging', '--out', 'parsers', '--allow-shared-out']);
  expect(imported.code, imported.stderr).toBe(0);
  const state = JSON.parse(await readFile(path.join(dir, 'states/one.json'), 'utf8')) as {
    environment?: string;
    resources: Record<string, unknown>;
  };
  expect(state.environment).toBe('staging');
  expect(Object.keys(state.resources)).toContain('parser.orphan');
  const prod = await runScrapeform(['plan', '--env', 'prod', dir], { env: env() });
  expect(prod.code).toBe(1);
  expect(prod.stderr).toContain(
    'was last applied by environment "staging", and this run is for environment "prod"',
  );
});

// The spelling the issue names: one PostgreSQL state reached as 127.0.0.1 by one environment and as localhost by the
// other, which scrapeform.yaml's check cannot join (a host name is not resolved). Each command still exits.
describe.skipIf(skipWithoutPostgres('the PostgreSQL state of two environments'))(
  'with PostgreSQL state',
  () => {
    it('prod applies through 127.0.0.1, staging reaching it as localhost is refused, and both processes exit', async () => {
      const url = await newDatabase('environments');
      const other = new URL(url);
      other.hostname = other.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
      const dir = await project({
        'scrapeform.yaml': `kind: Config\nenvironments:\n  staging:\n    state: ${other.toString()}\n  prod:\n    state: ${url}\n`,
        'parsers/books.yaml': books('quill'),
      });
      const applied = await built(dir, ['apply', '--env', 'prod', '--auto-approve', dir]);
      expect(applied.code, applied.stderr).toBe(0);
      const before = h.emulator.requestLog.length;
      const refused = await built(dir, ['plan', '--env', 'staging', dir]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        'was last applied by environment "prod", and this run is for environment "staging"',
      );
      expect(h.emulator.requestLog.slice(before)).toEqual([]);
      const again = await built(dir, ['plan', '--env', 'prod', '--detailed-exitcode', dir]);
      expect(again.code, again.stderr).toBe(0);
    });
  },
);
