import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LiveParserDetails, LiveParserSummary, LiveProject } from '../../../src/api/live.js';
import { loadManifests } from '../../../src/manifest/load-manifests.js';
import type { DesiredParser, DesiredProject } from '../../../src/model/desired.js';
import { renderPlanJson } from '../../../src/output/render-plan-json.js';
import { buildPlan } from '../../../src/plan/build-plan.js';
import { projectPayload } from '../../../src/plan/plan-project.js';
import type { LiveSnapshot } from '../../../src/plan/model.js';
import type { ResourceState, State } from '../../../src/state/model.js';

/**
 * The public plan JSON (`format_version` 1) of the example workspaces, compared byte for byte with committed
 * fixtures: what `plan --json` prints must not change when the code behind it does. Each scenario is built from
 * fixture data (no emulator, no clock), so the output is the same on every machine. Set UPDATE_GOLDEN=1 to
 * rewrite the fixtures after a deliberate format change (and say so in the changelog: the format is public).
 */
const root = path.resolve(import.meta.dirname, '../../..');
const fixtures = path.join(root, 'test/fixtures/plan-json');
const LINEAGE = '00000000-0000-4000-8000-000000000001';

async function examples(): Promise<{ parsers: DesiredParser[]; projects: DesiredProject[] }> {
  const loaded = await loadManifests({
    paths: ['quickstart', 'ecommerce', 'news', 'scheduled-crawl'].map((d) => path.join(root, 'examples', d)),
    env: {},
  });
  if (!loaded.valid) throw new Error(JSON.stringify(loaded.diagnostics));
  // Sources hold absolute paths, which differ between machines; the plan JSON shows them only as the origin of an
  // object made by for_each or templates, which these examples do not use.
  return { parsers: loaded.parsers, projects: loaded.projects };
}

const summary = (id: string, name: string, version: number, status = 'FINISHED'): LiveParserSummary => ({
  id,
  name,
  status,
  error:
    status === 'FAILED' ? 'DownloadError: Failed to download https://books.example/x after 3 retries' : null,
  generated_at: '2026-11-01T00:00:00.000Z',
  version,
});

function liveProjectOf(id: number, project: DesiredProject, extra: Partial<LiveProject> = {}): LiveProject {
  const payload = projectPayload(project);
  return {
    id,
    createdAt: '2026-10-01T00:00:00.000Z',
    scheduledAt: '2026-11-02T00:00:00.000Z',
    projectOutput: { type: 'save' },
    notificationConfig: { notifyOnSuccess: 'never', notifyOnFailure: 'with_every_run' },
    scrapingInterval: 'weekly',
    ...payload,
    ...extra,
  } as LiveProject;
}

function stateOf(resources: Record<string, ResourceState>, serial = 7): State {
  return { format_version: 1, serial, lineage: LINEAGE, resources };
}

function byName<T extends { name: string }>(list: T[], name: string): T {
  const found = list.find((p) => p.name === name);
  if (found === undefined) throw new Error(`no example named ${name}`);
  return found;
}

/** Every example object created: the plan of a new workspace. */
async function freshScenario(): Promise<string> {
  const { parsers, projects } = await examples();
  const live: LiveSnapshot = { parsers: [], details: {}, projects: [] };
  return renderPlanJson(buildPlan({ parsers, projects, state: stateOf({}, 0), live }));
}

/**
 * A workspace with history: field edits, a rename, a urls change (replace), a parser and a project no longer
 * declared (delete, archive), one adopted by name, one whose version moved outside scrapeform, one FAILED, a
 * project whose schedule and inputs changed, one archived outside scrapeform.
 */
