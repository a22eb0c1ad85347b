import { describe, expect, it } from 'vitest';
import { indexLive } from '../../../src/plan/plan-context.js';
import { vanishedKinds } from '../../../src/plan/vanished.js';
import type { ProjectState } from '../../../src/state/model.js';
import { stateOf } from '../../helpers/state.js';

const project = (id: number, archiving?: string): ProjectState => ({
  kind: 'Project',
  id,
  name: `p${id}`,
  definition: {},
  ...(archiving !== undefined ? { archiving } : {}),
});
const noneLive = indexLive({ parsers: [], projects: [] });

describe('projects whose archive the service accepted (archiving), gone from every list', () => {
  it('alone, they are no sign of another account', () => {
    const state = stateOf({
      'project.a': project(1, '2026-11-29T10:00:00Z'),
      'project.b': project(2, '2026-11-29T10:00:00Z'),
    });
    expect(vanishedKinds(state, noneLive).size).toBe(0);
  });

  // Review: left out of the count, one normal project and one archiving, both gone (another service's URL, the same
  // key), no longer read as another account, and the normal one was planned as a plain create there.
  it('beside a project not meant to go, they still count: both gone reads as another account', () => {
    const state = stateOf({ 'project.a': project(1), 'project.b': project(2, '2026-11-29T10:00:00Z') });
    expect(vanishedKinds(state, noneLive).get('Project')).toMatchObject({ kind: 'Project', count: 2 });
  });
});
