import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { emulatorEnv } from '../helpers/child-cli.js';
import { runScrapeform } from '../helpers/cli.js';
import type { CliRun } from '../helpers/cli.js';
import { EMULATOR_KEY, startTestEmulator, waitForVersion } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { BOOK_A, bookParser, TestWorkspace } from '../helpers/workspace.js';

let h: EmulatorHarness;
let ws: TestWorkspace;
beforeAll(async () => {
  h = await startTestEmulator({ generationDelayMs: 5 });
});
afterAll(async () => h.emulator.close());
beforeEach(async () => {
  h.emulator.reset();
  ws = await TestWorkspace.create(h);
});
afterEach(async () => {
  await h.emulator.projects.idle();
});

const FIELDS = `  # the heading, not the <title>
  title: { description: Book title, selector: h1 }
  price: { description: Price including tax, type: number }
  reviews:
    description: Customer reviews
    fields:
      author: { description: Name of the reviewer }
`;

const PROJECT = `kind: Project
name: nightly
projectType: urls
projectInput: { type: list, list: [https://books.example/catalogue/page-1.html] }
scrapingInterval: daily # every night
output_format: JSON
`;

function drift(args: string[]): Promise<CliRun> {
  return runScrapeform(['drift', path.join(ws.dir, 'manifests'), '--state', ws.backend.location, ...args], {
    env: emulatorEnv(h.emulator.url, EMULATOR_KEY),
  });
}

async function ids(): Promise<{ parser: string; project: number }> {
  const state = await ws.state();
  return {
    parser: String(state.resources['parser.books']?.id),
    project: Number(state.resources['project.nightly']?.id),
  };
}

interface DriftJson {
  status: string;
  summary: {
    objects: number;
    drifted: number;
    revert: { calls: number; regenerations: number; credits: number };
    accept: { calls: number; regenerations: number; credits: number };
  };
  drift: {
    address: string;
    drift: string;
    message: string;
    changes: unknown[];
    revert: { calls: number; regenerations: number; credits: number; requests: unknown[] };
    accept: { calls: number; credits: number; possible: boolean; placeholders: string[] };
  }[];
}