async function historyScenario(): Promise<string> {
  const { parsers, projects } = await examples();
  const books = byName(parsers, 'books-product');
  const shop = byName(parsers, 'shop-product');
  const article = byName(parsers, 'news-article');
  const listing = byName(parsers, 'news-listing');
  const nightly = byName(projects, 'nightly-book-pages');
  const crawl = byName(projects, 'catalogue-crawl');
  const asin = byName(projects, 'asin-watch');

  const definition = (
    p: DesiredParser,
  ): { urls: string[]; scraperParams: object; fields: typeof p.fields } => ({
    urls: [...p.urls],
    scraperParams: p.scraperParams,
    fields: p.fields,
  });
  // books: the last apply had `subtitle` (now `availability` is declared instead) and an older price description.
  const booksApplied = {
    ...definition(books),
    fields: [
      ...books.fields
        .filter((f) => f.name !== 'availability')
        .map((f) => (f.name === 'price' ? { ...f, description: 'Price' } : f)),
      { name: 'subtitle', description: 'Subtitle under the title' },
    ],
  };
  // shop: applied with other urls: a replace.
  const shopApplied = { ...definition(shop), urls: ['https://shop.example/products/old.html'] };
  const state = stateOf({
    'parser.books-product': {
      kind: 'Parser',
      id: 'b0000000-0000-4000-8000-000000000001',
      name: 'books-product',
      version: 2,
      definition: booksApplied,
      descriptionsKnown: true,
    },
    'parser.shop-product': {
      kind: 'Parser',
      id: 'b0000000-0000-4000-8000-000000000002',
      name: 'shop-product',
      version: 0,
      definition: shopApplied,
      descriptionsKnown: true,
    },
    'parser.news-article': {
      kind: 'Parser',
      id: 'b0000000-0000-4000-8000-000000000003',
      name: 'news-article',
      version: 1,
      definition: definition(article),
      descriptionsKnown: true,
    },
    'parser.retired': {
      kind: 'Parser',
      id: 'b0000000-0000-4000-8000-000000000004',
      name: 'retired',
      version: 3,
      definition: { urls: ['https://books.example/r.html'], scraperParams: {}, fields: [] },
      descriptionsKnown: true,
    },
    'project.nightly-book-pages': {
      kind: 'Project',
      id: 501,
      name: 'nightly-book-pages',
      definition: { ...projectPayload(nightly), scrapingInterval: 'weekly' },
    },
    'project.catalogue-crawl': {
      kind: 'Project',
      id: 502,
      name: 'catalogue-crawl',
      definition: projectPayload(crawl),
    },
    'project.old-crawl': { kind: 'Project', id: 503, name: 'old-crawl', definition: {} },
    'project.asin-watch': { kind: 'Project', id: 504, name: 'asin-watch', definition: projectPayload(asin) },
  });
  const listingId = 'b0000000-0000-4000-8000-000000000005';
  const articleDetails: LiveParserDetails = {
    id: 'b0000000-0000-4000-8000-000000000003',
    name: 'news-article',
    version: 2,
    status: 'FINISHED',
    error: null,
    createdAt: '2026-10-01T00:00:00.000Z',
    generatedAt: '2026-11-01T00:00:00.000Z',
    exampleResult: null,
    fields: [
      ...article.fields.filter((f) => f.name !== 'tags').map((f) => ({ name: f.name })),
      { name: 'byline' },
    ],
  };
  const listingDetails: LiveParserDetails = {
    id: listingId,
    name: 'news-listing',
    version: 4,
    status: 'FINISHED',
    error: null,
    createdAt: '2026-10-01T00:00:00.000Z',
    generatedAt: '2026-11-01T00:00:00.000Z',
    exampleResult: listing.urls.map((url) => ({ url, result: {} })),
    fields: listing.fields
      .filter((f) => !f.name.includes('.'))
      .map((f) => ({ name: f.name, ...(f.type === 'array' ? { type: 'array' } : {}) })),
  };
  const live: LiveSnapshot = {
    parsers: [
      summary('b0000000-0000-4000-8000-000000000001', 'books-product', 2),
      summary('b0000000-0000-4000-8000-000000000002', 'shop-product', 0),
      summary('b0000000-0000-4000-8000-000000000003', 'news-article', 2),
      summary('b0000000-0000-4000-8000-000000000004', 'retired', 3),
      summary(listingId, 'news-listing', 4),
    ],
    details: { [articleDetails.id]: articleDetails, [listingId]: listingDetails },
    projects: [
      liveProjectOf(501, nightly, { scrapingInterval: 'weekly' }),
      liveProjectOf(502, crawl, {
        projectInput: { type: 'list', list: ['https://books.example/catalogue/page-9.html'] },
      }),
      liveProjectOf(503, { ...asin, name: 'old-crawl' }),
    ],
  };
  // shop-product is protected in the example; here its replace is the point.
  const declared = parsers.map((p) => (p === shop ? { ...p, preventDestroy: false } : p));
  return renderPlanJson(
    buildPlan({ parsers: declared, projects, state, live, options: { reassert: ['parser.news-listing'] } }),
  );
}

