import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runBuiltCli } from '../helpers/child-cli.js';
import { tempProjects } from '../helpers/temp-projects.js';
import { digestOf } from '../../src/plan/save-plan.js';

/**
 * A reviewer runs `scrapeform show` on a plan file someone else made (a CI artifact, a file in a pull request). What
 * is in it is shown escaped, or refused with a message saying why; never an internal error, never a colour, a line
 * rewritten or a Markdown link.
 */
const project = tempProjects('scrapeform-show-foreign-');
const fixture = path.resolve(import.meta.dirname, '../fixtures/plan-json/fresh.json');

/** The fixture plan, edited as JSON, with the digest of its content: a file as plan --out writes it. */
async function saved(edit: (plan: Record<string, unknown>) => void): Promise<string> {
  const plan = JSON.parse(await readFile(fixture, 'utf8')) as Record<string, unknown>;
  edit(plan);
  const content = JSON.stringify(plan, null, 2);
  return `${JSON.stringify({ ...plan, digest: digestOf(content) }, null, 2)}\n`;
}

/** What a terminal would act on, printed as it is: an escape sequence, a return to the line's start, a bidi override. */
const RAW = ['\u001b', '\r', '\u202e'];

async function show(text: string, ...flags: string[]) {
  const dir = await project({ 'plan.json': text });
  return runBuiltCli(['show', 'plan.json', ...flags], { cwd: dir, env: { PATH: process.env.PATH ?? '' } });
}

it('shows crafted reasons and warnings escaped, in text and in Markdown', async () => {
  const hostile = 'a\u001b[31mred\rover\u202eevil [x](javascript:alert(1)) <img src=x>';
  const text = await saved((plan) => {
    plan.warnings = [hostile];
    (plan.resource_changes as { reasons: string[] }[])[0]!.reasons = [hostile];
  });
  const human = await show(text);
  expect(human.code, human.stderr).toBe(0);
  for (const raw of RAW) expect(human.stdout).not.toContain(raw);
  expect(human.stdout).toContain(
    '    # a\\u001b[31mred\\rover\\u202eevil [x](javascript:alert(1)) <img src=x>\n',
  );
  const markdown = await show(text, '--markdown');
  expect(markdown.code, markdown.stderr).toBe(0);
  for (const raw of [...RAW, '<img']) expect(markdown.stdout).not.toContain(raw);
  expect(markdown.stdout).not.toMatch(/(?<!\\)\]\(javascript/);
  expect(markdown.stdout).toContain(
    '- a\\\\u001b\\[31mred\\\\rover\\\\u202eevil \\[x\\](javascript:alert(1)) &lt;img src=x&gt;\n',
  );
});

it('refuses a plan nested thousands deep with a message, not an internal error', async () => {
  const nested = `${'['.repeat(20_000)}1${']'.repeat(20_000)}`;
  const text = (await saved(() => undefined)).replace('"warnings": [', `"warnings": [${nested}`);
  const run = await show(text);
  expect(run.stdout).toBe('');
  expect(run.stderr).toBe(
    `error: the saved plan plan.json is damaged at warnings${'[0]'.repeat(127)}: it is nested too deep (more than 128 levels of objects and arrays)\n` +
      '  hint: use a file written by scrapeform plan --out, unchanged\n',
  );
  expect(run.code).toBe(1);
});

it('says a plan of a newer scrapeform is one, with both versions and what to do', async () => {
  const text = await saved((plan) => {
    plan.format_version = 2;
    plan.resource_changes = 'a shape this scrapeform does not know';
  });
  const run = await show(text, '--json');
  expect(run.stdout).toBe('');
  expect(run.stderr).toBe(
    'error: plan.json was written by a newer scrapeform (plan format_version 2; this scrapeform reads format_version 1)\n' +
      '  hint: upgrade scrapeform to the version that wrote it (npm install scrapeform@latest), or save the plan again with this one\n',
  );
  expect(run.code).toBe(1);
});
