import { describe, expect, it } from 'vitest';
import type { DesiredParser } from '../../../src/model/desired.js';
import { resolveUnknowns } from '../../../src/plan/unknown-values.js';
import type { ParserDefinition } from '../../../src/state/model.js';

const base: ParserDefinition = { urls: ['https://books.example/a.html'], scraperParams: {}, fields: [] };

function desired(scraperParams: DesiredParser['scraperParams']): DesiredParser {
  return {
    kind: 'Parser',
    address: 'parser.books',
    name: 'books',
    urls: ['https://books.example/a.html'],
    scraperParams,
    fields: [],
    renames: [],
    preventDestroy: false,
    expect: [],
    source: { file: 'books.yaml', line: 1, column: 1 },
  };
}

describe('resolveUnknowns: scraper_params an import could not read', () => {
  it('lists them unconfirmed only when the manifest asks for something: render: false asks for nothing', () => {
    const unconfirmed = (params: DesiredParser['scraperParams']): string[] =>
      resolveUnknowns(base, { scraperParams: true }, desired(params), false).unconfirmed;
    expect(unconfirmed({})).toEqual([]);
    expect(unconfirmed({ render: false, premium: false })).toEqual([]);
    expect(unconfirmed({ render: true })).toEqual(['scraper_params']);
    expect(unconfirmed({ country_code: 'us' })).toEqual(['scraper_params']);
  });
});
