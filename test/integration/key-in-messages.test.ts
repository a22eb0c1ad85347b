import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBuiltCli } from '../helpers/child-cli.js';
import { tempProjects } from '../helpers/temp-projects.js';

/** A realistic key: 32 hex digits, as ScraperAPI gives them (shorter ones are not looked for in values). */
const KEY = '3f9a1c2b7d4e8f60a1b2c3d4e5f60718';
const project = tempProjects('scrapeform-key-messages-');

/** The built CLI in a project folder, as a CI job runs it. */
function scrapeform(dir: string, args: string[], env: Record<string, string> = {}) {
  return runBuiltCli(args, { cwd: dir, env: { PATH: process.env.PATH ?? '', CI: 'true', ...env } });
}

const PARSER = `kind: Parser
name: kp
urls: [https://books.example/a]
scraper_params:
  device_type: \${var.device}
fields:
  title: { description: t }
`;
const FILES = {
  'scrapeform.yaml': 'kind: Config\nvariables:\n  device: { type: string, default: desktop }\n',
  'p.yaml': PARSER,
  'vars.yaml': `device: ${KEY}\n`,
};
const REFUSED =
  'p.yaml:1:1: parser.kp holds the value of SCRAPERAPI_API_KEY (an API key) in a declared value: scrapeform writes declared values to state, saved plans and its output, where a key never goes\n  hint: take the key out of the manifests, the variables and the var files (a webhook that needs a secret should read it from its own service)\n';
const WRONG = 'p.yaml:5:16 scraper_params.device_type: must be one of desktop, mobile; got "***"\n';
const NOTHING_SENT =
  'error: the manifests have errors; nothing was sent\n  hint: fix the problems above (scrapeform validate checks offline)\n';

describe('the API key in a value that fails a check', () => {
  it('is quoted by no message of plan, validate or render, and the object is refused for holding it', async () => {
    const dir = await project(FILES);
    const env = { SCRAPERAPI_API_KEY: KEY };
    const plan = await scrapeform(dir, ['plan', '--var-file', 'vars.yaml', '--state', 's.json'], env);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toBe(`${REFUSED}${WRONG}2 errors\n${NOTHING_SENT}`);
    for (const args of [['validate'], ['validate', '--json'], ['render']]) {
      const run = await scrapeform(dir, [...args, '--var-file', 'vars.yaml'], env);
      expect(run.code).toBe(1);
      expect(`${run.stdout}${run.stderr}`).toContain('***');
      expect(`${run.stdout}${run.stderr}`).not.toContain(KEY);
    }
  });

  it('read from --api-key-file is quoted by no message of plan either', async () => {
    const dir = await project(FILES);
    await writeFile(path.join(dir, 'key.txt'), `${KEY}\n`);
    await chmod(path.join(dir, 'key.txt'), 0o600);
    const run = await scrapeform(dir, [
      'plan',
      ...['--var-file', 'vars.yaml', '--api-key-file', 'key.txt', '--state', 's.json'],
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`${WRONG}1 error\n${NOTHING_SENT}`);
  });
});

describe("the API key in a variable's value that its environment refuses", () => {
  const ENVIRONMENT_FILES = {
    'scrapeform.yaml': `kind: Config
variables:
  device: { type: string, default: desktop }
  pages: { type: number, default: 1 }
environments:
  prod:
    state: .scrapeform/prod.json
    apiKeyEnv: PROD_KEY
`,
    'p.yaml': PARSER,
    'vars.yaml': `pages: ${KEY}\n`,
    'key.txt': `${KEY}\n`,
  };
  const REFUSED_VALUE = 'vars.yaml:1:8 pages: variable "pages" is declared number, got "***"\n';
  const NOTHING_SENT_ENVIRONMENT =
    'error: scrapeform.yaml or the chosen environment has errors; nothing was sent\n  hint: fix the problems above (scrapeform validate checks offline)\n';

  it('is quoted by no message of the commands that read the environment before the manifests', async () => {
    const dir = await project(ENVIRONMENT_FILES);
    for (const [args, env] of [
      [['plan', '--env', 'prod', '--var-file', 'vars.yaml'], { PROD_KEY: KEY }],
      [['apply', '--env', 'prod', '--auto-approve', '--var-file', 'vars.yaml'], { PROD_KEY: KEY }],
      [['state', 'pull', '--env', 'prod', '--var-file', 'vars.yaml'], { PROD_KEY: KEY }],
      [['status', '--env', 'prod', '--var-file', 'vars.yaml'], { PROD_KEY: KEY }],
      // The variable named for this run holds the key too, though no environment names it.
      [
        ['plan', '--env', 'prod', '--api-key-env', 'CI_KEY', '--var-file', 'vars.yaml'],
        { PROD_KEY: 'another', CI_KEY: KEY },
      ],
      // And the file named for this run, read later than the environment is chosen.
      [
        ['plan', '--env', 'prod', '--api-key-file', 'key.txt', '--var-file', 'vars.yaml'],
        { PROD_KEY: 'another' },
      ],
    ] as const) {
      const run = await scrapeform(dir, [...args], env);
      expect([run.code, run.stdout, run.stderr], args.join(' ')).toEqual([
        1,
        '',
        `${REFUSED_VALUE}1 error\n${NOTHING_SENT_ENVIRONMENT}`,
      ]);
    }
  });
});
