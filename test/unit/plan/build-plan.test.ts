import { describe, expect, it } from 'vitest';
import type { LiveParserDetails, LiveParserSummary, LiveProject } from '../../../src/api/live.js';
import type { DesiredParser } from '../../../src/model/desired.js';
import { createColors } from '../../../src/output/colors.js';
import { renderPlan } from '../../../src/output/render-plan.js';
import { MARKDOWN_LIMIT, renderPlanMarkdown } from '../../../src/output/render-plan-markdown.js';
import { buildPlan, detailsNeeded } from '../../../src/plan/build-plan.js';
import type { LiveSnapshot } from '../../../src/plan/model.js';
import { plannedRequests } from '../../../src/plan/plan-json.js';
import type { State } from '../../../src/state/model.js';
import { desiredField, desiredParser, desiredProject } from '../../helpers/desired.js';
import { liveProject } from '../../helpers/live.js';

function summary(id: string, name: string, version: number, status = 'FINISHED'): LiveParserSummary {
  return { id, name, status, error: null, generated_at: '2026-11-01T00:00:00.000Z', version };
}

/** A live project of these example URLs (test/helpers/live.ts for the rest). */
function liveOfList(id: number, name: string, list: string[], extra: Partial<LiveProject> = {}): LiveProject {
  return liveProject(id, name, { projectInput: { type: 'list', list }, ...extra });
}

const titlePrice = [
  desiredField('title', 'Title', { selector: 'h1' }),
  desiredField('price', 'Price', { type: 'number' }),
];

/** A workspace with every kind of change: the fixture side of the dual check, and the renderers' input. */
function everyKindOfChange() {
  const state: State = {
    format_version: 1,
    serial: 7,
    lineage: 'lineage-1',
    resources: {
      'parser.books': {
        kind: 'Parser',
        id: 'p-books',
        name: 'books',
        version: 2,
        definition: {
          urls: ['https://books.example/books/a.html'],
          scraperParams: {},
          fields: [...titlePrice, desiredField('subtitle', 'Subtitle'), desiredField('old', 'Old')],
        },
        descriptionsKnown: true,
      },
      'parser.shop': {
        kind: 'Parser',
        id: 'p-shop',
        name: 'shop',
        version: 0,
        definition: { urls: ['https://shop.example/old.html'], scraperParams: {}, fields: titlePrice },
        descriptionsKnown: true,
      },
      'parser.retired': {
        kind: 'Parser',
        id: 'p-retired',
        name: 'retired',
        version: 4,
        definition: { urls: ['https://books.example/retired/a.html'], scraperParams: {}, fields: titlePrice },
        descriptionsKnown: true,
      },
      'parser.drifted': {
        kind: 'Parser',
        id: 'p-drifted',
        name: 'drifted',
        version: 1,
        definition: { urls: ['https://books.example/drifted/a.html'], scraperParams: {}, fields: titlePrice },
        descriptionsKnown: true,
      },
      'project.nightly': {
        kind: 'Project',
        id: 7,
        name: 'nightly',
        definition: { webhookOutput: { url: 'https://hooks.example/x' } },
      },
      'project.old-crawl': { kind: 'Project', id: 8, name: 'old-crawl', definition: {} },
    },
  };
  const parsers = [
    desiredParser(
      'books',
      [
        desiredField('title', 'Title', { selector: 'h1' }),
        desiredField('price', 'Price incl. tax', { type: 'number' }),
        desiredField('headline', 'Subtitle'),
        desiredField('isbn', 'ISBN'),
      ],
      {
        renames: [{ from: 'subtitle', to: 'headline' }],
      },
    ),
    desiredParser('shop', titlePrice, { urls: ['https://shop.example/new.html'] }),
    desiredParser('drifted', titlePrice),
    desiredParser('found', titlePrice),
    desiredParser('fresh', [
      desiredField('title', 'Title'),
      desiredField('reviews', 'Reviews', { type: 'array' }),
      desiredField('reviews.author', 'Author'),
    ]),
  ];
  const projects = [
    desiredProject('nightly', {
      projectInput: {
        type: 'list',
        list: ['https://b.example/1', 'https://b.example/2', 'https://b.example/3'],
      },
      scrapingInterval: 'daily',
    }),
    desiredProject('fresh-crawl', { projectInput: { type: 'list', list: ['https://b.example/1'] } }),
  ];
  const details: Record<string, LiveParserDetails> = {
    'p-drifted': {
      id: 'p-drifted',
      name: 'drifted',
      version: 2,
      status: 'FINISHED',
      error: null,
      createdAt: null,
      generatedAt: null,
      exampleResult: [{ url: 'https://books.example/drifted/a.html', result: {} }],
      fields: [
        { name: 'title', type: 'text' },
        { name: 'extra', type: 'text' },
      ],
    },
    'p-found': {
      id: 'p-found',
      name: 'found',
      version: 3,
      status: 'FINISHED',
      error: null,
      createdAt: null,
      generatedAt: null,
      exampleResult: [{ url: 'https://books.example/found/a.html', result: {} }],
      fields: [
        { name: 'title', type: 'text' },
        { name: 'price', type: 'text' },
      ],
    },
  };
  const live: LiveSnapshot = {
    parsers: [
      summary('p-books', 'books', 2),
      summary('p-shop', 'shop', 0),
      summary('p-retired', 'retired', 4),
      summary('p-drifted', 'drifted', 2),
      summary('p-found', 'found', 3),
    ],
    details,
    projects: [
      liveOfList(7, 'nightly', ['https://b.example/1', 'https://b.example/0'], {
        webhookOutput: { url: 'https://hooks.example/x' },
      }),
      liveOfList(8, 'old-crawl', []),
    ],
  };
  return { state, parsers, projects, live };
}

