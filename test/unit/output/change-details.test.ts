import { describe, expect, it } from 'vitest';
import { PLACEHOLDER_DESCRIPTION } from '../../../src/model/vocabulary.js';
import { detailChange } from '../../../src/output/change-details.js';
import type { ParserCreate, ParserReplace, ParserUpdate } from '../../../src/plan/model.js';
import type { ScraperParams } from '../../../src/model/vocabulary.js';

/** A description edit of an imported field: the old value was never returned by the service. */
function describedAfterImport(before: string): ParserUpdate {
  return {
    address: 'parser.legacy',
    kind: 'Parser',
    name: 'legacy',
    id: 'p1',
    action: 'update',
    reasons: [],
    regenerates: true,
    destructive: false,
    breaking: [],
    baseVersion: 1,
    waves: [],
    definition: { urls: ['https://books.example/a.html'], scraperParams: {}, fields: [] },
    descriptionsKnown: false,
    field_changes: [
      {
        change: 'modify',
        field: 'title',
        before: { description: before },
        after: { description: 'Book title' },
        breaking: false,
      },
    ],
  };
}

const URL = 'https://books.example/a.html';

/** A parser create with no fields, whose manifest sets these scraping parameters. */
function created(scraperParams: ScraperParams): ParserCreate {
  return {
    address: 'parser.books',
    kind: 'Parser',
    name: 'books',
    id: null,
    action: 'create',
    reasons: [],
    regenerates: true,
    destructive: true,
    breaking: [],
    field_changes: [],
    definition: { urls: [URL], scraperParams, fields: [] },
  };
}

/** A replace of a parser made with `before` by one whose manifest now sets `after`. */
function replaced(before: ScraperParams, after: ScraperParams): ParserReplace {
  return {
    ...created(after),
    action: 'replace',
    finishing: false,
    id: 'p1',
    destructive: true,
    replaced: { urls: [URL], scraperParams: before, field_changes: [], unchanged: [] },
  };
}

describe('detailChange', () => {
  it('shows the scraper_params a parser create sets', () => {
    expect(detailChange(created({ render: true, country_code: 'de' }))).toEqual([
      { sign: '+', text: `urls: ["${URL}"]`, depth: 0 },
      { sign: '+', text: 'scraper_params: {"render":true,"country_code":"de"}', depth: 0 },
    ]);
  });

  it('shows no scraper_params line for a parser create that sets none, as Terraform shows only what is set', () => {
    expect(detailChange(created({}))).toEqual([{ sign: '+', text: `urls: ["${URL}"]`, depth: 0 }]);
  });

  it('still shows a replace that takes every scraper_param away', () => {
    expect(detailChange(replaced({ render: true }, {}))).toEqual([
      { sign: ' ', text: `urls: ["${URL}"] (unchanged)`, depth: 0 },
      { sign: '~', text: 'scraper_params: {"render":true} -> {}', depth: 0 },
    ]);
  });

  it("shows import's placeholder as a description never seen, not as an old value to approve", () => {
    expect(detailChange(describedAfterImport(PLACEHOLDER_DESCRIPTION))).toEqual([
      { sign: '~', text: 'title: description (never seen) -> "Book title"', depth: 0 },
    ]);
  });

  it('shows a known description old -> new', () => {
    expect(detailChange(describedAfterImport('Title')).map((l) => l.text)).toEqual([
      'title: description "Title" -> "Book title"',
    ]);
  });
});
