import { describe, expect, it } from 'vitest';
import type { LiveParserSummary } from '../../../src/api/live.js';
import type { DesiredField } from '../../../src/model/desired.js';
import type { ScraperParams } from '../../../src/model/vocabulary.js';
import { buildPlan } from '../../../src/plan/build-plan.js';
import { diffFields } from '../../../src/plan/diff-fields.js';
import type { ParserDefinition, ParserState } from '../../../src/state/model.js';
import { desiredField, desiredParser } from '../../helpers/desired.js';

/** Two spellings of one parser definition plan no call: a replace costs a new id and 30,000 credits, a modify 30,000. */
const URL_A = 'https://books.example/a.html';

const live: LiveParserSummary = {
  id: 'p1',
  name: 'books',
  status: 'FINISHED',
  error: null,
  generated_at: null,
  version: 2,
};

function planOf(
  recorded: ParserDefinition,
  wanted: { scraperParams?: ScraperParams; fields: DesiredField[] },
) {
  const state: ParserState = {
    kind: 'Parser',
    id: 'p1',
    name: 'books',
    version: 2,
    definition: recorded,
    descriptionsKnown: true,
  };
  return buildPlan({
    parsers: [
      desiredParser('books', wanted.fields, { urls: [URL_A], scraperParams: wanted.scraperParams ?? {} }),
    ],
    projects: [],
    state: { format_version: 1, serial: 1, lineage: 'l', resources: { 'parser.books': state } },
    live: { parsers: [live], details: {}, projects: [] },
  });
}

const title = [desiredField('title', 'Book title')];

describe('scraper_params spelled two ways', () => {
  it('follow_redirect: true, the service default (seed), is the same as leaving it out: no replace', () => {
    const added = planOf(
      { urls: [URL_A], scraperParams: {}, fields: title },
      {
        scraperParams: { follow_redirect: true },
        fields: title,
      },
    );
    expect(added.resource_changes).toEqual([]);
    const dropped = planOf(
      { urls: [URL_A], scraperParams: { follow_redirect: true, render: true }, fields: title },
      {
        scraperParams: { render: true },
        fields: title,
      },
    );
    expect(dropped.resource_changes).toEqual([]);
  });

  it('false for a switch the service turns on only when asked (render, premium, …) is the same as leaving it out', () => {
    const off: ScraperParams = {
      render: false,
      premium: false,
      ultra_premium: false,
      keep_headers: false,
      retry_404: false,
    };
    const added = planOf(
      { urls: [URL_A], scraperParams: {}, fields: title },
      { scraperParams: off, fields: title },
    );
    expect(added.resource_changes).toEqual([]);
    const dropped = planOf(
      { urls: [URL_A], scraperParams: { ...off, country_code: 'us' }, fields: title },
      { scraperParams: { country_code: 'us' }, fields: title },
    );
    expect(dropped.resource_changes).toEqual([]);
  });

  it('a country code in another case is the same country: no replace', () => {
    const plan = planOf(
      { urls: [URL_A], scraperParams: { country_code: 'us' }, fields: title },
      {
        scraperParams: { country_code: 'US' },
        fields: title,
      },
    );
    expect(plan.resource_changes).toEqual([]);
  });

  it('follow_redirect: false, another country or another parameter is still a replace', () => {
    for (const [before, after] of [
      [{}, { follow_redirect: false }],
      [{ country_code: 'us' }, { country_code: 'de' }],
      [{}, { render: true }],
      [{ render: false }, { render: true }],
      [{ premium: true }, {}],
      [{ ultra_premium: true }, { ultra_premium: false }],
    ] as [ScraperParams, ScraperParams][]) {
      const plan = planOf(
        { urls: [URL_A], scraperParams: before, fields: title },
        { scraperParams: after, fields: title },
      );
      expect(plan.resource_changes.map((c) => [c.action, c.reasons[0]])).toEqual([
        ['replace', 'scraper_params changed'],
      ]);
    }
  });
});

