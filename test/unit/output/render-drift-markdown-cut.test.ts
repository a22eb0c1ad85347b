import { describe, expect, it } from 'vitest';
import { renderDriftMarkdown } from '../../../src/output/render-drift.js';
import { COMMENT_HEADER_RESERVE, MARKDOWN_LIMIT } from '../../../src/output/render-plan-markdown.js';
import type { DriftReport } from '../../../src/plan/drift.js';

/** A parser whose latest version was made by hand and FAILED with `error` (what the service answered). */
function failed(i: number, error: string): DriftReport['drift'][number] {
  const id = `4f3c2b1a-${String(i).padStart(4, '0')}-4e5f-8a9b-0c1d2e3f4a5b`;
  return {
    address: `parser.catalogue-product-page-parser-number-${String(i).padStart(3, '0')}`,
    kind: 'Parser',
    name: `catalogue-product-page-parser-number-${String(i).padStart(3, '0')}`,
    id,
    drift: 'failed',
    message: `version 4 was made outside scrapeform and FAILED: ${error}`,
    state_version: 3,
    live_version: 4,
    changes: [],
    revert: { calls: 0, regenerations: 0, credits: 0, requests: [] },
    accept: { calls: 0, regenerations: 0, credits: 0, possible: true, placeholders: [] },
  };
}

function reportOf(drift: DriftReport['drift']): DriftReport {
  return {
    format_version: 1,
    status: 'drift',
    summary: {
      objects: drift.length,
      drifted: drift.length,
      revert: { calls: 0, regenerations: 0, credits: 0 },
      accept: { calls: 0, regenerations: 0, credits: 0 },
    },
    drift,
    warnings: [],
  };
}

const TOTALS =
  '**Revert all** (`scrapeform apply`): free, no call. **Accept all** (`scrapeform drift --accept`): free, no call.';

// The docs' scheduled workflow posts `drift --markdown` as an issue body with `gh issue create --body-file`: GitHub
// refuses a body over 65,536 characters, so an unbounded report failed the job every hour and opened no issue.
describe('drift --markdown fits an issue or a comment', () => {
  it('a service error of 100,000 characters: the object stays named, its text shortened, saying so', () => {
    const markdown = renderDriftMarkdown(reportOf([failed(0, 'x'.repeat(100_000))]));
    expect(markdown.length + COMMENT_HEADER_RESERVE).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    expect(markdown).toContain(
      '| `parser.catalogue-product-page-parser-number-000` | version 4 was made outside scrapeform and FAILED: xxx',
    );
    expect(markdown).toMatch(
      /x… _\([\d,]+ more characters cut to fit the comment limit\)_ \| free, no call \| free, no call \|\n/,
    );
    expect(markdown).toContain(`\n${TOTALS}\n`);
    expect(markdown).toMatch(
      /_…part of 1 list entry cut to fit the comment limit; run `scrapeform drift` for the full report\._\n$/,
    );
  });

  it('800 objects drifted: named compactly with their costs while they fit, the rest counted, the totals kept', () => {
    const drift = Array.from({ length: 800 }, (_, i) => failed(i, `parse error ${'y'.repeat(300)}`));
    const markdown = renderDriftMarkdown(reportOf(drift));
    expect(markdown.length + COMMENT_HEADER_RESERVE).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    const rows = markdown.split('\n').filter((l) => l.startsWith('| `parser.'));
    expect(rows.length).toBeGreaterThan(300);
    expect(rows[0]).toBe(
      '| `parser.catalogue-product-page-parser-number-000` | _cut to fit the comment limit_ | free, no call | free, no call |',
    );
    expect(markdown).toContain(`| _…and ${800 - rows.length} more_ | | | |\n\n${TOTALS}\n`);
  });
});
