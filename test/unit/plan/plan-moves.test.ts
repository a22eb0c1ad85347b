import { describe, expect, it } from 'vitest';
import type { DesiredProject } from '../../../src/model/desired.js';
import { buildPlan } from '../../../src/plan/build-plan.js';
import { parseSavedPlan } from '../../../src/plan/plan-file.js';
import { renderSavedPlan } from '../../../src/output/render-saved-plan.js';
import { moveState, planMoves } from '../../../src/plan/plan-moves.js';
import { emptyState } from '../../../src/state/model.js';
import type { State } from '../../../src/state/model.js';
import { desiredProject } from '../../helpers/desired.js';

/** project.new, declared with the hint that state knows it as project.old. */
const movedFromOld = (): DesiredProject =>
  desiredProject('new', {
    moved: [{ from: 'project.old', to: 'project.new', place: { file: 'm.yaml', line: 5, column: 5 } }],
  });

function stateWith(names: string[]): State {
  const state = emptyState('lineage');
  names.forEach((name, i) => {
    state.resources[`project.${name}`] = {
      kind: 'Project',
      id: i + 1,
      name,
      definition: {
        name,
        projectType: 'urls',
        projectInput: { type: 'list', list: ['https://books.example/'] },
        schedulingEnabled: false,
      },
    };
  });
  return state;
}

const liveOf = (state: State) => ({
  parsers: [],
  details: {},
  projects: Object.values(state.resources).map((r) => ({
    id: r.id as number,
    name: r.name,
    projectType: 'urls',
    projectInput: { type: 'list' as const, list: ['https://books.example/'] },
    schedulingEnabled: false,
  })),
});

describe('planMoves', () => {
  it('moves the state entry of from to to, and leaves the state given unchanged', () => {
    const state = stateWith(['old']);
    const outcome = planMoves(state, [movedFromOld()]);
    expect(Object.keys(outcome.state.resources)).toEqual(['project.new']);
    expect(outcome.moves).toEqual([
      { from: 'project.old', to: 'project.new', kind: 'Project', id: 1, name: 'old' },
    ]);
    expect(Object.keys(state.resources)).toEqual(['project.old']);
    expect(moveState(state, outcome.moves).resources).toEqual(outcome.state.resources);
  });

  it('a hint already applied is silent; one whose from and to both lack state is a note', () => {
    const applied = planMoves(stateWith(['new']), [movedFromOld()]);
    expect([applied.moves, applied.warnings, applied.errors]).toEqual([[], [], []]);
    const nothing = planMoves(emptyState(''), [movedFromOld()]);
    expect(nothing.warnings).toEqual([
      'project.new: moved from project.old, but state has nothing at project.old; the hint is ignored and project.new is planned as declared',
    ]);
  });
});

describe('planMoves with a chain of hints (an object renamed twice, the first hint left in the file)', () => {
  const renamedTwice = (): DesiredProject =>
    desiredProject('c', {
      moved: [
        { from: 'project.a', to: 'project.b', place: { file: 'm.yaml', line: 5, column: 5 } },
        { from: 'project.b', to: 'project.c', place: { file: 'm.yaml', line: 6, column: 5 } },
      ],
    });

  it('moves the object from whichever address of the chain state holds to its end, in one step', () => {
    for (const held of ['a', 'b']) {
      const outcome = planMoves(stateWith([held]), [renamedTwice()]);
      expect([outcome.moves, outcome.warnings, outcome.errors]).toEqual([
        [{ from: `project.${held}`, to: 'project.c', kind: 'Project', id: 1, name: held }],
        [],
        [],
      ]);
      expect(Object.keys(outcome.state.resources)).toEqual(['project.c']);
    }
    const applied = planMoves(stateWith(['c']), [renamedTwice()]);
    expect([applied.moves, applied.warnings, applied.errors]).toEqual([[], [], []]);
  });

  it('state at two addresses of one chain is an error; a chain state holds nothing of is a note', () => {
    expect(planMoves(stateWith(['a', 'b']), [renamedTwice()]).errors).toEqual([
      'project.c: moved from project.a and from project.b, but state holds both project.a and project.b; the hints cannot say which to keep: remove them (both stay managed), or remove one from state',
    ]);
    expect(planMoves(stateWith(['b', 'c']), [renamedTwice()]).errors).toEqual([
      'project.c: moved from project.b, but state holds both project.b and project.c; the hints cannot say which to keep: remove them (both stay managed), or remove one from state',
    ]);
    expect(planMoves(emptyState(''), [renamedTwice()]).warnings).toEqual([
      'project.c: moved from project.a, project.b, but state has nothing at project.a or project.b; the hints are ignored and project.c is planned as declared',
    ]);
  });
});

describe('a plan with a move', () => {
  it('renames the project with one PATCH (never archive + create), and a saved plan keeps the move', () => {
    const state = stateWith(['old']);
    const plan = buildPlan({
      parsers: [],
      projects: [movedFromOld()],
      state,
      live: liveOf(state),
    });
    expect(plan.resource_changes.map((c) => [c.action, c.address, c.reasons[0]])).toEqual([
      ['update', 'project.new', 'moved from project.old'],
    ]);
    const update = plan.resource_changes[0];
    expect(update?.action === 'update' && update.kind === 'Project' ? update.changed : undefined).toEqual({
      name: 'new',
    });
    expect(plan.moved).toHaveLength(1);
    expect(parseSavedPlan(renderSavedPlan(plan), 'plan.json').moved).toEqual(plan.moved);
  });

  it('a partial plan that excludes the old address plans neither address, and says why: no create of the object', () => {
    const state = stateWith(['old']);
    const plan = buildPlan({
      parsers: [],
      projects: [movedFromOld()],
      state,
      live: liveOf(state),
      options: { targets: [], excludes: ['project.old'], reassert: [], acceptUnknown: [] },
    });
    expect(plan.resource_changes).toEqual([]);
    expect(plan).not.toHaveProperty('moved');
    expect(plan.warnings).toContain(
      'project.new: not planned: its moved: hint comes from an address --exclude names, and the move and the object are planned together; plan without that --exclude to move it',
    );
  });

  it('a plan with no move says nothing of moves (the public JSON is unchanged)', () => {
    const state = stateWith(['same']);
    const plan = buildPlan({ parsers: [], projects: [desiredProject('same')], state, live: liveOf(state) });
    expect(plan.status).toBe('no_changes');
    expect(plan).not.toHaveProperty('moved');
  });
});
