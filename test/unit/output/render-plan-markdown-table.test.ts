import { describe, expect, it } from 'vitest';
import { renderPlanMarkdown } from '../../../src/output/render-plan-markdown.js';
import { buildPlan } from '../../../src/plan/build-plan.js';
import type { Plan } from '../../../src/plan/model.js';
import { desiredField, desiredParser, desiredProject } from '../../helpers/desired.js';

/** `n` parsers created, each with an expect block of one page: the line naming the checks grows with `n`. */
function planOf(n: number): Plan {
  const names = Array.from({ length: n }, (_, i) => `catalogue-product-page-${String(i).padStart(4, '0')}`);
  const plan = buildPlan({
    parsers: names.map((name) => desiredParser(name, [desiredField('title', 'Title')])),
    projects: [],
    state: { format_version: 1, serial: 1, lineage: 'l', resources: {} },
    live: { parsers: [], details: {}, projects: [] },
  });
  return {
    ...plan,
    expect_checks: names.map((name) => ({
      address: `parser.${name}`,
      urls: [`https://books.example/${name}`],
    })),
  };
}

describe('the summary table is never what a cut leaves out', () => {
  it('an expect-checks line longer than the comment is shortened, saying so; the counts table stays', () => {
    const plan = planOf(300);
    const markdown = renderPlanMarkdown(plan, 8_000);
    expect(markdown.length).toBeLessThanOrEqual(8_000);
    expect(markdown).toContain(
      '| adopt | create | update | replace | delete | archive | regenerations | est. credits |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n| 0 | 300 | 0 | 0 | 0 | 0 | 300 | 9,000,000 |\n',
    );
    expect(markdown).toMatch(
      /^### scrapeform plan\n\n\*\*Plan: 300 to create \(300 regenerations, ~9,000,000 credits\)\.\*\*\n\nExpect checks: after its calls apply parses 300 pages with 300 parsers it changed, .*… _\([\d,]+ more characters cut to fit the comment limit\)_\n\n\| adopt \|/,
    );
    expect(markdown).toContain('and part of 1 list entry cut to fit the comment limit');
  });
});

describe('the project-runs and expect-checks lines', () => {
  it('are paragraphs of their own between the summary and the table, as before', () => {
    const plan = buildPlan({
      parsers: [desiredParser('books', [desiredField('title', 'Title')])],
      projects: [desiredProject('crawl', { projectInput: { type: 'list', list: ['https://b.example/1'] } })],
      state: { format_version: 1, serial: 1, lineage: 'l', resources: {} },
      live: { parsers: [], details: {}, projects: [] },
    });
    const markdown = renderPlanMarkdown({
      ...plan,
      expect_checks: [{ address: 'parser.books', urls: ['https://b.example/1'] }],
    });
    expect(markdown).toMatch(
      /\.\*\*\n\nProject runs: the project created, [^\n]+\n\nExpect checks: after its calls apply parses 1 page with the parser it changed, [^\n]+: parser.books \(1\)\.\n\n\| adopt \|/,
    );
    expect(markdown).not.toContain('cut to fit');
  });
});
