import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/server.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { runBuiltCli } from '../helpers/child-cli.js';

const KEY = 'narrowed-commands-key';
const BOOK = 'https://books.example/catalogue/a-light-in-the-attic_1000/index.html';

const parser = (name: string): string => `kind: Parser
name: ${name}
urls: [${BOOK}]
fields:
  title: { description: Book title, selector: h1 }
expect:
  - url: ${BOOK}
    result: { title: A Light in the Attic }
`;

let emulator: RunningEmulator;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ apiKeys: [KEY], generationDelayMs: 20, seed: 1 });
  dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-narrowed-'));
  const files: Record<string, string> = {
    'scrapeform.yaml': `kind: Config\nenvironments:\n  dev:\n    paths: [a, b]\n    parserUrl: \${EMULATOR_URL}\n    pipelineUrl: \${EMULATOR_URL}\n`,
    'a/one.yaml': parser('one'),
    'b/two.yaml': parser('two'),
  };
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
});
afterAll(async () => emulator.close());

function scrapeform(args: string[]): ReturnType<typeof runBuiltCli> {
  return runBuiltCli(args, {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      CI: 'true',
      SCRAPERAPI_API_KEY: KEY,
      EMULATOR_URL: emulator.url,
      SCRAPEFORM_POLL_INTERVAL: '20ms',
    },
  });
}

/** Paths named with --env narrow `test` as they narrow a plan: only the objects declared under them. */
describe('commands narrowed by paths', () => {
  it('test runs only the expect checks of the parsers under the paths', async () => {
    const applied = await scrapeform(['apply', '--env', 'dev', '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    const narrowed = await scrapeform(['test', '--env', 'dev', 'a', '--json']);
    expect(narrowed.code, narrowed.stderr).toBe(0);
    const results = (JSON.parse(narrowed.stdout) as { results: { address: string }[] }).results;
    expect(results.map((r) => r.address)).toEqual(['parser.one']);
    const whole = JSON.parse((await scrapeform(['test', '--env', 'dev', '--json'])).stdout) as {
      results: { address: string }[];
    };
    expect(whole.results.map((r) => r.address).sort()).toEqual(['parser.one', 'parser.two']);
  });

  it('a narrowed plan names what state manages and no manifest declares any more, which no path can select', async () => {
    await writeFile(path.join(dir, 'a/one.yaml'), parser('uno'));
    const plan = await scrapeform(['plan', '--env', 'dev', 'a', '--json']);
    expect(plan.code, plan.stderr).toBe(0);
    const json = JSON.parse(plan.stdout) as {
      resource_changes: { address: string; action: string }[];
      warnings: string[];
    };
    expect(json.resource_changes.map((c) => [c.address, c.action])).toEqual([['parser.uno', 'create']]);
    expect(json.warnings).toContain(
      'parser.one: state manages it and no manifest of the environment declares it any more, so no path selects it; a plan without paths deletes or archives it',
    );
    await writeFile(path.join(dir, 'a/one.yaml'), parser('one'));
  });
});
