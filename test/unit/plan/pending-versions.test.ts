import { describe, expect, it } from 'vitest';
import type { LiveParserDetails, LiveParserSummary } from '../../../src/api/live.js';
import { buildPlan, detailsNeeded } from '../../../src/plan/build-plan.js';
import { previousVersionsNeeded } from '../../../src/plan/drift.js';
import type { LiveSnapshot, Plan } from '../../../src/plan/model.js';
import { plannedRequests } from '../../../src/plan/plan-json.js';
import type { ParserDefinition, ParserState, State } from '../../../src/state/model.js';
import { desiredField, desiredParser } from '../../helpers/desired.js';

const T0 = '2026-11-01T00:00:00.000Z';
const T1 = '2026-11-01T00:05:00.000Z';

const title = desiredField('title', 'Book title from the main heading');
const price = desiredField('price', 'Price including tax', { type: 'number' });
const availability = desiredField('availability', 'Stock availability text');
const books = desiredParser('books', [title, price]);
const withAvailability = desiredParser('books', [title, price, availability]);
const sent: ParserDefinition = { urls: books.urls, scraperParams: {}, fields: books.fields };
const sentWithAvailability: ParserDefinition = { ...sent, fields: withAvailability.fields };

function stateWith(resource: ParserState): State {
  return { format_version: 1, serial: 3, lineage: 'L', resources: { 'parser.books': resource } };
}

function listed(version: number, status = 'FINISHED'): LiveParserSummary {
  return { id: 'p-1', name: 'books', status, error: null, generated_at: T0, version };
}

function details(
  version: number,
  fields: string[],
  status = 'FINISHED',
  times: { createdAt?: string; generatedAt?: string } = {},
): LiveParserDetails {
  return {
    id: 'p-1',
    name: 'books',
    version,
    status,
    error: null,
    createdAt: times.createdAt ?? T0,
    generatedAt: times.generatedAt ?? T0,
    exampleResult: null,
    fields: fields.map((name) => ({ name, type: 'text' })),
  };
}

function callsOf(plan: Plan): { method: string; path: string; body?: unknown }[] {
  return plan.resource_changes
    .flatMap((c) => plannedRequests(c))
    .map((r) => ({ method: r.method, path: r.path, body: r.body }));
}

describe('a version past a pending one is diffed against what scrapeform sent with the pending one', () => {
  // apply --no-wait created the parser (version 0 pending); once it finished, someone added a field by hand.
  const created: ParserState = {
    kind: 'Parser',
    id: 'p-1',
    name: 'books',
    version: null,
    definition: null,
    descriptionsKnown: true,
    pending: { version: 0, definition: sent },
  };
  const v0 = details(0, ['title', 'price']);
  const v1 = details(1, ['title', 'price', 'author'], 'FINISHED', { createdAt: T1, generatedAt: T1 });

  it('after a create: a field added by hand is removed (free), never a replace for urls that never changed', () => {
    const state = stateWith(created);
    expect(detailsNeeded([books], state, [listed(1)])).toEqual(['p-1']);
    expect(previousVersionsNeeded(state, [listed(1)], ['p-1'])).toEqual([{ id: 'p-1', version: 0 }]);
    const live: LiveSnapshot = {
      parsers: [listed(1)],
      details: { 'p-1': v1 },
      projects: [],
      previous: { 'p-1': v0 },
    };
    const plan = buildPlan({ parsers: [books], projects: [], state, live });
    expect(plan.resource_changes.map((c) => [c.action, c.regenerates, c.destructive ?? false])).toEqual([
      ['update', false, false],
    ]);
    expect(callsOf(plan)).toEqual([
      { method: 'PATCH', path: '/parsers/p-1/1', body: { remove_fields: ['author'] } },
    ]);
    expect(plan.summary.estimated_credits).toBe(0);
    expect(plan.drift.map((d) => d.message)).toEqual([
      'version moved from 0 to 1 outside scrapeform; fields added: author',
    ]);
  });

  it('after an update: a rename by hand one step past the pending version is renamed back (free)', () => {
    // apply --no-wait added availability (version 1 pending); once it finished, title was renamed to name by hand,
    // a step the service applies at once (version 2 keeps version 1's generation time).
    const updated: ParserState = {
      kind: 'Parser',
      id: 'p-1',
      name: 'books',
      version: 0,
      definition: sent,
      descriptionsKnown: true,
      pending: { version: 1, definition: sentWithAvailability },
    };
    const state = stateWith(updated);
    const v1Finished = details(1, ['title', 'price', 'availability'], 'FINISHED', { generatedAt: T1 });
    const v2 = details(2, ['name', 'price', 'availability'], 'FINISHED', { createdAt: T1, generatedAt: T1 });
    // The pending version is the one read to tell a rename, not the recorded one two steps back.
    expect(previousVersionsNeeded(state, [listed(2)], ['p-1'])).toEqual([{ id: 'p-1', version: 1 }]);
    const live: LiveSnapshot = {
      parsers: [listed(2)],
      details: { 'p-1': v2 },
      projects: [],
      previous: { 'p-1': v1Finished },
    };
    const plan = buildPlan({ parsers: [withAvailability], projects: [], state, live });
    expect(callsOf(plan)).toEqual([
      {
        method: 'PATCH',
        path: '/parsers/p-1/2',
        body: { rename_fields: [{ name: 'name', new_name: 'title' }] },
      },
    ]);
    expect(plan.summary.regenerations).toBe(0);
    expect(plan.drift.map((d) => d.message)).toEqual([
      'version moved from 1 to 2 outside scrapeform; fields renamed: title -> name',
    ]);
  });

  it('a version made by hand past a pending create that FAILED is no reason to make the parser again', () => {
    const state = stateWith(created);
    const failed = { ...listed(1, 'FAILED'), error: 'GenerationError: boom' };
    const live: LiveSnapshot = {
      parsers: [failed],
      details: { 'p-1': { ...details(1, [], 'FAILED'), error: 'GenerationError: boom' } },
      projects: [],
    };
    const plan = buildPlan({ parsers: [books], projects: [], state, live });
    expect(plan.resource_changes).toEqual([]);
    expect(plan.drift.map((d) => d.message)).toEqual([
      'version 1 was made outside scrapeform and FAILED: GenerationError: boom',
    ]);
  });
});
