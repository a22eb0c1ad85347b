import { describe, expect, it } from 'vitest';
import { stateJson } from '../../../src/state/state-json.js';
import type { ProjectState, State } from '../../../src/state/model.js';

const project = (id: number, name: string): ProjectState =>
  ({
    kind: 'Project',
    id,
    name,
    definition: { name, projectType: 'urls', projectInput: { type: 'list', list: ['https://a.example/'] } },
  }) as ProjectState;

function state(): State {
  return {
    format_version: 1,
    serial: 4,
    lineage: 'a-lineage',
    resources: { 'project.b': project(2, 'b'), 'project.a': project(1, 'a'), '10': project(3, 'numeric') },
    intents: {
      'project.c': {
        kind: 'Project',
        name: 'c',
        definition: project(4, 'c').definition,
        sent: '2026-11-27T00:00:00Z',
      },
    },
  } as State;
}

describe('stateJson', () => {
  it('is JSON.stringify byte for byte, in its key order, leaving out what it leaves out', () => {
    const s = state();
    (s.resources as Record<string, unknown>)['project.gone'] = undefined;
    expect(stateJson(s)).toBe(JSON.stringify(s));
    const { intents: _, ...withoutIntents } = s;
    expect(stateJson(withoutIntents as State)).toBe(JSON.stringify(withoutIntents));
  });

  it('follows every commit that replaces, moves, adds or removes an entry', () => {
    const s = state();
    expect(stateJson(s)).toBe(JSON.stringify(s));
    const moved = s.resources['project.a'];
    delete s.resources['project.a'];
    s.resources['project.z'] = moved!;
    s.resources['project.b'] = { ...project(2, 'b'), unseenSince: '2026-11-27T00:00:01Z' };
    s.resources['project.d'] = project(5, 'd');
    delete s.intents!['project.c'];
    s.serial = 5;
    expect(stateJson(s)).toBe(JSON.stringify(s));
  });

  it('refuses, under the tests, an entry changed in place since its text was kept', () => {
    const s = state();
    stateJson(s);
    (s.resources['project.a'] as ProjectState).name = 'renamed in place';
    expect(() => stateJson(s)).toThrow(
      'the state text kept from an earlier write is stale: an entry of state was changed in place (replace it)',
    );
  });
});
