import { describe, expect, it } from 'vitest';
import { renderUnmanaged } from '../../../src/output/render-unmanaged.js';
import { listUnmanaged } from '../../../src/plan/unmanaged.js';
import type { State } from '../../../src/state/model.js';
import { desiredProject } from '../../helpers/desired.js';
import { liveProject } from '../../helpers/live.js';

const state: State = { format_version: 1, serial: 1, lineage: 'L', resources: {} };
const none = { parsers: [], projects: [] };

describe('plan --show-unmanaged', () => {
  it('prints live names printable: one clearing the screen and forging a line stays on its own line', () => {
    const live = {
      parsers: [
        {
          id: 'p-1',
          name: 'x\u001b[2J\u001b[H\r\nparser.fake  ok \u202e"q"',
          status: 'FINISHED',
          error: null,
          generated_at: null,
          version: 0,
        },
      ],
      details: {},
      projects: [liveProject(7, 'nightly\u0085\u2066')],
    };
    expect(renderUnmanaged(listUnmanaged(live, state, none)).split('\n')).toEqual([
      'Unmanaged (never touched):',
      '  parser "x\\u001b[2J\\u001b[H\\r\\nparser.fake  ok \\u202e\\"q\\"" (p-1, version 0, FINISHED)',
      '  project "nightly\\u0085\\u2066" (7)',
    ]);
  });

  it('says so when there are none', () => {
    expect(renderUnmanaged(listUnmanaged({ parsers: [], details: {}, projects: [] }, state, none))).toBe(
      'No unmanaged objects.',
    );
  });

  it('lists a live project of the name a moved object takes: the plan moves state there and adopts nothing', () => {
    // project.old renamed to project.new with a hint: the plan PATCHes project 1's name, and project 2, made by hand
    // with the new name, stays unmanaged beside it; hiding it as "to adopt" would hide the duplicate name.
    const moved: State = {
      ...state,
      resources: {
        'project.old': { kind: 'Project', id: 1, name: 'old', definition: { name: 'old' } },
      },
    };
    const renamed = desiredProject('new', {
      moved: [{ from: 'project.old', to: 'project.new', place: { file: 'm.yaml', line: 5, column: 5 } }],
    });
    const live = { parsers: [], details: {}, projects: [liveProject(1, 'old'), liveProject(2, 'new')] };
    expect(
      listUnmanaged(live, moved, { parsers: [], projects: [renamed] }).projects.map((p) => p.id),
    ).toEqual([2]);
    expect(renderUnmanaged(listUnmanaged(live, moved, { parsers: [], projects: [renamed] }))).toBe(
      'Unmanaged (never touched):\n  project "new" (2)',
    );
  });
});
