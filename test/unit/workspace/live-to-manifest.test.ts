import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { expectedResults, importParser } from '../../../src/workspace/live-to-manifest.js';
import type { LiveParserDetails } from '../../../src/api/live.js';

const PAGE = 'https://shop.example/p/1';

describe('expect checks written by import', () => {
  it('up to three present text fields per page, as presence patterns; volatile and numeric values left out', () => {
    expect(
      expectedResults([
        {
          url: PAGE,
          result: {
            price: '£51.77',
            name: 'Blue kettle',
            updated_at: 'yesterday',
            released: '2026-11-01',
            stars: 4,
            in_catalogue: true,
            blank: '  ',
            missing: null,
            tags: ['a'],
            brand: 'Acme',
            sku: 'K-1',
          },
        },
      ]),
    ).toEqual([{ url: PAGE, result: { name: '~\\S', in_catalogue: true, brand: '~\\S' } }]);
  });

  it('a page with nothing stable to check gets no check', () => {
    expect(expectedResults([{ url: PAGE, result: { price: '$3', count: 2 } }])).toEqual([]);
  });
});

describe('importParser', () => {
  const details: LiveParserDetails = {
    id: 'p1',
    name: 'kettles',
    version: 2,
    status: 'FINISHED',
    error: null,
    createdAt: null,
    generatedAt: null,
    exampleResult: [{ url: PAGE, result: { name: 'Blue kettle', reviews: [{ author: 'Ann' }] } }],
    fields: [{ name: 'name' }, { name: 'reviews', type: 'array' }, { name: 'reviews.author' }],
  };

  it('marks every value the service does not return as unknown, and writes the checks into the manifest', () => {
    const imported = importParser('out', details);
    expect(imported.resource).toMatchObject({
      version: 2,
      descriptionsKnown: false,
      unknown: {
        scraperParams: true,
        descriptions: ['name', 'reviews', 'reviews.author'],
        selectors: ['name', 'reviews', 'reviews.author'],
        types: ['name', 'reviews.author'],
      },
    });
    expect((parse(imported.text) as { expect: unknown }).expect).toEqual([
      { url: PAGE, result: { name: '~\\S' } },
    ]);
    expect(imported.text).toContain(
      '# `scrapeform plan --accept-unknown parser.kettles` records them with no call',
    );
  });
});
