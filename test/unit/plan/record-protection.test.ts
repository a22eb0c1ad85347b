import { describe, expect, it } from 'vitest';
import type { DesiredParser } from '../../../src/model/desired.js';
import { buildPlan } from '../../../src/plan/build-plan.js';
import { recordProtection } from '../../../src/plan/record-protection.js';
import { emptyState } from '../../../src/state/model.js';
import type { State } from '../../../src/state/model.js';
import { desiredParser, desiredProject } from '../../helpers/desired.js';

const definition = { urls: ['https://books.example/a.html'], scraperParams: {}, fields: [] };

const parser = (name: string, preventDestroy: boolean): DesiredParser =>
  desiredParser(name, [], { urls: definition.urls, preventDestroy });

function stateWith(protectedAddresses: string[]): State {
  const state = emptyState('lineage');
  state.resources['parser.books'] = {
    kind: 'Parser',
    id: 'p1',
    name: 'books',
    version: 0,
    definition,
    descriptionsKnown: true,
    ...(protectedAddresses.includes('parser.books') ? { preventDestroy: true as const } : {}),
  };
  state.resources['project.nightly'] = {
    kind: 'Project',
    id: 7,
    name: 'nightly',
    definition: { name: 'nightly' },
    ...(protectedAddresses.includes('project.nightly') ? { preventDestroy: true as const } : {}),
  };
  return state;
}

const live = {
  parsers: [{ id: 'p1', name: 'books', status: 'FINISHED', error: null, generated_at: null, version: 0 }],
  details: {},
  projects: [{ id: 7, name: 'nightly', projectType: 'urls', projectInput: { type: 'list', list: [] } }],
};

describe('recordProtection', () => {
  it('records prevent_destroy of declared objects state holds, and lifts it when the manifest says false', () => {
    const recorded = recordProtection(stateWith([]), [
      parser('books', true),
      desiredProject('nightly', { preventDestroy: true }),
    ]);
    expect(recorded?.resources['parser.books']?.preventDestroy).toBe(true);
    expect(recorded?.resources['project.nightly']?.preventDestroy).toBe(true);
    const lifted = recordProtection(recorded ?? stateWith([]), [parser('books', false)]);
    expect(lifted?.resources['parser.books']).not.toHaveProperty('preventDestroy');
    // An object no manifest declares keeps what was recorded.
    expect(lifted?.resources['project.nightly']?.preventDestroy).toBe(true);
  });

  it('changes nothing (undefined) when state already agrees, and never adds objects state does not hold', () => {
    expect(recordProtection(stateWith(['parser.books']), [parser('books', true)])).toBeUndefined();
    expect(recordProtection(stateWith([]), [parser('other', true)])).toBeUndefined();
  });
});

describe('a protected object whose manifest is gone', () => {
  it('is neither deleted nor archived: the plan fails naming the address and how to lift the protection', () => {
    const plan = () =>
      buildPlan({ parsers: [], projects: [], state: stateWith(['parser.books', 'project.nightly']), live });
    expect(plan).toThrow(
      'the plan cannot be made:\n- parser.books: no manifest declares it any more, but it was applied with lifecycle.prevent_destroy, so it is not deleted; to remove it, declare it again with lifecycle.prevent_destroy: false, apply, then delete its manifest\n- project.nightly: no manifest declares it any more, but it was applied with lifecycle.prevent_destroy, so it is not archived; to remove it, declare it again with lifecycle.prevent_destroy: false, apply, then delete its manifest',
    );
  });

  it('is deleted as before when state records no protection', () => {
    const plan = buildPlan({ parsers: [], projects: [], state: stateWith([]), live });
    expect(plan.resource_changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      'delete parser.books',
      'archive project.nightly',
    ]);
  });

  it('a declared false wins over a recorded true: the replace is planned', () => {
    const moved = { ...parser('books', false), urls: ['https://books.example/b.html'] };
    const plan = buildPlan({ parsers: [moved], projects: [], state: stateWith(['parser.books']), live });
    expect(plan.resource_changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      'replace parser.books',
      'archive project.nightly',
    ]);
  });
});
