import { describe, expect, it } from 'vitest';
import type { DesiredField, DesiredParser } from '../../../src/model/desired.js';
import { buildPlan } from '../../../src/plan/build-plan.js';
import type { State } from '../../../src/state/model.js';

const source = { file: 'm.yaml', line: 1, column: 1 };
const field = (name: string, description: string, extra: Partial<DesiredField> = {}): DesiredField => ({
  name,
  description,
  ...extra,
});
const URL = 'https://books.example/a.html';

function desired(fields: DesiredField[], renames: DesiredParser['renames'] = []): DesiredParser {
  return {
    kind: 'Parser',
    address: 'parser.books',
    name: 'books',
    urls: [URL],
    scraperParams: {},
    fields,
    renames,
    preventDestroy: false,
    expect: [
      { url: URL, result: { price: 51.77, title: 'A Light', 'reviews.rating': 5, stock: 'In stock' } },
    ],
    source,
  };
}

const applied = [
  field('title', 'Title'),
  field('price', 'Price', { type: 'number' }),
  field('reviews', 'Reviews', { type: 'array' }),
  field('reviews.rating', 'Stars', { type: 'number' }),
  field('stock', 'Stock text'),
];
const state: State = {
  format_version: 1,
  serial: 1,
  lineage: 'l',
  resources: {
    'parser.books': {
      kind: 'Parser',
      id: 'p-1',
      name: 'books',
      version: 1,
      definition: { urls: [URL], scraperParams: {}, fields: applied },
      descriptionsKnown: true,
    },
  },
};
const live = {
  parsers: [{ id: 'p-1', name: 'books', status: 'FINISHED', error: null, generated_at: null, version: 1 }],
  details: {},
  projects: [],
};

describe('plan names the expect checks a change could break', () => {
  it('renamed, removed and retyped fields that an expectation names; a description edit is not listed', () => {
    const plan = buildPlan({
      parsers: [
        desired(
          [
            field('title', 'Title', { type: 'number' }),
            field('cost', 'Price', { type: 'number' }),
            field('reviews', 'Reviews', { type: 'array' }),
            field('stock', 'Stock text, as printed'),
          ],
          [{ from: 'price', to: 'cost' }],
        ),
      ],
      projects: [],
      state,
      live,
    });
    expect(plan.warnings).toEqual([
      `parser.books: the expect check of ${URL} names title, and this plan retypes title (string -> number)`,
      `parser.books: the expect check of ${URL} names price, and this plan renames price to cost`,
      `parser.books: the expect check of ${URL} names reviews.rating, and this plan removes reviews.rating`,
    ]);
  });

  it('says nothing when no expectation names a changed field', () => {
    const plan = buildPlan({
      parsers: [desired([...applied, field('isbn', 'ISBN')])],
      projects: [],
      state,
      live,
    });
    expect(plan.status).toBe('changes');
    expect(plan.warnings).toEqual([]);
  });
});
