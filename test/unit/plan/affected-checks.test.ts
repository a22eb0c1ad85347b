import { describe, expect, it } from 'vitest';
import type { DesiredField, DesiredParser } from '../../../src/model/desired.js';
import { buildPlan } from '../../../src/plan/build-plan.js';
import type { State } from '../../../src/state/model.js';
import { desiredField, desiredParser } from '../../helpers/desired.js';

const URL = 'https://books.example/a.html';

function desired(fields: DesiredField[], renames: DesiredParser['renames'] = []): DesiredParser {
  return desiredParser('books', fields, {
    urls: [URL],
    renames,
    expect: [
      { url: URL, result: { price: 51.77, title: 'A Light', 'reviews.rating': 5, stock: 'In stock' } },
    ],
  });
}

const applied = [
  desiredField('title', 'Title'),
  desiredField('price', 'Price', { type: 'number' }),
  desiredField('reviews', 'Reviews', { type: 'array' }),
  desiredField('reviews.rating', 'Stars', { type: 'number' }),
  desiredField('stock', 'Stock text'),
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
            desiredField('title', 'Title', { type: 'number' }),
            desiredField('cost', 'Price', { type: 'number' }),
            desiredField('reviews', 'Reviews', { type: 'array' }),
            desiredField('stock', 'Stock text, as printed'),
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
      parsers: [desired([...applied, desiredField('isbn', 'ISBN')])],
      projects: [],
      state,
      live,
    });
    expect(plan.status).toBe('changes');
    expect(plan.warnings).toEqual([]);
  });
});
