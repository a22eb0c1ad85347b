import { describe, expect, it } from 'vitest';
import type { ChangeResult } from '../../../src/apply/apply-model.js';
import { renderApplyMarkdown } from '../../../src/output/render-apply.js';
import type { ApplyReport } from '../../../src/output/render-apply.js';
import { COMMENT_HEADER_RESERVE, MARKDOWN_LIMIT } from '../../../src/output/render-plan-markdown.js';
import type { ResultDiff } from '../../../src/output/render-result-diffs.js';
import type { State } from '../../../src/state/model.js';

const state: State = { format_version: 1, serial: 2, lineage: 'l', resources: {} };

/** `n` parsers regenerated, each with a description `size` characters long in each of 20 example pages. */
function reportOf(n: number, size: number, failedLast = false): ApplyReport {
  const results: ChangeResult[] = [];
  const resultDiffs: ResultDiff[] = [];
  for (let i = 0; i < n; i++) {
    const address = `parser.books-${String(i).padStart(3, '0')}`;
    const id = `p-${i}`;
    const failed = failedLast && i === n - 1;
    results.push({
      address,
      action: 'update',
      ok: !failed,
      calls: [],
      id,
      version: 2,
      ...(failed ? { error: { code: 'apply.generation-failed', message: 'version 2 FAILED' } } : {}),
    });
    if (failed) continue;
    resultDiffs.push({
      address,
      from: { id, version: 1 },
      to: { id, version: 2 },
      changes: Array.from({ length: 20 }, (_, k) => ({
        url: `https://books.example/${i}/${k}.html`,
        path: 'description',
        change: 'changed' as const,
        from: 'a'.repeat(size),
        to: 'b'.repeat(size),
      })),
      missing: i === 0 ? [] : ['price'],
    });
  }
  return { result: { results, state, interrupted: false }, checks: [], resultDiffs };
}

describe('the apply report fits a pull-request comment', () => {
  it('40 regenerations whose data diffs are far past the limit: every row and regression kept, the diffs cut and counted', () => {
    const report = reportOf(40, 200, true);
    const markdown = renderApplyMarkdown(report);
    expect(markdown.length + COMMENT_HEADER_RESERVE).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    expect(markdown).toContain('### scrapeform apply: finished with failures\n\n39 applied, 1 failed.\n');
    // Every object is in the table, the failure too.
    expect(markdown).toContain(
      '| `parser.books-039` | update | failed `p-39` version 2: `version 2 FAILED` |',
    );
    for (let i = 0; i < 39; i++) {
      const address = `parser.books-${String(i).padStart(3, '0')}`;
      expect(markdown).toContain(`| \`${address}\` | update | ok \`p-${i}\` version 2 |`);
      // Each regeneration's heading and likely regression stay, whether its diff fits or not.
      expect(markdown).toContain(`#### Data: \`${address}\`, version 1 -> 2`);
    }
    expect(markdown.split('Likely regression: `price`').length - 1).toBe(38);
    const diffs = markdown.split('<details><summary>example_result diff</summary>').length - 1;
    expect(diffs).toBeGreaterThan(0);
    expect(diffs).toBeLessThan(39);
    expect(markdown.split('<details>').length).toBe(markdown.split('</details>').length);
    expect(markdown).toMatch(
      new RegExp(
        `\\n_…${39 - diffs} example_result diffs cut to fit the comment limit; the apply log shows every one\\._\\n$`,
      ),
    );
  });

  it('a report that fits is not cut and says nothing of a cut', () => {
    const markdown = renderApplyMarkdown(reportOf(2, 200));
    expect(markdown.split('<details><summary>example_result diff</summary>').length - 1).toBe(2);
    expect(markdown).not.toContain('cut to fit');
  });
});

describe('a table longer than the comment', () => {
  it('3,000 updates, the last one failed: the failure row is kept first, the others counted', () => {
    const markdown = renderApplyMarkdown(reportOf(3_000, 0, true), 20_000);
    expect(markdown.length).toBeLessThanOrEqual(20_000);
    expect(markdown).toContain(
      '| object | action | result |\n| --- | --- | --- |\n| `parser.books-2999` | update | failed `p-2999` version 2: `version 2 FAILED` |\n| `parser.books-000` | update | ok `p-0` version 2 |\n',
    );
    const rows = markdown.split('\n').filter((l) => /^\| `parser\./.test(l)).length;
    expect(markdown).toContain(`| _…and ${3_000 - rows} more_ | | |\n`);
    expect(markdown).toMatch(
      new RegExp(
        `\\n_…1 example_result diff, 2998 data sections and ${3_000 - rows} rows cut to fit the comment limit; the apply log shows every one\\._\\n$`,
      ),
    );
  });
});