describe('buildPlan from fixture data', () => {
  const input = everyKindOfChange();
  const plan = buildPlan(input);

  it('asks for details only where needed: a parser to adopt, and a version that moved', () => {
    expect(detailsNeeded(input.parsers, input.state, input.live.parsers).sort()).toEqual([
      'p-drifted',
      'p-found',
    ]);
  });

  it('plans every kind of change with the exact requests', () => {
    expect(plan.resource_changes.map((c) => [c.address, c.action, c.destructive, c.regenerates])).toEqual([
      ['parser.books', 'update', false, true],
      ['parser.drifted', 'update', false, true],
      ['parser.found', 'adopt', false, false],
      ['parser.fresh', 'create', false, true],
      ['parser.retired', 'delete', true, false],
      ['parser.shop', 'replace', true, true],
      ['project.fresh-crawl', 'create', false, false],
      ['project.nightly', 'update', false, false],
      ['project.old-crawl', 'archive', true, false],
    ]);
    const requestsOf = (address: string): ReturnType<typeof plannedRequests> => {
      const found = plan.resource_changes.find((c) => c.address === address);
      if (found === undefined) throw new Error(`no change for ${address}`);
      return plannedRequests(found);
    };
    expect(requestsOf('parser.books')).toEqual([
      {
        service: 'parser',
        method: 'PATCH',
        path: '/parsers/p-books/2',
        body: {
          remove_fields: ['old'],
          rename_fields: [{ name: 'subtitle', new_name: 'headline' }],
          modify_fields: [{ name: 'price', description: 'Price incl. tax', type: 'number' }],
          add_fields: [{ name: 'isbn', description: 'ISBN' }],
        },
      },
    ]);
    expect(requestsOf('parser.drifted')[0]).toEqual({
      service: 'parser',
      method: 'PATCH',
      path: '/parsers/p-drifted/2',
      body: {
        remove_fields: ['extra'],
        add_fields: [{ name: 'price', description: 'Price', type: 'number' }],
      },
    });
    expect(requestsOf('project.nightly')[0]?.body).toEqual({
      projectInput: {
        type: 'list',
        list: ['https://b.example/1', 'https://b.example/2', 'https://b.example/3'],
      },
      webhookOutput: null,
    });
    expect(requestsOf('project.fresh-crawl')[0]?.body).toEqual({
      name: 'fresh-crawl',
      projectType: 'urls',
      projectInput: { type: 'list', list: ['https://b.example/1'] },
      schedulingEnabled: false,
    });
    expect(plan.summary).toEqual({
      create: 2,
      update: 3,
      replace: 1,
      delete: 1,
      archive: 1,
      adopt: 1,
      regenerations: 4,
      estimated_credits: 120_000,
    });
    expect(plan.drift).toEqual([
      {
        address: 'parser.drifted',
        kind: 'Parser',
        message: 'version moved from 1 to 2 outside scrapeform; fields added: extra; fields removed: price',
      },
    ]);
    expect(plan.fingerprint).toEqual({
      state_lineage: 'lineage-1',
      state_serial: 7,
      live: expect.objectContaining({ 'parser.books': 'p-books@2', 'parser.shop': 'p-shop@0' }),
    });
  });

  it('is the same whatever order the manifests were read in', () => {
    const shuffled = buildPlan({
      ...input,
      parsers: [...input.parsers].reverse(),
      projects: [...input.projects].reverse(),
    });
    expect(shuffled).toEqual(plan);
  });

  it('renders for people (snapshot)', () => {
    expect(renderPlan(plan, createColors(false))).toMatchSnapshot();
  });

  it('renders as Markdown for a pull request (snapshot)', () => {
    expect(renderPlanMarkdown(plan)).toMatchSnapshot();
  });

  it('a 300-object plan stays under the comment limit and still lists every destructive change', () => {
    const state: State = { format_version: 1, serial: 1, lineage: 'l', resources: {} };
    const live: LiveSnapshot = { parsers: [], details: {}, projects: [] };
    const many: DesiredParser[] = [];
    for (let i = 0; i < 300; i++) {
      const name = `parser-${String(i).padStart(3, '0')}`;
      const fields = Array.from({ length: 20 }, (_, j) =>
        desiredField(
          `field_${j}`,
          `A long description of field ${j} of ${name} that a reviewer reads in the plan`,
        ),
      );
      if (i % 10 === 0) {
        state.resources[`parser.${name}`] = {
          kind: 'Parser',
          id: `id-${i}`,
          name,
          version: 0,
          definition: { urls: ['https://old.example/'], scraperParams: {}, fields },
          descriptionsKnown: true,
        };
        live.parsers.push(summary(`id-${i}`, name, 0));
      }
      many.push(desiredParser(name, fields));
    }
    const big = buildPlan({ parsers: many, projects: [], state, live });
    const markdown = renderPlanMarkdown(big);
    expect(markdown.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    expect(markdown).toMatch(
      /_…\d+ more changes cut to fit the comment limit; run `scrapeform plan` for the full plan\._/,
    );
    for (let i = 0; i < 300; i += 10)
      expect(markdown).toContain(`- \`parser.parser-${String(i).padStart(3, '0')}\` **replace**`);
  });

  it('prevent_destroy makes a delete an error, with every offender listed', () => {
    const { state, live } = everyKindOfChange();
    const guarded = [
      desiredParser('shop', titlePrice, { urls: ['https://shop.example/new.html'], preventDestroy: true }),
    ];
    expect(() =>
      buildPlan({ parsers: guarded, projects: [], state, live, options: { targets: ['parser.shop'] } }),
    ).toThrow('parser.shop: lifecycle.prevent_destroy is set, and this plan would delete or replace it');
  });
});
