import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/server.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { runBuiltCli } from '../helpers/child-cli.js';

/**
 * A command run from (or naming) a subfolder of a project reads the project's scrapeform.yaml or nothing: it never
 * plans the subfolder alone, against another state (an empty `.scrapeform/state.json` there) and with the key of
 * the process instead of the environment's, which would create every object again in possibly another account.
 */
const STAGING_KEY = 'staging-key-7c2e';
const OTHER_KEY = 'other-account-key-41fa';

const FILES: Record<string, string> = {
  'shop/scrapeform.yaml': `kind: Config
environments:
  staging:
    state: .scrapeform/staging.json
    apiKeyEnv: STAGING_KEY
    parserUrl: \${EMULATOR_URL}
    pipelineUrl: \${EMULATOR_URL}
`,
  'shop/parsers/books.yaml': `kind: Parser
name: books-product
urls: ['https://books.example/catalogue/a-light-in-the-attic_1000/index.html']
fields:
  title: { description: Title from the main heading }
`,
  'shop/apart/scrapeform.yaml': 'kind: Config\n',
  'shop/apart/pages.yaml': `kind: Parser
name: pages
urls: ['https://books.example/catalogue/page-2.html']
fields:
  title: { description: Title of the page }
`,
};

let emulator: RunningEmulator;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ apiKeys: [STAGING_KEY, OTHER_KEY], generationDelayMs: 20, seed: 1 });
  dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-discovery-'));
  for (const [name, text] of Object.entries(FILES)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
});

afterAll(async () => {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

/** A shell that also holds another account's key and service URLs in the SCRAPEFORM_* variables. */
function scrapeform(args: string[], cwd: string): ReturnType<typeof runBuiltCli> {
  return runBuiltCli(args, {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      CI: 'true',
      STAGING_KEY,
      SCRAPERAPI_API_KEY: OTHER_KEY,
      EMULATOR_URL: emulator.url,
      SCRAPEFORM_PARSER_URL: emulator.url,
      SCRAPEFORM_PIPELINE_URL: emulator.url,
      SCRAPEFORM_POLL_INTERVAL: '20ms',
    },
  });
}

describe('a subfolder of a project', () => {
  it.each([
    ['run from it', ['plan'], 'shop/parsers', '../scrapeform.yaml', 'the current folder'],
    ['--chdir into it', ['--chdir', 'parsers', 'plan'], 'shop', '../scrapeform.yaml', 'the current folder'],
    ['named from outside', ['plan', 'shop/parsers'], '.', 'shop/scrapeform.yaml', 'shop/parsers'],
  ])('%s: refused, naming the project file, before any request', async (_, args, cwd, file, what) => {
    const before = emulator.requestLog.length;
    const run = await scrapeform(args, path.join(dir, cwd));
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(
      `${file}: ${what} is inside the project of ${file}, which is read only from its own folder`,
    );
    expect(run.stderr).toContain(`hint: run from ${path.dirname(file)} (or --chdir ${path.dirname(file)})`);
    expect(emulator.requestLog.length).toBe(before);
    expect(existsSync(path.join(dir, 'shop/parsers/.scrapeform'))).toBe(false);
    expect(run.stderr + run.stdout).not.toContain(OTHER_KEY);
  });

  it('validate from it is refused too', async () => {
    const run = await scrapeform(['validate'], path.join(dir, 'shop/parsers'));
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain('the current folder is inside the project of ../scrapeform.yaml');
  });

  it('a folder with a scrapeform.yaml of its own is a project apart', async () => {
    const run = await scrapeform(['validate'], path.join(dir, 'shop/apart'));
    expect(run.code, run.stderr).toBe(0);
  });

  it('from the project folder, the subfolder narrows the environment as before', async () => {
    const run = await scrapeform(['validate', '--env', 'staging', 'parsers'], path.join(dir, 'shop'));
    expect(run.code, run.stderr).toBe(0);
  });
});
