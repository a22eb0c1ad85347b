import { expect, it } from 'vitest';
import { refreshState } from '../../../src/plan/refresh-state.js';
import type { State } from '../../../src/state/model.js';

const definition = {
  urls: ['https://b.example/'],
  scraperParams: {},
  fields: [{ name: 'title', description: 'Title' }],
};

it('records a pending version once the list shows it FINISHED, and nothing else', () => {
  const state: State = {
    format_version: 1,
    serial: 3,
    lineage: 'l',
    resources: {
      'parser.a': {
        kind: 'Parser',
        id: 'a',
        name: 'a',
        version: null,
        definition: null,
        descriptionsKnown: true,
        pending: { version: 0, definition },
      },
      'parser.b': {
        kind: 'Parser',
        id: 'b',
        name: 'b',
        version: 1,
        definition,
        descriptionsKnown: true,
        pending: { version: 2, definition },
      },
    },
  };
  const live = {
    parsers: [
      { id: 'a', name: 'a', status: 'FINISHED', error: null, generated_at: null, version: 0 },
      { id: 'b', name: 'b', status: 'GENERATING', error: null, generated_at: null, version: 2 },
    ],
    details: {},
    projects: [],
  };
  const refreshed = refreshState(state, live);
  expect(refreshed?.resources['parser.a']).toEqual({
    kind: 'Parser',
    id: 'a',
    name: 'a',
    version: 0,
    definition,
    descriptionsKnown: true,
  });
  expect(refreshed?.resources['parser.b']).toBe(state.resources['parser.b']);
  expect(
    refreshState(refreshed as State, {
      ...live,
      parsers: [live.parsers[1] as (typeof live.parsers)[number]],
    }),
  ).toBeUndefined();
});
