import { describe, expect, it } from 'vitest';
import type { LiveParserDetails, LiveParserSummary } from '../../../src/api/live.js';
import type { ScrapeformError } from '../../../src/errors.js';
import { checkRecreates } from '../../../src/plan/approval.js';
import { buildPlan, detailsNeeded } from '../../../src/plan/build-plan.js';
import { previousVersionsNeeded } from '../../../src/plan/drift.js';
import type { LiveSnapshot, Plan } from '../../../src/plan/model.js';
import { plannedRequests } from '../../../src/plan/plan-json.js';
import { recoverIntents } from '../../../src/plan/recover-intents.js';
import { refreshState } from '../../../src/plan/refresh-state.js';
import type { ParserDefinition, ParserState, State } from '../../../src/state/model.js';
import { parserState } from '../../helpers/state.js';
import { desiredField, desiredParser } from '../../helpers/desired.js';

const T0 = '2026-11-01T00:00:00.000Z';
const T1 = '2026-11-01T00:05:00.000Z';
const SENT_AT = '2026-11-01T00:04:00.000Z';

const title = desiredField('title', 'Book title from the main heading');
const price = desiredField('price', 'Price including tax', { type: 'number' });
const availability = desiredField('availability', 'Stock availability text');
const books = desiredParser('books', [title, price]);
const withAvailability = desiredParser('books', [title, price, availability]);
const sent: ParserDefinition = { urls: books.urls, scraperParams: {}, fields: books.fields };
const sentWithAvailability: ParserDefinition = { ...sent, fields: withAvailability.fields };

/** apply --no-wait added availability: the service's 202 answered version 1, which state records as pending. */
const pendingUpdate: ParserState = {
  kind: 'Parser',
  id: 'p-1',
  name: 'books',
  version: 0,
  definition: sent,
  descriptionsKnown: true,
  pending: { version: 1, definition: sentWithAvailability },
};

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

function refusal(plan: Plan, recreate: string[]): ScrapeformError | undefined {
  try {
    checkRecreates(plan, recreate);
    return undefined;
  } catch (error) {
    return error as ScrapeformError;
  }
}

