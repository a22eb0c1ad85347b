import { describe, expect, it } from 'vitest';
import type { LiveParserSummary } from '../../../src/api/live.js';
import { buildPlan, detailsNeeded } from '../../../src/plan/build-plan.js';
import { listUnmanaged } from '../../../src/plan/unmanaged.js';
import type { State } from '../../../src/state/model.js';
import { desiredField, desiredParser, desiredProject } from '../../helpers/desired.js';
import { liveDetails, liveProject } from '../../helpers/live.js';

/**
 * Parser ids are opaque strings (API-NOTES) and may be digits; project ids are numbers. A parser "522" and a project
 * 522 are two objects: state managing one of them says nothing of the other.
 */
const parser522: LiveParserSummary = {
  id: '522',
  name: 'books',
  status: 'FINISHED',
  error: null,
  generated_at: null,
  version: 0,
};

function stateOf(resources: State['resources']): State {
  return { format_version: 1, serial: 1, lineage: 'L', resources };
}

describe('a parser id of digits and a project id of the same number', () => {
  it('a managed project 522 does not hide the live parser "522" of a declared name: adopted, not created again', () => {
    const state = stateOf({
      'project.nightly': { kind: 'Project', id: 522, name: 'nightly', definition: {} },
    });
    const parsers = [desiredParser('books', [desiredField('title', 'Title')])];
    expect(detailsNeeded(parsers, state, [parser522])).toEqual(['522']);
    const plan = buildPlan({
      parsers,
      projects: [desiredProject('nightly')],
      state,
      live: {
        parsers: [parser522],
        details: { '522': liveDetails(0, ['title'], { id: '522' }) },
        projects: [liveProject(522, 'nightly')],
      },
    });
    expect(
      plan.resource_changes.filter((c) => c.kind === 'Parser').map((c) => [c.address, c.action, c.id]),
    ).toEqual([['parser.books', 'adopt', '522']]);
  });

  it('a managed parser "7" does not hide the live project 7 of a declared name: adopted, not created again', () => {
    const state = stateOf({
      'parser.other': {
        kind: 'Parser',
        id: '7',
        name: 'other',
        version: 0,
        definition: { urls: [], scraperParams: {}, fields: [] },
        descriptionsKnown: true,
      },
    });
    const live = { parsers: [], details: {}, projects: [liveProject(7, 'nightly')] };
    const plan = buildPlan({
      parsers: [],
      projects: [
        desiredProject('nightly', {
          projectInput: { type: 'list', list: ['https://books.example/1.html'] },
          scrapingInterval: 'daily',
          schedulingEnabled: true,
        }),
      ],
      state,
      live,
    });
    expect(
      plan.resource_changes.filter((c) => c.kind === 'Project').map((c) => [c.address, c.action, c.id]),
    ).toEqual([['project.nightly', 'adopt', 7]]);
    expect(
      listUnmanaged({ ...live, projects: [liveProject(7, 'crawl')] }, state, {
        parsers: [],
        projects: [],
      }).projects.map((p) => p.id),
    ).toEqual([7]);
  });
});