describe('scrapeform drift', () => {
  it('exits 0 with no drift, then 4 after out-of-band changes, with revert and accept costs in its JSON', async () => {
    await ws.write({ 'books.yaml': bookParser(FIELDS), 'nightly.yaml': PROJECT });
    await ws.converge();
    const clean = await drift(['--json']);
    expect([clean.code, JSON.parse(clean.stdout).status], clean.stderr).toEqual([0, 'no_drift']);

    const { parser, project } = await ids();
    await h.parsers.update(parser, 0, { rename_fields: [{ name: 'price', new_name: 'cost' }] });
    await h.projects.update(project, { scrapingInterval: 'weekly' });
    const run = await drift(['--json']);
    expect(run.code, run.stderr).toBe(4);
    const report = JSON.parse(run.stdout) as DriftJson;
    expect(report.summary).toEqual({
      objects: 2,
      drifted: 2,
      revert: { calls: 2, regenerations: 0, credits: 0 },
      accept: { calls: 0, regenerations: 0, credits: 0 },
    });
    expect(report.drift.map((d) => [d.address, d.drift, d.changes])).toEqual([
      ['parser.books', 'fields', [{ change: 'rename', from: 'price', to: 'cost' }]],
      [
        'project.nightly',
        'edited',
        [{ change: 'edit', key: 'scrapingInterval', state: 'daily', live: 'weekly' }],
      ],
    ]);
    expect(report.drift[0]?.revert.requests).toEqual([
      {
        method: 'PATCH',
        path: `/parsers/${parser}/1`,
        body: { rename_fields: [{ name: 'cost', new_name: 'price' }] },
      },
    ]);
    expect(report.drift[1]?.revert.requests).toEqual([
      { method: 'PATCH', path: `/api/projects/${project}`, body: { scrapingInterval: 'daily' } },
    ]);

    // A field added by hand regenerates: removing it again is free, accepting it is too.
    const added = await h.parsers.update(parser, 1, {
      add_fields: [{ name: 'upc', description: 'Universal product code', selector: 'td.upc' }],
    });
    await waitForVersion(h.parsers, parser, added.version);
    const again = JSON.parse((await drift(['--json', '--target', 'parser.books'])).stdout) as DriftJson;
    expect(again.summary.objects).toBe(1);
    expect(again.drift[0]?.changes).toEqual([
      { change: 'remove', field: 'price' },
      { change: 'add', field: 'cost', parent: false },
      { change: 'add', field: 'upc', parent: false },
    ]);
    expect(again.drift[0]?.revert).toMatchObject({ calls: 1, regenerations: 1, credits: 30_000 });
    expect(again.drift[0]?.accept).toMatchObject({ calls: 0, credits: 0, placeholders: ['cost', 'upc'] });

    const human = await drift([]);
    expect(human.code).toBe(4);
    expect(human.stdout).toContain('Drift: 2 of 2 managed objects changed outside scrapeform');
    expect(human.stdout).toContain('Revert all (scrapeform apply): 2 calls, 1 regeneration, 30,000 credits');
    const markdown = await drift(['--markdown']);
    expect(markdown.stdout).toContain('| `project.nightly` | edited outside scrapeform: scrapingInterval |');
  });

  it('--accept after out-of-band changes rewrites the manifests, keeps their comments, and the next plan is empty', async () => {
    await ws.write({ 'books.yaml': bookParser(FIELDS), 'nightly.yaml': PROJECT });
    await ws.converge();
    const { parser, project } = await ids();
    await h.parsers.update(parser, 0, { rename_fields: [{ name: 'reviews', new_name: 'opinions' }] });
    await h.projects.update(project, { scrapingInterval: 'weekly', output_format: 'CSV' });

    const run = await drift(['--accept', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('accepted parser.books');
    expect(run.stderr).toContain('accepted project.nightly');
    const books = await readFile(path.join(ws.dir, 'manifests', 'books.yaml'), 'utf8');
    expect(books).toContain('# the heading, not the <title>');
    // A rename keeps the description it had: only the name moves, children with it.
    expect(books).toContain(`  opinions:
    description: Customer reviews
    fields:
      author: { description: Name of the reviewer }`);
    const nightly = await readFile(path.join(ws.dir, 'manifests', 'nightly.yaml'), 'utf8');
    expect(nightly).toContain('scrapingInterval: weekly # every night');
    expect(nightly).toContain('output_format: CSV');
    // Only what drift changed is written anew: `[x]`, flow maps and every other line stay byte for byte.
    expect(books).toBe(bookParser(FIELDS).replace('  reviews:', '  opinions:'));
    expect(nightly).toBe(
      PROJECT.replace('daily # every night', 'weekly # every night').replace(
        'output_format: JSON',
        'output_format: CSV',
      ),
    );
    expect((await ws.plan()).status).toBe('no_changes');

    // A field added and one removed by hand (a regeneration): the new one gets a placeholder description.
    const added = await h.parsers.update(parser, 1, {
      remove_fields: ['price'],
      add_fields: [{ name: 'upc', description: 'Universal product code', selector: 'td.upc' }],
    });
    await waitForVersion(h.parsers, parser, added.version);
    const second = await drift(['--accept']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('parser.books: upc has a placeholder that validate warns about');
    const after = await readFile(path.join(ws.dir, 'manifests', 'books.yaml'), 'utf8');
    expect(after).not.toContain('price');
    expect(after).toContain('upc:');

    const next = await ws.plan();
    expect(next.status, JSON.stringify(next.resource_changes)).toBe('no_changes');
    expect(next.drift).toEqual([]);
    expect((await drift([])).code).toBe(0);
    const validate = await runScrapeform(['validate', path.join(ws.dir, 'manifests')]);
    expect(validate.stderr + validate.stdout).toContain('the description is a placeholder');
  });

  it('a version made by hand in a status scrapeform does not know is still generating: nothing to revert, --accept leaves it', async () => {
    await ws.write({ 'books.yaml': bookParser(FIELDS) });
    await ws.converge();
    const { parser } = await ids();
    const before = await readFile(path.join(ws.dir, 'manifests', 'books.yaml'), 'utf8');
    await h.raw('PUT', '/_emulator/quirks', { quirks: ['queued-status'], queuedMs: 600_000 });
    // A reset keeps the quirks: the tests after this one need versions that finish.
    onTestFinished(async () => {
      await h.raw('PUT', '/_emulator/quirks', { quirks: [] });
    });
    await h.parsers.update(parser, 0, {
      add_fields: [{ name: 'upc', description: 'Universal product code', selector: 'td.upc' }],
    });
    const run = await drift(['--json']);
    const report = JSON.parse(run.stdout) as DriftJson;
    expect(
      report.drift.map((d) => [d.drift, d.message, d.changes, d.revert.credits, d.accept.possible]),
    ).toEqual([
      [
        'generating',
        'version 1 was made outside scrapeform and is still generating (status QUEUED)',
        [],
        0,
        false,
      ],
    ]);
    const accept = await drift(['--accept']);
    expect(accept.stderr).not.toContain('accepted parser.books');
    expect(await readFile(path.join(ws.dir, 'manifests', 'books.yaml'), 'utf8')).toBe(before);
    expect((await ws.state()).resources['parser.books']).toMatchObject({ version: 0 });
  });

  it('--accept when the manifest already declares the live fields (a run stopped between its two writes, or an edit by hand) finishes it', async () => {
    await ws.write({ 'books.yaml': bookParser(FIELDS) });
    await ws.converge();
    const { parser } = await ids();
    await h.parsers.update(parser, 0, { rename_fields: [{ name: 'price', new_name: 'cost' }] });
    const removed = await h.parsers.update(parser, 1, { remove_fields: ['title'] });
    await waitForVersion(h.parsers, parser, removed.version);
    const file = path.join(ws.dir, 'manifests', 'books.yaml');
    const written = await readFile(file, 'utf8');
    await writeFile(
      file,
      written
        .replace('  price:', '  cost:')
        .replace('  title: { description: Book title, selector: h1 }\n', ''),
    );
    const run = await drift(['--accept']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('accepted parser.books');
    expect((await ws.state()).resources['parser.books']).toMatchObject({ version: removed.version });
    expect((await drift([])).code).toBe(0);
    expect((await ws.plan()).status).toBe('no_changes');
  });

  it('--accept of a parser deleted by hand drops it from state and removes its manifest document', async () => {
    await ws.write({ 'books.yaml': `${bookParser(FIELDS)}---\n${PROJECT}` });
    await ws.converge();
    await h.parsers.delete((await ids()).parser);
    const found = JSON.parse((await drift(['--json'])).stdout) as DriftJson;
    expect(found.drift[0]).toMatchObject({
      address: 'parser.books',
      drift: 'deleted',
      revert: { calls: 1, regenerations: 1, credits: 30_000 },
    });
    expect((await drift(['--accept'])).code).toBe(0);
    const text = await readFile(path.join(ws.dir, 'manifests', 'books.yaml'), 'utf8');
    expect(text).not.toContain('kind: Parser');
    expect(text).toContain('name: nightly');
    expect(Object.keys((await ws.state()).resources)).toEqual(['project.nightly']);
    expect((await ws.plan()).status).toBe('no_changes');
  });

  it('--target names something state does not manage: an error, nothing read', async () => {
    await ws.write({ 'books.yaml': bookParser(FIELDS) });
    await ws.converge();
    const run = await drift(['--target', 'parser.bokos']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'error: --target parser.bokos: state does not manage it, so there is no drift to see',
    );
  });
});

describe('drift --accept accepts only what its manifest edit makes the manifests declare', () => {
  const TEMPLATE = `kind: ParserTemplate
name: product
urls: [${BOOK_A}]
fields:
  title: { description: Book title, selector: h1 }
  price: { description: Price including tax, type: number }
`;
  const CATEGORIES = `kind: Parser
name: cat-\${each.country}
extends: product
for_each: [{ country: de }, { country: fr }]
urls: ['${BOOK_A}?country=\${each.country}']
`;

  async function manifestsAndState(): Promise<{ texts: string[]; resources: unknown }> {
    const dir = path.join(ws.dir, 'manifests');
    const texts = await Promise.all(
      (await readdir(dir)).sort().map((name) => readFile(path.join(dir, name), 'utf8')),
    );
    return { texts, resources: (await ws.state()).resources };
  }

  it('a for_each instance renamed or deleted by hand is not accepted: exit 4, manifests and state unchanged, drift still there', async () => {
    await ws.write({ 'product.yaml': TEMPLATE, 'categories.yaml': CATEGORIES });
    await ws.converge();
    const state = await ws.state();
    const de = String(state.resources['parser.cat-de']?.id);
    await h.parsers.update(de, 0, { rename_fields: [{ name: 'price', new_name: 'cost' }] });
    const before = await manifestsAndState();

    const run = await drift(['--accept']);
    expect(run.code, run.stderr).toBe(4);
    expect(run.stderr).toContain('not accepted: parser.cat-de: made by for_each');
    expect(run.stderr).not.toContain('accepted parser.cat-de\n');
    expect(await manifestsAndState()).toEqual(before);
    const plan = await ws.plan();
    expect(plan.drift.map((d) => d.address)).toEqual(['parser.cat-de']);
    expect((await drift([])).code).toBe(4);

    // Deleted: dropping it from state while its element still declares it would create it again (30,000 credits).
    await h.parsers.delete(String(state.resources['parser.cat-fr']?.id));
    const deleted = await drift(['--accept', '--target', 'parser.cat-fr']);
    expect(deleted.code, deleted.stderr).toBe(4);
    expect(deleted.stderr).toContain('take the element out of the for_each list by hand');
    expect(await manifestsAndState()).toEqual(before);
  });

  it('a webhook a ProjectTemplate supplies, removed by hand, is accepted as webhookOutput: null, and the next plan is empty', async () => {
    await ws.write({
      'crawl.yaml': `kind: ProjectTemplate
name: nightly
projectType: urls
scrapingInterval: daily
webhookOutput: { url: 'http://127.0.0.1:9/hook' }
`,
      'partners.yaml': `kind: Project
name: partners # the partners' list
extends: nightly
projectInput: { type: list, list: [https://books.example/catalogue/page-2.html] }
`,
    });
    await ws.converge();
    const id = Number((await ws.state()).resources['project.partners']?.id);
    await h.projects.update(id, { webhookOutput: null });

    const run = await drift(['--accept']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('accepted project.partners');
    const partners = await readFile(path.join(ws.dir, 'manifests', 'partners.yaml'), 'utf8');
    expect(partners).toContain('name: partners # the partners');
    expect(partners).toContain('webhookOutput: null');
    const template = await readFile(path.join(ws.dir, 'manifests', 'crawl.yaml'), 'utf8');
    expect(template).toContain("webhookOutput: { url: 'http://127.0.0.1:9/hook' }");
    const next = await ws.plan();
    expect(next.status, JSON.stringify(next.resource_changes)).toBe('no_changes');
    expect((await drift([])).code).toBe(0);
  });

  it('an edit that does not take (a map a template merges into) is not recorded, and the manifest is put back', async () => {
    await ws.write({
      'crawl.yaml': `kind: ProjectTemplate
name: nightly
projectType: urls
apiParams: { country_code: us }
`,
      'partners.yaml': `kind: Project
name: partners
extends: nightly
projectInput: { type: list, list: [https://books.example/catalogue/page-2.html] }
`,
    });
    await ws.converge();
    const id = Number((await ws.state()).resources['project.partners']?.id);
    await h.projects.update(id, { apiParams: { render: true } });
    const before = await manifestsAndState();

    const run = await drift(['--accept']);
    expect(run.code, run.stderr).toBe(4);
    expect(run.stderr).toContain(
      'not accepted: project.partners: after the edit its manifests still declare other values than the live ones for apiParams',
    );
    expect(await manifestsAndState()).toEqual(before);
    expect((await drift([])).code).toBe(4);
  });

  it("a key written with ${var.…} is refused at its place (edit the variable), not overwritten with one environment's value", async () => {
    await ws.write({
      'scrapeform.yaml': `kind: Config\nvariables:\n  interval: { type: string, default: daily }\n  pages: { type: string, default: https://books.example/catalogue }\n`,
      'nightly.yaml': `kind: Project
name: nightly
projectType: urls
projectInput: { type: list, list: ['\${var.pages}/page-1.html'] }
scrapingInterval: \${var.interval}
`,
    });
    await ws.converge();
    const id = Number((await ws.state()).resources['project.nightly']?.id);
    await h.projects.update(id, { scrapingInterval: 'hourly' });
    const before = await manifestsAndState();

    const run = await drift(['--accept']);
    expect(run.code, run.stderr).toBe(4);
    expect(run.stderr).toContain(
      `scrapingInterval at ${path.join(ws.dir, 'manifests', 'nightly.yaml')}:5:19 is written with a reference (\${var.interval})`,
    );
    expect(run.stderr).toContain('edit the variable');
    expect(await manifestsAndState()).toEqual(before);

    // A list whose items hold a reference is refused the same way.
    await h.projects.update(id, {
      scrapingInterval: 'daily',
      projectInput: { type: 'list', list: ['https://books.example/catalogue/page-9.html'] },
    });
    const list = await drift(['--accept']);
    expect(list.code, list.stderr).toBe(4);
    expect(list.stderr).toContain(
      `nightly.yaml:4:36 is written with a reference (\${var.pages}/page-1.html)`,
    );
    expect(await manifestsAndState()).toEqual(before);
  });

  it('a live value holding ${ is written as $${, so the next load reads it back, and the next plan is empty', async () => {
    await ws.write({ 'nightly.yaml': PROJECT });
    await ws.converge();
    const { project } = await ids();
    await h.projects.update(project, {
      projectInput: { type: 'list', list: ['https://books.example/search?q=${HOME}'] },
    });

    const run = await drift(['--accept']);
    expect(run.code, run.stderr).toBe(0);
    const nightly = await readFile(path.join(ws.dir, 'manifests', 'nightly.yaml'), 'utf8');
    expect(nightly).toContain('https://books.example/search?q=$${HOME}');
    const next = await ws.plan();
    expect(next.status, JSON.stringify(next.resource_changes)).toBe('no_changes');
  });
});

/**
 * A `moved:` hint renames an object and no apply has moved its state yet: drift is found at the old address (state
 * still holds it there), and the manifest to edit is the one at the new address, which the next plan compares the
 * object with once it moved the state. Edited nowhere, the next plan reverted what was accepted: a field removed
 * by hand was put back (a regeneration, ~30,000 credits), and a parser deleted by hand was created again.
 */
describe('drift --accept of an object a moved: hint renames, before any apply moved its state', () => {
  const RENAMED = bookParser(FIELDS).replace(
    'name: books\n',
    'name: tomes\nmoved:\n  - { from: parser.books, to: parser.tomes }\n',
  );

  it('a field removed by hand is removed from the manifest at the new address: the next plan moves state only', async () => {
    await ws.write({ 'books.yaml': bookParser(FIELDS) });
    await ws.converge();
    const { parser } = await ids();
    await ws.write({ 'books.yaml': RENAMED });
    const removed = await h.parsers.update(parser, 0, { remove_fields: ['price'] });
    await waitForVersion(h.parsers, parser, removed.version);

    const run = await drift(['--accept']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('accepted parser.books');
    const text = await readFile(path.join(ws.dir, 'manifests', 'books.yaml'), 'utf8');
    expect(text).toContain('name: tomes\nmoved:\n  - { from: parser.books, to: parser.tomes }\n');
    expect(text).not.toContain('price');
    expect((await ws.state()).resources['parser.books']).toMatchObject({
      id: parser,
      version: removed.version,
    });

    h.emulator.requestLog.length = 0;
    const plan = await ws.plan();
    expect(plan.moved?.map((m) => `${m.from} -> ${m.to}`)).toEqual(['parser.books -> parser.tomes']);
    expect(plan.resource_changes).toEqual([]);
    expect(plan.summary.estimated_credits).toBe(0);
    expect(h.emulator.requestLog.filter((e) => e.method !== 'GET')).toEqual([]);
  });

  it('a parser deleted by hand has its document removed at the new address: the next plan creates nothing', async () => {
    await ws.write({ 'books.yaml': `${bookParser(FIELDS)}---\n${PROJECT}` });
    await ws.converge();
    await ws.write({ 'books.yaml': `${RENAMED}---\n${PROJECT}` });
    await h.parsers.delete((await ids()).parser);

    const run = await drift(['--accept']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('accepted parser.books');
    const text = await readFile(path.join(ws.dir, 'manifests', 'books.yaml'), 'utf8');
    expect(text).not.toContain('kind: Parser');
    expect(text).toContain('name: nightly');
    expect(Object.keys((await ws.state()).resources)).toEqual(['project.nightly']);
    const plan = await ws.plan();
    expect(plan.status, JSON.stringify(plan.resource_changes)).toBe('no_changes');
    expect(plan.summary.estimated_credits).toBe(0);
  });
});
