import { describe, expect, it } from 'vitest';
import type { ResourceChange } from '../../../src/plan/model.js';
import { leftLines, leftOutOfHeal } from '../../../src/workspace/heal-selection.js';

/** A change of a plan as leftOutOfHeal reads it: its address, action, and whether it regenerates or destroys. */
function change(address: string, action: string, regenerates: boolean, destructive = false): ResourceChange {
  return { address, action, regenerates, destructive } as ResourceChange;
}

describe('what a heal leaves out', () => {
  const plan = [
    change('parser.a', 'update', true),
    change('parser.b', 'replace', true, true),
    change('parser.c', 'create', true),
    change('parser.d', 'update', true),
    change('project.p', 'update', false),
    change('project.q', 'archive', false, true),
  ];

  it('leaves every destructive change, and the regenerations beyond the budget after the first in plan order', () => {
    expect(leftOutOfHeal(plan, 1)).toEqual([
      { address: 'parser.b', action: 'replace', reason: 'destructive' },
      { address: 'parser.c', action: 'create', reason: 'regeneration-budget', credits: 30_000 },
      { address: 'parser.d', action: 'update', reason: 'regeneration-budget', credits: 30_000 },
      { address: 'project.q', action: 'archive', reason: 'destructive' },
    ]);
    expect(leftOutOfHeal(plan, 0).map((c) => c.address)).toEqual([
      'parser.a',
      'parser.b',
      'parser.c',
      'parser.d',
      'project.q',
    ]);
    expect(leftOutOfHeal(plan, 5).map((c) => c.address)).toEqual(['parser.b', 'project.q']);
  });

  it('says it in one line per reason, with the credits of each regeneration', () => {
    expect(leftLines(leftOutOfHeal(plan, 2), { destructive: 'D', 'regeneration-budget': 'R' })).toEqual([
      'D: parser.b (replace), project.q (archive)',
      'R: parser.d (update, ~30,000 credits)',
    ]);
    expect(leftLines([], { destructive: 'D', 'regeneration-budget': 'R' })).toEqual([]);
  });
});