describe('a version past a pending one is diffed against what scrapeform sent with the pending one', () => {
  // apply --no-wait created the parser (version 0 pending); once it finished, someone added a field by hand.
  const created: ParserState = parserState({
    version: null,
    definition: null,
    pending: { version: 0, definition: sent },
  });
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
    const state = stateWith(pendingUpdate);
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

describe('a pending version that FAILED is a try, as one apply waited for (each retry pays a generation)', () => {
  const error = 'GenerationError: no availability';
  const failedListed = (version: number): LiveParserSummary => ({ ...listed(version, 'FAILED'), error });

  it('the first is retried from the last good version, and refreshState records it as the first failure', () => {
    const state = stateWith(pendingUpdate);
    const live: LiveSnapshot = { parsers: [failedListed(1)], details: {}, projects: [] };
    const plan = buildPlan({ parsers: [withAvailability], projects: [], state, live });
    expect(callsOf(plan)).toEqual([
      { method: 'PATCH', path: '/parsers/p-1/0', body: { add_fields: [availability] } },
    ]);
    const { pending: _pending, ...rest } = pendingUpdate;
    expect(refreshState(state, live)?.resources['parser.books']).toEqual({
      ...rest,
      failed: { version: 1, error, definition: sentWithAvailability, attempts: 1 },
    });
  });

  it('the same definition FAILED again: not retried by itself, as after two failures apply waited for', () => {
    // The retry above, sent with --no-wait (or its wait timed out): version 2 pending, and it FAILED too.
    const retried: ParserState = {
      ...pendingUpdate,
      pending: { version: 2, definition: sentWithAvailability },
      failed: { version: 1, error, definition: sentWithAvailability, attempts: 1 },
    };
    const live: LiveSnapshot = { parsers: [failedListed(2)], details: {}, projects: [] };
    const plan = buildPlan({ parsers: [withAvailability], projects: [], state: stateWith(retried), live });
    expect(plan.resource_changes).toEqual([]);
    expect(plan.warnings).toEqual([
      `parser.books: version 2 FAILED 2 times with the definition the manifests ask for (${error}); not retried again by itself: fix the manifest, or try once more with --reassert parser.books`,
    ]);
    // --reassert tries once more; so does a changed manifest.
    const reasserted = buildPlan({
      parsers: [withAvailability],
      projects: [],
      state: stateWith(retried),
      live,
      options: { reassert: ['parser.books'] },
    });
    expect(reasserted.resource_changes.map((c) => c.action)).toEqual(['update']);
  });
});

describe('the new parser of a replace under way that FAILED unseen is a try too (each is a new parser)', () => {
  const error = 'GenerationError: no availability';
  /** A replace of p-0 whose wait timed out: its new parser p-1 at version 0, pending, after one FAILED try (p-9). */
  const secondTry: ParserState = {
    kind: 'Parser',
    id: 'p-1',
    name: 'books',
    version: null,
    definition: null,
    descriptionsKnown: true,
    pending: { version: 0, definition: sentWithAvailability },
    // Carried from the new parser before it (parser-handlers.ts), at this parser's version.
    failed: { version: 0, error, definition: sentWithAvailability, attempts: 1 },
    replacing: { oldId: 'p-9', also: ['p-0'] },
  };
  const failedNow: LiveSnapshot = {
    parsers: [{ ...listed(0, 'FAILED'), error }],
    details: {},
    projects: [],
  };

  it("refreshState counts it, though a failure of the same version number is recorded (another parser's)", () => {
    const { pending: _pending, ...rest } = secondTry;
    expect(refreshState(stateWith(secondTry), failedNow)?.resources['parser.books']).toEqual({
      ...rest,
      failed: { version: 0, error, definition: sentWithAvailability, attempts: 2 },
    });
  });

  it('and the plan makes no third new parser by itself', () => {
    const plan = buildPlan({
      parsers: [withAvailability],
      projects: [],
      state: stateWith(secondTry),
      live: failedNow,
    });
    expect(plan.resource_changes).toEqual([]);
    expect(plan.warnings).toContain(
      `parser.books: version 0 FAILED 2 times with the definition the manifests ask for (${error}); not retried again by itself: fix the manifest, or try once more with --reassert parser.books`,
    );
  });
});

describe('a list lagging behind a PATCH never makes apply send the PATCH again unread', () => {
  it('a pending version the list does not show yet is read by id; the details show it: waited for, then recorded', () => {
    const state = stateWith(pendingUpdate);
    expect(detailsNeeded([withAvailability], state, [listed(0)])).toEqual(['p-1']);
    const generating: LiveSnapshot = {
      parsers: [listed(0)],
      details: { 'p-1': details(1, [], 'GENERATING') },
      projects: [],
    };
    const waiting = buildPlan({ parsers: [withAvailability], projects: [], state, live: generating });
    expect(waiting.resource_changes).toEqual([]);
    expect(waiting.warnings).toEqual([
      'parser.books: version 1 is still generating; nothing to change until it finishes',
    ]);
    const finished: LiveSnapshot = {
      parsers: [listed(0)],
      details: { 'p-1': details(1, ['title', 'price', 'availability']) },
      projects: [],
    };
    expect(buildPlan({ parsers: [withAvailability], projects: [], state, live: finished }).status).toBe(
      'no_changes',
    );
    expect(refreshState(state, finished)?.resources['parser.books']).toEqual({
      kind: 'Parser',
      id: 'p-1',
      name: 'books',
      version: 1,
      definition: sentWithAvailability,
      descriptionsKnown: true,
    });
  });

  it('neither the list nor the details show it: the PATCH is planned unconfirmed, and apply needs --recreate', () => {
    const state = stateWith(pendingUpdate);
    const lagging: LiveSnapshot = {
      parsers: [listed(0)],
      details: { 'p-1': details(0, ['title', 'price']) },
      projects: [],
    };
    const plan = buildPlan({ parsers: [withAvailability], projects: [], state, live: lagging });
    expect(plan.resource_changes.map((c) => c.reasons[0])).toEqual([
      "unconfirmed PATCH: version 1, which the service announced for the change an earlier apply sent, is shown neither by the list nor by the parser's details yet (they show version 0) (it may have landed); apply sends it again only with --recreate parser.books",
    ]);
    expect(plan.warnings).toContain(
      "parser.books: version 1, which the service announced for the change an earlier apply sent, is shown neither by the list nor by the parser's details yet (they show version 0); apply refuses to send the PATCH again without --recreate parser.books (check the service first: if it landed, sending it again pays another generation)",
    );
    const refused = refusal(plan, []);
    expect(refused?.code).toBe('apply.recreate-not-approved');
    expect(refused?.message).toBe(
      "not applied: the plan sends again a PATCH an earlier apply sent and could not confirm, whose version neither the list nor the parser's details show yet (parser.books); nothing was sent",
    );
    expect(refusal(plan, ['parser.books'])).toBeUndefined();
  });

  // A PATCH that landed but whose answer was lost (a 502, a timeout): its intent is in state, marked sent.
  const patching: ParserState = {
    kind: 'Parser',
    id: 'p-1',
    name: 'books',
    version: 0,
    definition: sent,
    descriptionsKnown: true,
    patching: { from: 0, definition: sentWithAvailability, sent: SENT_AT },
  };
  const { patching: _patching, ...unpatched } = patching;

  it('a PATCH whose answer was lost, with the list still at its base: its intent stays until the details are read', () => {
    const state = stateWith(patching);
    expect(recoverIntents(state, { parsers: [listed(0)], projects: [] }).state).toBe(state);
    expect(detailsNeeded([withAvailability], state, [listed(0)])).toEqual(['p-1']);
  });

  it('the details show the version it made: it is ours, pending with the definition sent; no second PATCH', () => {
    const state = stateWith(patching);
    const live: LiveSnapshot = {
      parsers: [listed(0)],
      details: { 'p-1': details(1, ['title', 'price', 'availability']) },
      projects: [],
    };
    expect(recoverIntents(state, live).state.resources['parser.books']).toEqual({
      ...unpatched,
      pending: { version: 1, definition: sentWithAvailability },
    });
    const plan = buildPlan({ parsers: [withAvailability], projects: [], state, live });
    expect(plan.status).toBe('no_changes');
    expect(plan.drift).toEqual([]);
    expect(refreshState(state, live)?.resources['parser.books']).toEqual({
      ...unpatched,
      version: 1,
      definition: sentWithAvailability,
    });
  });

  it('the details still at its base too: the intent stays, the PATCH is planned unconfirmed and needs --recreate', () => {
    const state = stateWith(patching);
    const live: LiveSnapshot = {
      parsers: [listed(0)],
      details: { 'p-1': details(0, ['title', 'price']) },
      projects: [],
    };
    const recovered = recoverIntents(state, live);
    expect(recovered.state).toBe(state);
    expect([...recovered.unconfirmedPatches]).toEqual([['parser.books', SENT_AT]]);
    const plan = buildPlan({ parsers: [withAvailability], projects: [], state, live });
    expect(plan.resource_changes.map((c) => [c.action, c.reasons[0]])).toEqual([
      [
        'update',
        `unconfirmed PATCH: the PATCH sent at ${SENT_AT} got no clear answer, and neither the list nor the parser's details show the version it would make (1) yet (it may have landed); apply sends it again only with --recreate parser.books`,
      ],
    ]);
    expect(refusal(plan, [])?.code).toBe('apply.recreate-not-approved');
    expect(refusal(plan, ['parser.books'])).toBeUndefined();
  });

  it('a PATCH never sent (written ahead, the run stopped first) with the details at its base: planned again as before', () => {
    const { sent: _sent, ...unsent } = patching.patching ?? { from: 0, definition: sent };
    const state = stateWith({ ...patching, patching: unsent });
    const live: LiveSnapshot = {
      parsers: [listed(0)],
      details: { 'p-1': details(0, ['title', 'price']) },
      projects: [],
    };
    expect(recoverIntents(state, live).state.resources['parser.books']).toEqual(unpatched);
    const plan = buildPlan({ parsers: [withAvailability], projects: [], state, live });
    expect(plan.resource_changes.map((c) => c.reasons.some((r) => r.startsWith('unconfirmed')))).toEqual([
      false,
    ]);
    expect(refusal(plan, [])).toBeUndefined();
  });
});
