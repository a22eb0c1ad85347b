import { describe, expect, it } from 'vitest';
import { PLACEHOLDER_DESCRIPTION } from '../../../src/model/vocabulary.js';
import { detailChange } from '../../../src/output/change-details.js';
import type { ParserUpdate } from '../../../src/plan/model.js';

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

describe('detailChange', () => {
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
