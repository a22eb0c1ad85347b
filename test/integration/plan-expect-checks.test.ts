import { appendFile, cp, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';

/**
 * Review: after its calls apply parses each `expect` URL of the parsers it changed (a call the service may charge),
 * and the plan a reviewer approved said nothing of them. The plan names them now, in every format, and a plan with
 * nothing to change (so nothing to check) does not.
 */
let h: EmulatorHarness;
beforeAll(async () => {
  h = await startTestEmulator();
});
afterAll(async () => {
  await h.emulator.close();
});

const QUICKSTART = path.resolve(import.meta.dirname, '../../examples/quickstart');
const LINE =
  'Expect checks: after its calls apply parses 1 page with the parser it changed, one parse call each (the service may charge them; none with --no-wait): parser.books-product (1).';

/** A copy of examples/quickstart against the emulator: its folder, env, saved-plan path and a CLI with its state. */
async function quickstart() {
  const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-expect-plan-'));
  await cp(QUICKSTART, dir, { recursive: true });
  const env = {
    SCRAPERAPI_API_KEY: EMULATOR_KEY,
    SCRAPEFORM_PARSER_URL: h.emulator.url,
    SCRAPEFORM_PIPELINE_URL: h.emulator.url,
  };
  const state = path.join(dir, 'state.json');
  const scrapeform = (args: string[]) => runScrapeform([...args, '--state', state], { env });
  return { dir, env, file: path.join(dir, 'plan.json'), scrapeform };
}

it('plan, plan --json, --markdown and show name the expect checks apply will run; an empty plan names none', async () => {
  const { dir, env, file, scrapeform } = await quickstart();
  const plan = await scrapeform(['plan', dir, '--out', file]);
  expect(plan.code, plan.stderr).toBe(0);
  expect(plan.stdout.split('\n')).toContain(LINE);
  const saved = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  expect(saved.expect_checks).toEqual([
    {
      address: 'parser.books-product',
      urls: ['https://books.example/catalogue/a-light-in-the-attic_1000/index.html'],
    },
  ]);
  expect((await runScrapeform(['show', file], { env })).stdout).toBe(plan.stdout);
  expect((await scrapeform(['plan', dir, '--markdown'])).stdout).toContain(LINE);
  const applied = await scrapeform(['apply', dir, '--plan', file, '--auto-approve']);
  expect(applied.code, applied.stderr).toBe(0);
  expect(applied.stdout).toContain('Expect checks:');
  const again = await scrapeform(['plan', dir, '--json']);
  expect(again.code).toBe(0);
  const empty = JSON.parse(again.stdout) as Record<string, unknown>;
  expect(empty.status).toBe('no_changes');
  expect(empty).not.toHaveProperty('expect_checks');
});

// Review: apply --plan took the expect blocks of the manifests read at apply time, so an `expect` added after
// `plan --out` ran parse calls the saved plan never listed.
it('apply --plan runs the expect checks the saved plan lists, at its URLs, not those added since', async () => {
  h.emulator.reset();
  const { dir, file, scrapeform } = await quickstart();
  expect((await scrapeform(['plan', dir, '--out', file])).code).toBe(0);
  await appendFile(
    path.join(dir, 'books-product.yaml'),
    '  - url: https://books.example/catalogue/tipping-the-velvet_999/index.html\n    result: { title: Tipping the Velvet }\n',
  );
  const parses = () => h.emulator.requestLog.filter((r) => r.path.includes('/parse/')).map((r) => r.path);
  const before = parses().length;
  const applied = await scrapeform(['apply', dir, '--plan', file, '--auto-approve']);
  expect(applied.code, applied.stderr).toBe(0);
  const sent = parses().slice(before);
  expect(sent).toHaveLength(1);
  expect(sent[0]).toContain(encodeURIComponent('a-light-in-the-attic_1000'));
  expect(applied.stdout.slice(applied.stdout.lastIndexOf('Expect checks:'))).not.toContain(
    'tipping-the-velvet',
  );
});
