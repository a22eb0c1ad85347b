import { describe, expect, it } from 'vitest';
import { createColors } from '../../../src/output/colors.js';
import { renderDiagnostic } from '../../../src/output/render-diagnostics.js';
import { diffResults } from '../../../src/output/render-result-changes.js';

describe('renderDiagnostic', () => {
  it('shows a code frame with a caret under the column when the file text is given (a terminal)', () => {
    const text = 'kind: Parser\nname: books\nscraperParams: { render: true }\nurls: [https://b.example/]\n';
    const rendered = renderDiagnostic(
      {
        severity: 'error',
        code: 'manifest.unknown-key',
        file: 'b.yaml',
        line: 3,
        column: 1,
        path: 'scraperParams',
        message: 'unknown key "scraperParams"',
        hint: 'did you mean "scraper_params"?',
      },
      { colors: createColors(false), sources: new Map([['b.yaml', text]]) },
    );
    expect(rendered).toBe(
      [
        'b.yaml:3:1 scraperParams: unknown key "scraperParams"',
        '    2 | name: books',
        '  > 3 | scraperParams: { render: true }',
        '      | ^',
        '    4 | urls: [https://b.example/]',
        '  hint: did you mean "scraper_params"?',
      ].join('\n'),
    );
  });
});

describe('diffResults', () => {
  it('lists each leaf added, removed or changed, per example URL', () => {
    const before = [{ url: 'u', result: { title: 'A', price: 1, reviews: [{ author: 'x' }] } }];
    const after = [
      { url: 'u', result: { title: 'A', price: 2, reviews: [{ author: 'x' }, { author: 'y' }] } },
    ];
    expect(diffResults(before, after)).toEqual([
      { url: 'u', path: 'price', change: 'changed', from: 1, to: 2 },
      { url: 'u', path: 'reviews[1].author', change: 'added', to: 'y' },
    ]);
  });
});