describe('descriptions spelled two ways', () => {
  it('another Unicode normalisation (NFD against NFC) is the same description: no modify', () => {
    const plan = planOf(
      { urls: [URL_A], scraperParams: {}, fields: [desiredField('title', 'Caf\u00e9 name')] },
      {
        fields: [desiredField('title', 'Cafe\u0301 name')],
      },
    );
    expect(plan.resource_changes).toEqual([]);
  });

  it('runs of spaces and line breaks (a block scalar re-wrapped) are the same description: no modify', () => {
    const plan = planOf(
      {
        urls: [URL_A],
        scraperParams: {},
        fields: [desiredField('title', 'Book title\nfrom  the main heading')],
      },
      { fields: [desiredField('title', 'Book title from the main heading')] },
    );
    expect(plan.resource_changes).toEqual([]);
  });

  it('another wording is still a modify', () => {
    const plan = planOf(
      { urls: [URL_A], scraperParams: {}, fields: title },
      {
        fields: [desiredField('title', 'Book title, as shown')],
      },
    );
    expect(plan.resource_changes.map((c) => [c.action, c.regenerates])).toEqual([['update', true]]);
  });

  it('a respelled description does not stop a rename from being inferred, free', () => {
    const diff = diffFields(
      [desiredField('reviews', 'Reviews', { type: 'array' }), desiredField('reviews.who', 'Caf\u00e9 guest')],
      [
        desiredField('reviews', 'Reviews', { type: 'array' }),
        desiredField('reviews.author', 'Cafe\u0301  guest'),
      ],
      [],
      { descriptionsKnown: true },
    );
    expect([diff.requests, diff.regenerates]).toEqual([
      [{ rename_fields: [{ name: 'reviews.who', new_name: 'reviews.author' }] }],
      false,
    ]);
  });
});

describe('a definition that FAILED twice, spelled another way', () => {
  it('is still the definition that failed: not retried by itself (each try pays a generation)', () => {
    const price = desiredField('price', 'Price including tax', { type: 'number' });
    const failedWith: ParserDefinition = {
      urls: [`${URL_A}#reviews`],
      scraperParams: { country_code: 'us' },
      fields: [price, desiredField('title', 'Book  title')],
    };
    const state: ParserState = {
      kind: 'Parser',
      id: 'p1',
      name: 'books',
      version: 2,
      definition: { urls: [URL_A], scraperParams: { country_code: 'us' }, fields: title },
      descriptionsKnown: true,
      failed: { version: 3, error: 'ExtractionError: no price', definition: failedWith, attempts: 2 },
    };
    const plan = buildPlan({
      parsers: [
        desiredParser('books', [...title, price], {
          urls: [URL_A],
          scraperParams: { country_code: 'US', follow_redirect: true },
        }),
      ],
      projects: [],
      state: { format_version: 1, serial: 1, lineage: 'l', resources: { 'parser.books': state } },
      live: {
        parsers: [{ ...live, version: 3, status: 'FAILED', error: 'ExtractionError: no price' }],
        details: {},
        projects: [],
      },
    });
    expect(plan.resource_changes).toEqual([]);
    expect(plan.warnings).toEqual([
      'parser.books: version 3 FAILED 2 times with the definition the manifests ask for (ExtractionError: no price); not retried again by itself: fix the manifest, or try once more with --reassert parser.books',
    ]);
  });
});

describe('example URLs written twice', () => {
  it('a page written twice is one example page: no replace when the manifest drops the copy', () => {
    const plan = planOf(
      { urls: [URL_A, `${URL_A}#again`], scraperParams: {}, fields: title },
      { fields: title },
    );
    expect(plan.resource_changes).toEqual([]);
  });

  it('adopting: an answer giving the page once for a manifest that writes it twice is no replace', () => {
    const plan = buildPlan({
      parsers: [desiredParser('books', title, { urls: [URL_A, `${URL_A}/`] })],
      projects: [],
      state: { format_version: 1, serial: 1, lineage: 'l', resources: {} },
      live: {
        parsers: [{ ...live, version: 0 }],
        details: {
          p1: {
            id: 'p1',
            name: 'books',
            version: 0,
            status: 'FINISHED',
            error: null,
            createdAt: null,
            generatedAt: null,
            exampleResult: [{ url: URL_A, result: { title: 'A' } }],
            fields: [{ name: 'title', type: 'text' }],
          },
        },
        projects: [],
      },
    });
    expect(plan.resource_changes.map((c) => [c.action, c.id])).toEqual([['adopt', 'p1']]);
  });

  it('the copy of a page written twice, dropped, is no change; another page is still a replace', () => {
    const plan = planOf({ urls: [URL_A, URL_A], scraperParams: {}, fields: title }, { fields: title });
    expect(plan.resource_changes).toEqual([]);
    const other = buildPlan({
      parsers: [desiredParser('books', title, { urls: [URL_A, 'https://books.example/b.html'] })],
      projects: [],
      state: {
        format_version: 1,
        serial: 1,
        lineage: 'l',
        resources: {
          'parser.books': {
            kind: 'Parser',
            id: 'p1',
            name: 'books',
            version: 2,
            definition: { urls: [URL_A, URL_A], scraperParams: {}, fields: title },
            descriptionsKnown: true,
          },
        },
      },
      live: { parsers: [live], details: {}, projects: [] },
    });
    expect(other.resource_changes.map((c) => [c.action, c.reasons[0]])).toEqual([
      ['replace', 'urls changed'],
    ]);
  });
});