/**
 * A parser whose latest version FAILED, one never finished, one left half replaced by a killed run, one deleted
 * outside scrapeform and no longer declared (forget), and a parser and a project adopted by name unchanged.
 */
async function failuresScenario(): Promise<string> {
  const { parsers, projects } = await examples();
  const listing = byName(parsers, 'news-listing');
  const nightly = byName(projects, 'nightly-book-pages');
  const books = byName(parsers, 'books-product');
  const shop = byName(parsers, 'shop-product');
  const article = byName(parsers, 'news-article');
  const def = (p: DesiredParser) => ({ urls: [...p.urls], scraperParams: p.scraperParams, fields: p.fields });
  const state = stateOf({
    'parser.books-product': {
      kind: 'Parser',
      id: 'c0000000-0000-4000-8000-000000000001',
      name: 'books-product',
      version: 1,
      definition: { ...def(books), fields: books.fields.filter((f) => f.name !== 'price') },
      descriptionsKnown: true,
      failed: {
        version: 2,
        error: 'DownloadError: Failed to download https://books.example/x after 3 retries',
      },
    },
    'parser.shop-product': {
      kind: 'Parser',
      id: 'c0000000-0000-4000-8000-000000000002',
      name: 'shop-product',
      version: null,
      definition: null,
      descriptionsKnown: true,
      pending: { version: 0, definition: def(shop) },
    },
    'parser.news-article': {
      kind: 'Parser',
      id: 'c0000000-0000-4000-8000-000000000003',
      name: 'news-article',
      version: null,
      definition: null,
      descriptionsKnown: true,
      pending: { version: 0, definition: def(article) },
      replacing: { oldId: 'c0000000-0000-4000-8000-000000000009' },
    },
    'parser.gone': {
      kind: 'Parser',
      id: 'c0000000-0000-4000-8000-000000000008',
      name: 'gone',
      version: 1,
      definition: { urls: ['https://books.example/g.html'], scraperParams: {}, fields: [] },
      descriptionsKnown: true,
    },
  });
  const listingId = 'c0000000-0000-4000-8000-000000000005';
  const listingDetails: LiveParserDetails = {
    id: listingId,
    name: 'news-listing',
    version: 1,
    status: 'FINISHED',
    error: null,
    createdAt: '2026-10-01T00:00:00.000Z',
    generatedAt: '2026-11-01T00:00:00.000Z',
    exampleResult: listing.urls.map((url) => ({ url, result: {} })),
    fields: listing.fields.map((f) => ({ name: f.name, ...(f.type === 'array' ? { type: 'array' } : {}) })),
  };
  const live: LiveSnapshot = {
    parsers: [
      summary('c0000000-0000-4000-8000-000000000001', 'books-product', 2, 'FAILED'),
      summary('c0000000-0000-4000-8000-000000000002', 'shop-product', 0, 'FAILED'),
      summary('c0000000-0000-4000-8000-000000000003', 'news-article', 0),
      summary('c0000000-0000-4000-8000-000000000009', 'news-article', 5),
      summary(listingId, 'news-listing', 1),
    ],
    details: { [listingId]: listingDetails },
    projects: [liveProjectOf(601, nightly)],
  };
  return renderPlanJson(buildPlan({ parsers, projects: [nightly], state, live }));
}

const scenarios: Record<string, () => Promise<string>> = {
  fresh: freshScenario,
  history: historyScenario,
  failures: failuresScenario,
};

describe('plan --json of the example workspaces', () => {
  for (const [name, build] of Object.entries(scenarios)) {
    it(`${name}: byte-identical to test/fixtures/plan-json/${name}.json`, async () => {
      const text = `${await build()}\n`;
      const file = path.join(fixtures, `${name}.json`);
      if (process.env.UPDATE_GOLDEN === '1') {
        await mkdir(fixtures, { recursive: true });
        await writeFile(file, text);
      }
      expect(text).toBe(await readFile(file, 'utf8'));
    });
  }
});
