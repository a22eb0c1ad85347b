import { describe, expect, it } from 'vitest';
import { formatCount, formatNames } from '../../src/format-count.js';
import { renderApplyHuman } from '../../src/output/render-apply.js';
import { createColors } from '../../src/output/colors.js';

describe('formatCount', () => {
  it("groups thousands as toLocaleString('en-US') does", () => {
    for (const n of [0, 7, 999, 1000, 30_000, 123_456, 6_000_000, 1_234_567_890, -45_000]) {
      expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
    }
  });
});

describe('formatNames', () => {
  it('joins up to 20 names, then says how many more', () => {
    const names = Array.from({ length: 23 }, (_, i) => `parser.p${i}`);
    expect(formatNames(names.slice(0, 20))).toBe(names.slice(0, 20).join(', '));
    expect(formatNames(names)).toBe(`${names.slice(0, 20).join(', ')} and 3 more`);
    expect(formatNames(names, 2)).toBe('parser.p0, parser.p1 and 21 more');
  });

  it("caps the summary's line of objects a stopped apply did not record, as its error does", () => {
    const unrecorded = Array.from({ length: 1000 }, (_, i) => `project.p${i}`);
    const text = renderApplyHuman(
      {
        result: { results: [], interrupted: false, calls: [] } as never,
        checks: [],
        resultDiffs: [],
        error: { code: 'state.io', message: 'cannot write the state file', unrecorded },
      },
      createColors(false),
    );
    expect(text).toContain(
      `State does not hold all it did for ${unrecorded.slice(0, 20).join(', ')} and 980 more: the next apply reads them again.`,
    );
  });
});
