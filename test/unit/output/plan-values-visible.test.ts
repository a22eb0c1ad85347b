import { describe, expect, it } from 'vitest';
import type { LiveParserSummary, LiveProject } from '../../../src/api/live.js';
import { createColors } from '../../../src/output/colors.js';
import { renderPlan } from '../../../src/output/render-plan.js';
import { renderPlanMarkdown } from '../../../src/output/render-plan-markdown.js';
import { buildPlan } from '../../../src/plan/build-plan.js';
import type { Plan } from '../../../src/plan/model.js';
import { parseSavedPlan } from '../../../src/plan/plan-file.js';
import { renderSavedPlan } from '../../../src/output/render-saved-plan.js';
import { toPlanJson } from '../../../src/plan/plan-json.js';
import type { State } from '../../../src/state/model.js';
import { desiredParser, desiredProject } from '../../helpers/desired.js';

/**
 * Issue 15, "every changed value visible": one workspace with a project schedule change, an input list change, a
 * webhook change, a parser replace and a create of each kind, planned by the real planner from fixture data. The
 * human and Markdown plans must show every old and new value a reviewer approves; the JSON the same facts.
 */
const plain = createColors(false);

const page = (n: number): string => `https://books.example/catalogue/page-${n}.html`;
const range = (from: number, to: number): number[] =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

const summary = (id: string, name: string, version: number): LiveParserSummary => ({
  id,
  name,
  status: 'FINISHED',
  error: null,
  generated_at: null,
  version,
});

/** The last apply of parser.books and project.nightly, and what the manifests of the branch say now. */
function reviewedPlan(): Plan {
  const state: State = {
    format_version: 1,
    serial: 4,
    lineage: 'l',
    resources: {
      'parser.books': {
        kind: 'Parser',
        id: 'p-books',
        name: 'books',
        version: 2,
        definition: {
          urls: ['https://books.example/a.html'],
          scraperParams: { render: false },
          fields: [
            { name: 'title', description: 'Book title', selector: 'h1' },
            { name: 'price', description: 'Price', type: 'number' },
            { name: 'subtitle', description: 'Subtitle under the title' },
            { name: 'isbn', description: 'ISBN' },
            { name: 'reviews', description: 'Customer reviews', type: 'array' },
            { name: 'reviews.author', description: 'Name of the reviewer' },
          ],
        },
        descriptionsKnown: true,
      },
      'project.nightly': {
        kind: 'Project',
        id: 7,
        name: 'nightly',
        definition: {
          name: 'nightly',
          projectType: 'urls',
          projectInput: { type: 'list', list: range(1, 25).map(page) },
          scrapingInterval: '30 2 * * *',
          schedulingEnabled: true,
          webhookOutput: { url: 'https://hooks.example/old' },
        },
      },
    },
  };
  const liveNightly: LiveProject = {
    id: 7,
    name: 'nightly',
    projectType: 'urls',
    projectInput: { type: 'list', list: range(1, 25).map(page) },
    scrapingInterval: '30 2 * * *',
    schedulingEnabled: true,
    output_format: 'JSON',
    webhookOutput: { url: 'https://hooks.example/old' },
    notificationConfig: { notifyOnSuccess: 'never', notifyOnFailure: 'with_every_run' },
  };
  const books = desiredParser(
    'books',
    [
      { name: 'title', description: 'Book title', selector: 'h1.title' },
      {
        name: 'price',
        description: 'Price including tax, as a number without currency sign',
        type: 'number',
      },
      { name: 'headline', description: 'Subtitle under the title' },
      { name: 'reviews', description: 'Customer reviews', type: 'array' },
      { name: 'reviews.rating', description: 'Stars from 1 to 5', type: 'number' },
    ],
    {
      urls: ['https://books.example/a.html', 'https://books.example/c.html'],
      scraperParams: { country_code: 'de', render: true },
      renames: [{ from: 'subtitle', to: 'headline' }],
    },
  );
  const fresh = desiredParser(
    'shelf',
    [
      { name: 'heading', description: 'Shelf name, from the page heading', type: 'string', selector: 'h1' },
      { name: 'books', description: 'Every book on the shelf', type: 'array' },
      { name: 'books.title', description: 'Title of one book', selector: 'h3 a' },
    ],
    { urls: ['https://books.example/shelf.html'], scraperParams: { premium: true } },
  );
  const nightly = desiredProject('nightly', {
    projectInput: { type: 'list', list: [...range(1, 3), ...range(101, 124)].map(page) },
    scrapingInterval: '15 1 * * *',
    webhookOutput: { url: 'https://hooks.example/new', webhookEncoding: 'multipart_form_data_encoding' },
  });
  const crawl = desiredProject('weekly-crawl', {
    projectInput: { type: 'list', list: [page(1), page(2)] },
    scrapingInterval: '0 6 * * 1',
    schedulingEnabled: true,
    output_format: 'CSV',
    webhookOutput: { url: 'https://hooks.example/crawl', webhookEncoding: 'multipart_form_data_encoding' },
    notificationConfig: { notifyOnSuccess: 'weekly', notifyOnFailure: 'daily' },
    apiParams: { country_code: 'us', render: true },
  });
  return buildPlan({
    parsers: [books, fresh],
    projects: [nightly, crawl],
    state,
    live: { parsers: [summary('p-books', 'books', 2)], details: {}, projects: [liveNightly] },
  });
}

