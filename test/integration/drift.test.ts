import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { emulatorEnv } from '../helpers/child-cli.js';
import { runScrapeform } from '../helpers/cli.js';
import type { CliRun } from '../helpers/cli.js';
import { EMULATOR_KEY, startTestEmulator, waitForVersion } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { bookParser, TestWorkspace } from '../helpers/workspace.js';

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
