import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';

const q = `api_key=${EMULATOR_KEY}`;
const BOOK = 'https://books.example/catalogue/page-1.html';

const MANIFEST = `kind: Project
name: hooky
projectType: urls
projectInput: { type: list, list: ["${BOOK}"] }
scrapingInterval: hourly
scheduledAt: "2099-01-01T00:00:00Z"
webhookOutput: { url: "https://hooks.example/in?api_key=the-hook-s-own" }
`;

/** Every file under a folder, read as text: what a leak would be written into. */
async function everyFileText(dir: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const texts = await Promise.all(
    entries.filter((e) => e.isFile()).map((e) => readFile(path.join(e.parentPath, e.name), 'utf8')),
  );
  return texts.join('\n');
}

/**
 * The key written by hand into a value the service holds (a webhook URL, an input URL) must not come back out of
 * scrapeform: not in a plan, a saved plan, a report, state, or a manifest import writes. It is shown as ***.
 */
describe('the API key inside a value the service holds', () => {
  let h: EmulatorHarness;
  let dir: string;
  const env = (): Record<string, string> => ({
    SCRAPERAPI_API_KEY: EMULATOR_KEY,
    SCRAPEFORM_PARSER_URL: h.emulator.url,
    SCRAPEFORM_PIPELINE_URL: h.emulator.url,
  });
  const scrapeform = (args: string[]) =>
    runScrapeform([...args, '--state', path.join(dir, 'state.json')], { env: env() });

  beforeEach(async () => {
    h = await startTestEmulator();
    dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-key-live-'));
  });
  afterEach(async () => {
    await h.emulator.close();
  });

  /** The books parser applied, then its field price renamed by hand in the service. */
  async function applyBooksWithPriceRenamed(name: string): Promise<void> {
    await writeFile(
      path.join(dir, 'books.yaml'),
      `kind: Parser\nname: books\nurls: ["${BOOK}"]\nfields:\n  title: { description: Title, selector: h1 }\n  price: { description: Price, type: number }\n`,
    );
    expect((await scrapeform(['apply', dir, '--auto-approve'])).code).toBe(0);
    const [parser] = await h.parsers.list();
    await h.parsers.update(String(parser?.id), 0, { rename_fields: [{ name: 'price', new_name: name }] });
  }

  it('is shown as *** in every plan and report, replaced by the declared value, and never written', async () => {
    await writeFile(path.join(dir, 'hooky.yaml'), MANIFEST);
    expect((await scrapeform(['apply', dir, '--auto-approve'])).code).toBe(0);
    const [project] = await h.projects.list();
    const edited = await h.raw('PATCH', `/api/projects/${project?.id}?${q}`, {
      webhookOutput: { url: `https://hooks.example/in?token=${EMULATOR_KEY}` },
    });
    expect(edited.status).toBe(200);

    const outputs = [
      await scrapeform(['plan', dir, '--out', path.join(dir, 'plan.bin')]),
      await scrapeform(['plan', dir, '--json']),
      await scrapeform(['plan', dir, '--markdown']),
      await scrapeform(['drift', dir, '--json']),
      await scrapeform(['status', '--json']),
      await scrapeform(['show', path.join(dir, 'plan.bin')]),
    ];
    for (const run of outputs) expect(`${run.stdout}${run.stderr}`).not.toContain(EMULATOR_KEY);
    const plan = outputs[0];
    expect(plan?.stdout).toContain(
      '~ webhookOutput.url: "https://hooks.example/in?token=***" -> "https://hooks.example/in?api_key=the-hook-s-own"',
    );
    expect(plan?.stdout).toContain(
      'warning: project.hooky: a value the service holds for it contains the API key, shown as *** (never printed, planned or written to state); apply replaces it where the manifest declares that field, else take it out in the service',
    );

    const applied = await scrapeform(['apply', dir, '--auto-approve', '--json']);
    expect(applied.code).toBe(0);
    expect(`${applied.stdout}${applied.stderr}`).not.toContain(EMULATOR_KEY);
    expect((await h.projects.list())[0]?.webhookOutput).toEqual({
      url: 'https://hooks.example/in?api_key=the-hook-s-own',
    });
    // The manifest's own api_key (another service's) is compared as it is: no PATCH on every run.
    const again = await scrapeform(['plan', dir, '--detailed-exitcode']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No changes.');
    expect(await everyFileText(dir)).not.toContain(EMULATOR_KEY);
  });

  it('is never imported: the object that holds it is passed over, and nothing of it is written', async () => {
    const hand = await h.raw('POST', `/api/projects?${q}`, {
      name: 'keyed',
      projectInput: { type: 'list', list: [`https://api.scraperapi.com/?api_key=${EMULATOR_KEY}&url=x`] },
      scrapingInterval: 'daily',
    });
    expect(hand.status).toBe(201);
    const plain = await h.raw('POST', `/api/projects?${q}`, {
      name: 'plain',
      projectInput: { type: 'list', list: [BOOK] },
      scrapingInterval: 'daily',
    });
    expect(plain.status).toBe(201);

    const imported = await scrapeform(['import', '--out', path.join(dir, 'imported')]);
    expect(imported.code).toBe(0);
    expect(imported.stderr).toContain(
      `skipped project "keyed" (${(hand.body as { id: number }).id}): a value it holds contains the API key, which scrapeform never writes to manifests or state; take the key out of it in the service, then import again`,
    );
    expect(imported.stdout).toBe(
      `imported project.plain -> ${path.join(dir, 'imported', 'project-plain.yaml')}\n`,
    );
    expect(await readdir(path.join(dir, 'imported'))).toEqual(['project-plain.yaml']);
    expect(await everyFileText(dir)).not.toContain(EMULATOR_KEY);
    const state = JSON.parse(await readFile(path.join(dir, 'state.json'), 'utf8')) as {
      resources: Record<string, unknown>;
    };
    expect(Object.keys(state.resources)).toEqual(['project.plain']);
  });

  it('is never accepted by drift --accept: the project is refused whole, its manifest and state as they were', async () => {
    await writeFile(path.join(dir, 'hooky.yaml'), MANIFEST);
    expect((await scrapeform(['apply', dir, '--auto-approve'])).code).toBe(0);
    const [project] = await h.projects.list();
    const edited = await h.raw('PATCH', `/api/projects/${project?.id}?${q}`, {
      projectInput: { type: 'list', list: [`https://books.example/p?${q}`] },
      scrapingInterval: 'daily',
    });
    expect(edited.status).toBe(200);
    const before = await everyFileText(dir);

    const shown = await scrapeform(['drift', dir]);
    expect(shown.code).toBe(4);
    expect(shown.stdout).toContain('https://books.example/p?api_key=***');
    const accepted = await scrapeform(['drift', dir, '--accept']);
    expect(accepted.code).toBe(4);
    expect(accepted.stderr).toContain(
      "not accepted: project.hooky: projectInput holds the API key (shown as ***), which scrapeform never writes to manifests or state; take the key out of it in the service (the next plan then puts back the manifest's value), or revert with apply",
    );
    expect(accepted.stderr).not.toContain('accepted project.hooky\n');
    expect(await everyFileText(dir)).toBe(before);
    // Still a change: apply puts the manifest's input back, and the key leaves the service.
    const plan = await scrapeform(['plan', dir, '--detailed-exitcode']);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('projectInput');
  });

  it('is never accepted in a parser field name either: the parser is refused whole, its manifest and state as they were', async () => {
    await applyBooksWithPriceRenamed(`p_${EMULATOR_KEY}`);
    const before = await everyFileText(dir);
    const accepted = await scrapeform(['drift', dir, '--accept']);
    expect(accepted.code).toBe(4);
    expect(accepted.stderr).toContain(
      "not accepted: parser.books: field p_*** holds the API key (shown as ***), which scrapeform never writes to manifests or state; take the key out of the field's name in the service, or revert with apply",
    );
    // Before, the manifest and state took the field as p_***, and the next plan said "No changes".
    expect(await everyFileText(dir)).toBe(before);
    const plan = await scrapeform(['plan', dir, '--detailed-exitcode']);
    expect(plan.code).toBe(2);
  });

  it('the reason it is not accepted names the live field printable', async () => {
    await applyBooksWithPriceRenamed(`p_${EMULATOR_KEY}\u001b[2J\u009b31m\u202e`);
    const accepted = await scrapeform(['drift', dir, '--accept']);
    expect(accepted.code).toBe(4);
    expect(accepted.stderr).toBe(
      "not accepted: parser.books: field p_***\\u001b[2J\\u009b31m\\u202e holds the API key (shown as ***), which scrapeform never writes to manifests or state; take the key out of the field's name in the service, or revert with apply\n",
    );
  });
});
