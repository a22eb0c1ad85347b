import { describe, expect, it } from 'vitest';
import type { ResourceChange } from '../../../src/plan/model.js';
import { leftLines, leftOutOfHeal } from '../../../src/workspace/heal-selection.js';

/**
 * A change of a plan as leftOutOfHeal reads it: its address (and so its kind), action, whether it regenerates or
 * destroys, and a project update's PATCH body.
 */
function change(
  address: string,
  action: string,
  regenerates: boolean,
  destructive = false,
  changed: Record<string, unknown> = { notificationConfig: {} },
): ResourceChange {
  const kind = address.startsWith('project.') ? 'Project' : 'Parser';
  return { address, kind, action, regenerates, destructive, changed } as unknown as ResourceChange;
}

/** One letter per reason a heal leaves a change out for. */
const labels = () => ({ destructive: 'D', 'starts-runs': 'S', adopts: 'A', 'regeneration-budget': 'R' });

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
    const labelled = labels();
    expect(leftLines(leftOutOfHeal([...plan, change('project.r', 'create', false)], 2), labelled)).toEqual([
      'D: parser.b (replace), project.q (archive)',
      'S: project.r (create)',
      'R: parser.d (update, ~30,000 credits)',
    ]);
    expect(leftLines([], labelled)).toEqual([]);
  });

  // Review: a project someone archived (or whose schedule they paused) to stop what it spends was made again (or
  // its schedule turned back on) by a heal of the default "free heals only" watch: runs paid per page, no one asked.
  it('leaves out what starts project runs, whatever the budget: a create, a PATCH turning the schedule back on', () => {
    const runs = [
      change('project.made-again', 'create', false),
      change('project.paused', 'update', false, false, { schedulingEnabled: true, notificationConfig: {} }),
      change('project.stopped', 'update', false, false, { schedulingEnabled: false }),
      change('project.edited', 'update', false, false, { apiParams: { render: true } }),
    ];
    const left = [
      { address: 'project.made-again', action: 'create', reason: 'starts-runs' },
      { address: 'project.paused', action: 'update', reason: 'starts-runs' },
    ];
    expect(leftOutOfHeal(runs, 0)).toEqual(left);
    expect(leftOutOfHeal(runs, 100)).toEqual(left);
  });

  // Review: a plan holding an adoption no state or manifest consents to failed the heal's whole apply (it has no
  // --allow-adopt), so no free heal beside it was made; a project archived and made again by hand is one.
  it('leaves out an adoption that needs consent, and only that one: state and adopt: true consent already', () => {
    const adopting = (address: string): ResourceChange =>
      ({
        ...change(address, 'adopt', false),
        reasons: ['adopted: the live project 9 has this name'],
      }) as unknown as ResourceChange;
    const changes = [
      adopting('project.taken'),
      adopting('project.allowed'),
      adopting('project.ours'),
      {
        ...change('project.edited', 'update', false),
        reasons: ['changed: notificationConfig'],
      } as ResourceChange,
    ];
    const consent = { managed: new Set(['project.ours']), adoptAllowed: new Set(['project.allowed']) };
    expect(leftOutOfHeal(changes, 0, consent)).toEqual([
      { address: 'project.taken', action: 'adopt', reason: 'adopts' },
    ]);
    expect(leftLines(leftOutOfHeal(changes, 0, consent), labels())).toEqual(['A: project.taken (adopt)']);
  });
});