describe('every changed value visible, old and new (issue 15)', () => {
  const plan = reviewedPlan();
  const human = renderPlan(plan, plain);
  const markdown = renderPlanMarkdown(plan);
  const block = (address: string): string => {
    const start = human.indexOf(`${address} `);
    const end = human.indexOf('\n\n', start);
    return human.slice(start, end);
  };

  it('plans the workspace as the scenario says', () => {
    expect(plan.resource_changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      'replace parser.books',
      'create parser.shelf',
      'update project.nightly',
      'create project.weekly-crawl',
    ]);
  });

  it('a project update shows each changed key old -> new, and every input added and removed up to 20 each', () => {
    const nightly = block('project.nightly');
    expect(nightly).toContain('~ scrapingInterval: "30 2 * * *" -> "15 1 * * *"');
    expect(nightly).toContain(
      '~ webhookOutput.url: "https://hooks.example/old" -> "https://hooks.example/new"',
    );
    expect(nightly).toContain('+ webhookOutput.webhookEncoding: "multipart_form_data_encoding"');
    expect(nightly).toContain('~ inputs: +24 −22 entries (27 in all)');
    for (const n of range(101, 120)) expect(nightly).toContain(`        + ${page(n)}\n`);
    for (const n of range(4, 23)) expect(nightly).toContain(`        - ${page(n)}\n`);
    // Past the limit, counted: never "N entries" alone.
    expect(nightly).not.toContain(page(121));
    expect(nightly).not.toContain(`- ${page(24)}`);
    expect(nightly).toContain('… and 4 more added, 2 more removed');
  });

  it('a replace shows urls and scraper_params old -> new and the fields that differ from the old parser', () => {
    const books = block('parser.books');
    expect(books).toContain(
      '~ urls: ["https://books.example/a.html"] -> ["https://books.example/a.html","https://books.example/c.html"]',
    );
    expect(books).toContain('~ scraper_params: {"render":false} -> {"country_code":"de","render":true}');
    expect(books).toContain('~ title: selector h1 -> h1.title');
    expect(books).toContain(
      '~ price: description "Price" -> "Price including tax, as a number without currency sign"',
    );
    expect(books).toContain('→ renamed subtitle -> headline (in the new parser)');
    expect(books).toContain('- isbn');
    expect(books).toContain('- reviews.author');
    expect(books).toContain('+ reviews.rating (number): "Stars from 1 to 5"');
    expect(books).toContain('fields unchanged: reviews');
    // Not every field as added: the unchanged parent is not listed as new.
    expect(books).not.toContain('+ reviews (array)');
  });

  it('creates show the whole declared definition', () => {
    const shelf = block('parser.shelf');
    expect(shelf).toContain('+ urls: ["https://books.example/shelf.html"]');
    expect(shelf).toContain('+ scraper_params: {"premium":true}');
    expect(shelf).toContain('+ heading (string, selector h1): "Shelf name, from the page heading"');
    expect(shelf).toContain('+ books (array): "Every book on the shelf"');
    expect(shelf).toContain('+ books.title (selector h3 a): "Title of one book"');
    const crawl = block('project.weekly-crawl');
    for (const expected of [
      '+ projectType: "urls"',
      '+ inputs: 2 entries',
      `    + ${page(1)}`,
      '+ scrapingInterval: "0 6 * * 1"',
      '+ schedulingEnabled: true',
      '+ output_format: "CSV"',
      '+ webhookOutput.url: "https://hooks.example/crawl"',
      '+ webhookOutput.webhookEncoding: "multipart_form_data_encoding"',
      '+ notificationConfig.notifyOnSuccess: "weekly"',
      '+ notificationConfig.notifyOnFailure: "daily"',
      '+ apiParams.country_code: "us"',
      '+ apiParams.render: true',
    ])
      expect(crawl).toContain(expected);
  });

  it('request bodies are never cut inside a value', () => {
    // The longest description is whole in the body, and no line ends in an ellipsis.
    expect(human).toContain('"description":"Price including tax, as a number without currency sign"');
    expect(human).not.toMatch(/…$/m);
    // The long input list of the body is shown in part: whole entries, then a count.
    expect(human).toContain(`"${page(117)}",\n`);
    expect(human).toContain('… 7 more');
  });

  it('the Markdown plan carries the same values, and every request body whole in a collapsed block', () => {
    for (const expected of [
      '! scrapingInterval: "30 2 * * *" -> "15 1 * * *"',
      '! webhookOutput.url: "https://hooks.example/old" -> "https://hooks.example/new"',
      '! inputs: +24 −22 entries (27 in all)',
      `+   ${page(120)}`,
      `-   ${page(23)}`,
      '    … and 4 more added, 2 more removed',
      '! urls: ["https://books.example/a.html"] -> ["https://books.example/a.html","https://books.example/c.html"]',
      '! scraper_params: {"render":false} -> {"country_code":"de","render":true}',
      '→ renamed subtitle -> headline (in the new parser)',
      '+ books.title (selector h3 a): "Title of one book"',
      '+ apiParams.country_code: "us"',
      '<details><summary>Body of <code>PATCH /api/projects/7</code></summary>',
    ])
      expect(markdown).toContain(expected);
    // The JSON body holds every entry, the 24th added one too.
    expect(markdown).toContain(`      "${page(124)}"\n`);
    expect(markdown.split('<details>').length).toBe(markdown.split('</details>').length);
  });

  it('the plan JSON has before and after per changed project key', () => {
    const nightly = toPlanJson(plan).resource_changes.find((c) => c.address === 'project.nightly');
    expect(nightly?.value_changes).toEqual([
      {
        field: 'projectInput',
        before: { type: 'list', list: range(1, 25).map(page) },
        after: { type: 'list', list: [...range(1, 3), ...range(101, 124)].map(page) },
      },
      { field: 'scrapingInterval', before: '30 2 * * *', after: '15 1 * * *' },
      {
        field: 'webhookOutput',
        before: { url: 'https://hooks.example/old' },
        after: { url: 'https://hooks.example/new', webhookEncoding: 'multipart_form_data_encoding' },
      },
    ]);
  });

  it('the plan JSON has the replaced parser: urls, scraper_params and the field diff against it', () => {
    const books = toPlanJson(plan).resource_changes.find((c) => c.address === 'parser.books');
    expect(books?.replaced).toMatchObject({
      urls: ['https://books.example/a.html'],
      scraper_params: { render: false },
      unchanged: ['reviews'],
    });
    expect(books?.replaced?.field_changes.map((c) => [c.change, c.field, c.from])).toEqual(
      expect.arrayContaining([
        ['rename', 'headline', 'subtitle'],
        ['remove', 'isbn', undefined],
        ['remove', 'reviews.author', undefined],
        ['add', 'reviews.rating', undefined],
      ]),
    );
    // What consumers lose with the old parser is named, as for an update.
    expect(books?.breaking).toEqual([
      'parser id changes (p-books is deleted once the new one is FINISHED)',
      'renames subtitle to headline',
      'removes isbn',
      'removes reviews.author',
    ]);
  });

  it('a saved plan read back shows the same values old -> new, the replace included', () => {
    const back = parseSavedPlan(renderSavedPlan(plan), 'plan.json');
    const backHuman = renderPlan(back, plain);
    expect(backHuman).toContain(block('project.nightly'));
    expect(backHuman).toContain(block('parser.books'));
  });

  it("in the Markdown diff a rename reads as a rename (the terminal plan's `→`), apart from a change (`!`)", () => {
    expect(markdown).toContain(
      [
        '! title: selector h1 -> h1.title',
        '! price: description "Price" -> "Price including tax, as a number without currency sign"',
        '→ renamed subtitle -> headline (in the new parser)',
      ].join('\n'),
    );
  });

  it('human plan (snapshot)', () => {
    expect(human).toMatchSnapshot();
  });

  it('Markdown plan (snapshot)', () => {
    expect(markdown).toMatchSnapshot();
  });
});
