import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { emulatorEnv, runBuiltCli } from '../helpers/child-cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { tempProjects } from '../helpers/temp-projects.js';
import { BOOK_A } from '../helpers/workspace.js';

/**
 * Review in CI: `plan` names under each generated or inherited object the files its values come from (`# from`).
 * A plan saved with --out and shown (`show`) or applied (`apply --plan`) elsewhere must name the same files, so the
 * reviewer of the saved plan sees them too; a folder name with a control character is escaped in all three alike.
 */
let h: EmulatorHarness;
beforeAll(async () => {
  h = await startTestEmulator({ generationDelayMs: 5 });
});
afterAll(async () => {
  await h.emulator.close();
});

const project = tempProjects('scrapeform-saved-origin-');
/** A folder whose name holds an escape character: printed as `\u001b`, never raw. */
const ODD = 'odd\u001bdir';

const FILES: Record<string, string> = {
  'templates/product.yaml': `kind: ParserTemplate
name: product
fields:
  title: { description: Title from the main heading, selector: h1 }
`,
  'templates/crawl.yaml': `kind: ProjectTemplate
name: nightly
projectType: urls
scrapingInterval: daily
`,
  'teams/category.yaml': `kind: Parser
name: category-\${each.country}
extends: product
for_each: [{ country: de }, { country: fr }]
urls: ['${BOOK_A}?country=\${each.country}']
`,
  [`${ODD}/books.yaml`]: `kind: Parser
name: books
extends: product
urls: ['${BOOK_A}']
`,
  'teams/nightly.yaml': `kind: Project
name: nightly
extends: nightly
projectInput: { type: list, list: ['${BOOK_A}'] }
`,
};

/** The origin lines of a human plan, in order. */
const fromLines = (text: string): string[] => text.split('\n').filter((l) => l.startsWith('    # from '));

it('show and apply --plan print the # from lines of the plan that saved the file', async () => {
  const dir = await project(FILES);
  // The built CLI in the workspace, as CI runs it: the origins are paths relative to it. show reads no state.
  const scrapeform = (args: string[]) =>
    runBuiltCli(args[0] === 'show' ? args : [...args, '--state', 'state.json'], {
      cwd: dir,
      env: emulatorEnv(h.emulator.url, EMULATOR_KEY),
    });

  const plan = await scrapeform(['plan', '.', '--out', 'plan.json']);
  expect(plan.code, plan.stderr).toBe(0);
  expect(fromLines(plan.stdout)).toEqual([
    '    # from odd\\u001bdir/books.yaml:1, ParserTemplate "product" at templates/product.yaml:1',
    '    # from teams/category.yaml:1, for_each[0] at teams/category.yaml:4, ParserTemplate "product" at templates/product.yaml:1',
    '    # from teams/category.yaml:1, for_each[1] at teams/category.yaml:4, ParserTemplate "product" at templates/product.yaml:1',
    '    # from teams/nightly.yaml:1, ProjectTemplate "nightly" at templates/crawl.yaml:1',
  ]);
  const shown = await scrapeform(['show', 'plan.json']);
  expect(shown.code, shown.stderr).toBe(0);
  expect(fromLines(shown.stdout)).toEqual(fromLines(plan.stdout));
  expect(shown.stdout).toBe(plan.stdout);
  const markdown = await scrapeform(['plan', '.', '--markdown']);
  const markdownFrom = (text: string): string[] => text.split('\n').filter((l) => l.startsWith('- from '));
  expect(markdownFrom(markdown.stdout)).toHaveLength(4);
  expect(markdownFrom((await scrapeform(['show', 'plan.json', '--markdown'])).stdout)).toEqual(
    markdownFrom(markdown.stdout),
  );

  const saved = JSON.parse(await readFile(path.join(dir, 'plan.json'), 'utf8')) as {
    resource_changes: { address: string; origin?: string }[];
  };
  expect(saved.resource_changes.find((c) => c.address === 'parser.books')?.origin).toBe(
    `${ODD}/books.yaml:1, ParserTemplate "product" at templates/product.yaml:1`,
  );

  const applied = await scrapeform(['apply', '.', '--plan', 'plan.json', '--auto-approve']);
  expect(applied.code, applied.stderr).toBe(0);
  expect(fromLines(applied.stdout)).toEqual(fromLines(plan.stdout));
  const again = await scrapeform(['plan', '.', '--json']);
  expect(again.code, again.stderr).toBe(0);
  expect((JSON.parse(again.stdout) as { status: string }).status).toBe('no_changes');
});
