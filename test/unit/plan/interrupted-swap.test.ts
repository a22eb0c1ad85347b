import { describe, expect, it } from 'vitest';
import type { LiveParserDetails, LiveParserSummary } from '../../../src/api/live.js';
import type { DesiredField } from '../../../src/model/desired.js';
import { buildPlan } from '../../../src/plan/build-plan.js';
import { diffFields } from '../../../src/plan/diff-fields.js';
import { plannedRequests } from '../../../src/plan/plan-json.js';
import type { ParserState, State } from '../../../src/state/model.js';
import { desiredField as f, desiredParser } from '../../helpers/desired.js';
import { liveDetails } from '../../helpers/live.js';

/** A swap of title and subtitle, as the manifest keeps writing it once applied. */
const swapped = desiredParser(
  'books',
  [f('subtitle', 'Main heading'), f('title', 'Second heading'), f('price', 'Price')],
  {
    urls: ['https://books.example/a.html'],
    renames: [
      { from: 'title', to: 'subtitle' },
      { from: 'subtitle', to: 'title' },
    ],
  },
);
const before = [f('title', 'Main heading'), f('subtitle', 'Second heading'), f('price', 'Price')];
const halfway = [
  f('title__scrapeform_tmp', 'Main heading'),
  f('subtitle__scrapeform_tmp', 'Second heading'),
  f('price', 'Price'),
];

function recorded(version: number, fields: DesiredField[]): ParserState {
  return {
    kind: 'Parser',
    id: 'p-1',
    name: 'books',
    version,
    definition: { urls: swapped.urls, scraperParams: {}, fields },
    descriptionsKnown: true,
  };
}

function stateOf(parser: ParserState): State {
  return { format_version: 1, serial: 2, lineage: 'L', resources: { 'parser.books': parser } };
}

const summary = (version: number): LiveParserSummary => ({
  id: 'p-1',
  name: 'books',
  status: 'FINISHED',
  error: null,
  generated_at: null,
  version,
});

function details(version: number, names: string[]): LiveParserDetails {
  return liveDetails(version, names, {
    exampleResult: [{ url: 'https://books.example/a.html', result: {} }],
  });
}

const finishingRenames = [
  {
    rename_fields: [
      { name: 'title__scrapeform_tmp', new_name: 'subtitle' },
      { name: 'subtitle__scrapeform_tmp', new_name: 'title' },
    ],
  },
];

describe('a swap interrupted between its two PATCHes is finished, free', () => {
  it('the diff takes our temporary names for the fields they hold, even when definitions do not tell', () => {
    // The same description twice: no inferred rename could tell them apart, the renames in the manifest can.
    const twins = [f('title__scrapeform_tmp', 'Heading'), f('subtitle__scrapeform_tmp', 'Heading')];
    const desired = [f('subtitle', 'Heading'), f('title', 'Heading')];
    const diff = diffFields(twins, desired, swapped.renames, { descriptionsKnown: true });
    expect(diff.requests).toEqual(finishingRenames);
    expect(diff.regenerates).toBe(false);
  });

  it('state recorded the first PATCH: the plan renames the temporary names on, no regeneration', () => {
    const plan = buildPlan({
      parsers: [swapped],
      projects: [],
      state: stateOf(recorded(4, halfway)),
      live: { parsers: [summary(4)], details: {}, projects: [] },
    });
    expect(plan.summary.regenerations).toBe(0);
    expect(plan.resource_changes.map((c) => plannedRequests(c).map((r) => r.body))).toEqual([
      finishingRenames,
    ]);
    expect(plan.drift).toEqual([]);
  });

  it('the answer of the first PATCH was lost: our temporary names are not drift, and the renames finish', () => {
    const plan = buildPlan({
      parsers: [swapped],
      projects: [],
      state: stateOf(recorded(3, before)),
      live: {
        parsers: [summary(4)],
        details: { 'p-1': details(4, ['title__scrapeform_tmp', 'subtitle__scrapeform_tmp', 'price']) },
        projects: [],
      },
    });
    expect(plan.drift).toEqual([]);
    expect(plan.warnings).toEqual([
      'parser.books: an interrupted apply left temporary field names (title__scrapeform_tmp, subtitle__scrapeform_tmp) at version 4; the renames are finished (no regeneration)',
    ]);
    expect(plan.summary.regenerations).toBe(0);
    expect(plan.resource_changes).toMatchObject([{ action: 'update', baseVersion: 4, regenerates: false }]);
    expect(plan.resource_changes.map((c) => plannedRequests(c).map((r) => r.body))).toEqual([
      finishingRenames,
    ]);
  });
});
