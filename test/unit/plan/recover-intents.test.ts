import { describe, expect, it } from 'vitest';
import type { LiveParserSummary, LiveProject } from '../../../src/api/live.js';
import type { ScrapeformError } from '../../../src/errors.js';
import { checkRecreates } from '../../../src/plan/approval.js';
import { buildPlan, detailsNeeded, projectPayload } from '../../../src/plan/build-plan.js';
import type { LiveSnapshot, Plan, ResourceChange } from '../../../src/plan/model.js';
import { parsePlanFile } from '../../../src/plan/plan-file.js';
import { plannedRequests, toPlanJson } from '../../../src/plan/plan-json.js';
import { recoverIntents } from '../../../src/plan/recover-intents.js';
import { refreshState } from '../../../src/plan/refresh-state.js';
import { listUnmanaged } from '../../../src/plan/unmanaged.js';
import type { ParserDefinition, ParserState, State } from '../../../src/state/model.js';
import { desiredParser, desiredProject } from '../../helpers/desired.js';
import { liveProject } from '../../helpers/live.js';

const books = desiredParser(
  'books',
  [
    { name: 'title', description: 'Book title', selector: 'h1' },
    { name: 'price', description: 'Price incl. tax', type: 'number' },
  ],
  { urls: ['https://books.example/a.html'] },
);
const definition: ParserDefinition = { urls: books.urls, scraperParams: {}, fields: books.fields };

const nightly = desiredProject('nightly', {
  projectInput: { type: 'list', list: ['https://books.example/1.html'] },
  scrapingInterval: 'daily',
});

function summary(id: string, name: string, version: number, status = 'FINISHED'): LiveParserSummary {
  return { id, name, status, error: null, generated_at: null, version };
}

function stateWith(resources: State['resources'], intents: State['intents']): State {
  return { format_version: 1, serial: 4, lineage: 'L', resources, ...(intents ? { intents } : {}) };
}

function snapshot(parsers: LiveParserSummary[], projects: LiveProject[] = []): LiveSnapshot {
  return { parsers, details: {}, projects };
}

const old: ParserState = {
  kind: 'Parser',
  id: 'p-old',
  name: 'books',
  version: 3,
  definition: { ...definition, urls: ['https://books.example/old.html'] },
  descriptionsKnown: true,
};

/** A replace recorded half done: the new parser p-new, its version 0 pending, the old p-old not deleted yet. */
const halfReplaced: ParserState = {
  kind: 'Parser',
  id: 'p-new',
  name: 'books',
  version: null,
  definition: null,
  descriptionsKnown: true,
  pending: { version: 0, definition },
  replacing: { oldId: 'p-old' },
};

describe('a create an interrupted apply sent is recovered from its intent, not adopted blind', () => {
  const createIntent = { kind: 'Parser' as const, name: 'books', definition, before: [] };

  it('a parser it created is ours with the definition sent: no adoption, no "descriptions never seen"', () => {
    const state = stateWith({}, { 'parser.books': createIntent });
    const live = snapshot([summary('p-new', 'books', 0)]);
    expect(detailsNeeded([books], state, live.parsers)).toEqual([]);
    const plan = buildPlan({ parsers: [books], projects: [], state, live });
    expect(plan.resource_changes).toEqual([]);
    expect(plan.warnings).toEqual([
      'parser.books: recovered parser p-new, created by an apply that was interrupted before it recorded it (found by name; the definition sent was recorded before the POST)',
    ]);
    // Apply records it before its calls, as if the run had seen the answer; the intent is spent.
    expect(refreshState(state, live)).toEqual({
      format_version: 1,
      serial: 4,
      lineage: 'L',
      resources: {
        'parser.books': {
          kind: 'Parser',
          id: 'p-new',
          name: 'books',
          version: 0,
          definition,
          descriptionsKnown: true,
        },
      },
    });
  });

  it('while the recovered parser generates, the plan waits: no second parser, no adoption', () => {
    const state = stateWith({}, { 'parser.books': createIntent });
    const live = snapshot([summary('p-new', 'books', 0, 'GENERATING')]);
    const plan = buildPlan({ parsers: [books], projects: [], state, live });
    expect(plan.resource_changes).toEqual([]);
    expect(plan.warnings).toContain(
      'parser.books: version 0 is still generating; nothing to change until it finishes',
    );
    const { replacing: _replacing, ...created } = halfReplaced;
    expect(refreshState(state, live)?.resources['parser.books']).toEqual(created);
  });

  it('a replace whose POST acted continues: the new parser is the replacement, the old one is deleted', () => {
    const state = stateWith(
      { 'parser.books': old },
      { 'parser.books': { ...createIntent, replaces: 'p-old', before: ['p-old'] } },
    );
    const live = snapshot([summary('p-old', 'books', 3), summary('p-new', 'books', 0)]);
    const plan = buildPlan({ parsers: [books], projects: [], state, live });
    expect(plan.drift).toEqual([]);
    expect(plan.resource_changes).toMatchObject([
      {
        address: 'parser.books',
        action: 'replace',
        finishing: true,
        id: 'p-new',
        oldId: 'p-old',
        version: 0,
        definition,
      },
    ]);
    expect(refreshState(state, live)?.resources['parser.books']).toEqual(halfReplaced);
    expect(listUnmanaged(live, state, { parsers: [books], projects: [] })).toEqual({
      parsers: [],
      projects: [],
    });
  });

  it('a parser of that name that was there before the POST is never taken for the one created', () => {
    const state = stateWith({}, { 'parser.books': { ...createIntent, before: ['p-theirs'] } });
    const live = snapshot([summary('p-theirs', 'books', 2)]);
    expect(recoverIntents(state, live)).toEqual({
      state,
      notes: [],
      unconfirmed: new Map(),
      unconfirmedPatches: new Map(),
    });
  });

  it('two candidates: none is taken, and the plan says why', () => {
    const state = stateWith(
      { 'parser.books': old },
      { 'parser.books': { ...createIntent, replaces: 'p-old', before: ['p-old'] } },
    );
    const live = snapshot([
      summary('p-old', 'books', 3),
      summary('p-a', 'books', 0),
      summary('p-b', 'books', 0),
    ]);
    const recovered = recoverIntents(state, live);
    expect(recovered.state).toBe(state);
    expect(recovered.notes).toEqual([
      'parser.books: an interrupted apply sent a create of "books", and 2 live parsers of that name are not managed (p-a, p-b); scrapeform cannot tell which it made and takes none: delete the extra ones',
    ]);
  });

  it('a project it created is recorded with the definition sent', () => {
    const payload = projectPayload(nightly);
    const state = stateWith(
      {},
      { 'project.nightly': { kind: 'Project', name: 'nightly', definition: payload, before: [] } },
    );
    const live = snapshot([], [liveProject(41, 'nightly')]);
    const plan = buildPlan({ parsers: [], projects: [nightly], state, live });
    expect(plan.resource_changes).toEqual([]);
    expect(plan.summary.adopt).toBe(0);
    expect(refreshState(state, live)?.resources['project.nightly']).toEqual({
      kind: 'Project',
      id: 41,
      name: 'nightly',
      definition: payload,
    });
  });

  it('a project shown without a name is not taken as absent: nothing is recovered, adopted or created', () => {
    const payload = projectPayload(nightly);
    const sent = '2026-11-26T02:00:00.000Z';
    const state = stateWith(
      {},
      { 'project.nightly': { kind: 'Project', name: 'nightly', definition: payload, before: [], sent } },
    );
    const { name: _name, ...nameless } = liveProject(41, 'nightly');
    const live = snapshot([], [nameless]);
    const recovered = recoverIntents(state, live);
    expect(recovered.state).toBe(state);
    expect(recovered.unconfirmed).toEqual(new Map([['project.nightly', sent]]));
    expect(recovered.notes).toEqual([
      'project.nightly: an interrupted apply sent a create of "nightly", and the service shows a project without a name that is not managed (41); scrapeform cannot tell whether one is the project it made and takes none',
    ]);
    let refused: ScrapeformError | undefined;
    try {
      buildPlan({ parsers: [], projects: [nightly], state: stateWith({}, undefined), live });
    } catch (error) {
      refused = error as ScrapeformError;
    }
    expect([refused?.code, refused?.message]).toEqual([
      'plan.invalid',
      'project.nightly: the service shows project 41 without a name, so scrapeform cannot tell whether "nightly" exists; it is neither adopted nor created (nothing is sent)',
    ]);
  });

  it('an intent whose create was recorded after all is dropped', () => {
    const state = stateWith({ 'parser.books': { ...old, id: 'p-new' } }, { 'parser.books': createIntent });
    expect(recoverIntents(state, snapshot([summary('p-new', 'books', 0)])).state.intents).toBeUndefined();
  });
});

describe('a create an apply sent and could not confirm is not sent again while no list shows it', () => {
  const at = '2026-11-26T02:00:00.000Z';
  const unconfirmedIntent = {
    kind: 'Parser' as const,
    name: 'books',
    definition,
    before: [],
    unconfirmed: at,
  };
  const reason = `unconfirmed create: the create sent at ${at} got no clear answer and no list shows it yet (it may have landed); apply sends it again only with --recreate parser.books`;

  it('the plan shows the create with why, and apply refuses it (exit 3) unless --recreate names it', () => {
    const state = stateWith({}, { 'parser.books': unconfirmedIntent });
    const plan = buildPlan({ parsers: [books], projects: [], state, live: snapshot([]) });
    expect(plan.resource_changes.map((c) => [c.address, c.action, c.reasons])).toEqual([
      ['parser.books', 'create', [reason, 'not yet created']],
    ]);
    expect(plan.warnings).toEqual([
      `parser.books: a create sent at ${at} got no clear answer and no list shows it yet; apply refuses to send it again without --recreate parser.books (check the service first: if it landed, that makes a duplicate)`,
    ]);
    const refused = (() => {
      try {
        checkRecreates(plan, []);
        return undefined;
      } catch (error) {
        return error as ScrapeformError;
      }
    })();
    expect(refused?.code).toBe('apply.recreate-not-approved');
    expect(refused?.status).toBe('input-needed');
    expect(refused?.message).toBe(
      'not applied: the plan sends again a create an earlier apply sent and could not confirm, which no list shows yet (parser.books); nothing was sent',
    );
    expect(refused?.hint).toBe(
      'apply again later: once the list shows what landed, it is recovered, not created again; after checking the service that it did not land, pass --recreate parser.books; to apply the rest meanwhile, pass --exclude parser.books',
    );
    expect(() => checkRecreates(plan, ['parser.books'])).not.toThrow();
    expect(() => checkRecreates(plan, ['parser.other'])).toThrow('(parser.books)');
  });

  it('once a list shows it, it is recovered as any interrupted create is: no create, nothing to allow', () => {
    const state = stateWith({}, { 'parser.books': unconfirmedIntent });
    const live = snapshot([summary('p-new', 'books', 0)]);
    const plan = buildPlan({ parsers: [books], projects: [], state, live });
    expect(plan.resource_changes).toEqual([]);
    expect(recoverIntents(state, live).unconfirmed).toEqual(new Map());
  });

  it('a project likewise', () => {
    const payload = projectPayload(nightly);
    const state = stateWith(
      {},
      {
        'project.nightly': {
          kind: 'Project',
          name: 'nightly',
          definition: payload,
          before: [],
          unconfirmed: at,
        },
      },
    );
    const plan = buildPlan({ parsers: [], projects: [nightly], state, live: snapshot([], []) });
    expect(plan.resource_changes.map((c) => [c.action, c.reasons[0]])).toEqual([
      ['create', reason.replace('parser.books', 'project.nightly')],
    ]);
    expect(() => checkRecreates(plan, [])).toThrow('(project.nightly)');
  });

  it('an intent a killed run wrote ahead and never marked sent is planned again as before: nothing marks it', () => {
    const state = stateWith({}, { 'parser.books': { ...unconfirmedIntent, unconfirmed: undefined } });
    const plan = buildPlan({ parsers: [books], projects: [], state, live: snapshot([]) });
    expect(plan.resource_changes.map((c) => c.reasons)).toEqual([['not yet created']]);
    expect(() => checkRecreates(plan, [])).not.toThrow();
  });

  it('one a killed run marked sent (its answer never recorded) is unconfirmed while no list shows it', () => {
    const sent = { ...unconfirmedIntent, unconfirmed: undefined, sent: at };
    const state = stateWith({}, { 'parser.books': sent });
    const plan = buildPlan({ parsers: [books], projects: [], state, live: snapshot([]) });
    expect(plan.resource_changes.map((c) => c.reasons)).toEqual([[reason, 'not yet created']]);
    expect(() => checkRecreates(plan, [])).toThrow('(parser.books)');
    // Once a list shows it, it is recovered: no create.
    const shown = buildPlan({
      parsers: [books],
      projects: [],
      state,
      live: snapshot([summary('p-new', 'books', 0)]),
    });
    expect(shown.resource_changes).toEqual([]);
  });
});

describe('the create again of an object deleted outside scrapeform keeps its intent open after a kill', () => {
  const gone: ParserState = { ...old, id: 'p-gone' };

  it('a parser: recovered by name while state still records the deleted one, not created a second time', () => {
    const state = stateWith(
      { 'parser.books': gone },
      {
        'parser.books': {
          kind: 'Parser',
          name: 'books',
          definition,
          before: [],
          recreates: 'p-gone',
          sent: '2026-11-26T02:00:00.000Z',
        },
      },
    );
    const live = snapshot([summary('p-again', 'books', 0, 'GENERATING')]);
    expect(recoverIntents(state, live).state.resources['parser.books']).toMatchObject({
      id: 'p-again',
      pending: { version: 0, definition },
    });
    const plan = buildPlan({ parsers: [books], projects: [], state, live });
    expect(plan.resource_changes.filter((c) => c.action === 'create')).toEqual([]);
  });

  /** State recording project `recordedId` at project.nightly, with the intent of creating it again in place of 1. */
  function recreating(recordedId: number, sent?: string): State {
    const payload = projectPayload(nightly);
    return stateWith(
      { 'project.nightly': { kind: 'Project', id: recordedId, name: 'nightly', definition: payload } },
      {
        'project.nightly': {
          kind: 'Project',
          name: 'nightly',
          definition: payload,
          before: [],
          recreates: 1,
          ...(sent !== undefined ? { sent } : {}),
        },
      },
    );
  }

  it('a project likewise; and while no list shows it, the create is unconfirmed', () => {
    const state = recreating(1, '2026-11-26T02:00:00.000Z');
    const recovered = recoverIntents(state, snapshot([], [liveProject(2, 'nightly')]));
    expect(recovered.state.resources['project.nightly']).toMatchObject({ id: 2 });
    expect(recovered.state.intents).toBeUndefined();
    const plan = buildPlan({ parsers: [], projects: [nightly], state, live: snapshot([], []) });
    expect(plan.resource_changes.map((c) => c.action)).toEqual(['create']);
    expect(() => checkRecreates(plan, [])).toThrow('(project.nightly)');
  });

  it('an intent whose create was recorded since (state holds the new id) is spent', () => {
    const state = recreating(2);
    expect(recoverIntents(state, snapshot([], [liveProject(2, 'nightly')])).state.intents).toBeUndefined();
  });
});

describe('a PATCH sent and never seen answered is recovered from its intent, not read as drift', () => {
  const sent: ParserDefinition = {
    ...definition,
    fields: [...definition.fields, { name: 'isbn', description: 'ISBN' }],
  };
  const patching: ParserState = { ...old, definition, version: 3, patching: { from: 3, definition: sent } };
  const { patching: _patching, ...unpatched } = patching;
  /** The list and the details of version 4 of p-old, with these fields. */
  function atVersion4(fields: string[], status = 'FINISHED'): LiveSnapshot {
    return {
      ...snapshot([summary('p-old', 'books', 4, status)]),
      details: {
        'p-old': {
          id: 'p-old',
          name: 'books',
          version: 4,
          status: status as 'FINISHED',
          error: null,
          createdAt: null,
          generatedAt: null,
          exampleResult: null,
          fields: fields.map((name) => ({ name })),
        },
      },
    };
  }

  it('the version after the one it was based on, with the fields it sent, is its: pending with the definition sent', () => {
    const state = stateWith({ 'parser.books': patching }, undefined);
    const generating = atVersion4(['title', 'price', 'isbn']);
    const recovered = recoverIntents(state, generating);
    expect(recovered.state.resources['parser.books']).toEqual({
      ...unpatched,
      pending: { version: 4, definition: sent },
    });
    expect(recovered.notes).toEqual([
      "parser.books: version 4 was made by an apply whose PATCH got no answer; it is taken as that PATCH's, with the definition sent (its fields are the ones sent; not a change made outside scrapeform)",
    ]);
    // Once FINISHED it is the recorded version, and a manifest that wants what was sent plans nothing.
    const finished = atVersion4(['title', 'price', 'isbn']);
    expect(refreshState(state, finished)?.resources['parser.books']).toEqual({
      ...unpatched,
      version: 4,
      definition: sent,
      descriptionsKnown: true,
    });
    const wanted = desiredParser('books', [...books.fields, { name: 'isbn', description: 'ISBN' }], {
      urls: books.urls,
    });
    expect(buildPlan({ parsers: [wanted], projects: [], state, live: finished }).resource_changes).toEqual(
      [],
    );
  });

  it('its details are read before it is taken: until then the intent stays', () => {
    const state = stateWith({ 'parser.books': patching }, undefined);
    const list = [summary('p-old', 'books', 4)];
    expect(recoverIntents(state, snapshot(list)).state).toBe(state);
    expect(detailsNeeded([books], state, list)).toEqual(['p-old']);
  });

  it('a version with other fields was made by someone else (the PATCH never went, or was overtaken): drift, not ours', () => {
    const state = stateWith({ 'parser.books': patching }, undefined);
    const edited = atVersion4(['headline', 'price']);
    expect(recoverIntents(state, edited).state.resources['parser.books']).toEqual(unpatched);
    const plan = buildPlan({ parsers: [books], projects: [], state, live: edited });
    expect(plan.warnings.join('\n')).not.toContain('taken as that PATCH');
    expect(plan.resource_changes.map((c) => c.action)).toEqual(['update']);
  });

  it('a retry based past a FAILED version makes the version after that one: still its own', () => {
    const retried: ParserState = {
      ...patching,
      failed: { version: 4, error: 'boom', definition: sent },
      patching: { from: 3, definition: sent },
    };
    const state = stateWith({ 'parser.books': retried }, undefined);
    const live: LiveSnapshot = {
      ...atVersion4(['title', 'price', 'isbn']),
      parsers: [summary('p-old', 'books', 5, 'GENERATING')],
    };
    live.details['p-old'] = { ...(live.details['p-old'] as LiveSnapshot['details'][string]), version: 5 };
    const { patching: _p, ...rest } = retried;
    expect(recoverIntents(state, live).state.resources['parser.books']).toEqual({
      ...rest,
      pending: { version: 5, definition: sent },
    });
  });

  it('while the version is not FINISHED its details show no fields: the intent stays, and the plan says whose it may be', () => {
    const state = stateWith({ 'parser.books': patching }, undefined);
    const generating = atVersion4([], 'GENERATING');
    expect(recoverIntents(state, generating).state).toBe(state);
    const plan = buildPlan({ parsers: [books], projects: [], state, live: generating });
    expect(plan.resource_changes).toEqual([]);
    expect(plan.warnings).toContain(
      'parser.books: version 4 was made by a PATCH whose answer was lost, or outside scrapeform (its fields show which once it is FINISHED) and is still generating; plan again once it finishes',
    );
  });

  it('a parser still at that version, by its details too, was not changed by a PATCH never sent: the intent goes', () => {
    const state = stateWith({ 'parser.books': patching }, undefined);
    // The list alone is no proof (it may lag behind the PATCH): the intent stays until the details are read.
    const list = [summary('p-old', 'books', 3)];
    expect(recoverIntents(state, snapshot(list)).state).toBe(state);
    expect(detailsNeeded([books], state, list)).toEqual(['p-old']);
    const read = atVersion4(['title', 'price']);
    const atBase: LiveSnapshot = {
      ...snapshot(list),
      details: { 'p-old': { ...(read.details['p-old'] as LiveSnapshot['details'][string]), version: 3 } },
    };
    expect(recoverIntents(state, atBase).state.resources['parser.books']).toEqual(unpatched);
  });

  it('a parser the lists lack keeps its intent until one shows it', () => {
    const state = stateWith({ 'parser.books': patching }, undefined);
    expect(recoverIntents(state, snapshot([])).state).toBe(state);
  });
});

/** A change's calls as `METHOD /path`, as the plan shows them and apply makes them. */
function callsOf(change: ResourceChange | undefined): string[] {
  return change === undefined ? [] : plannedRequests(change).map((r) => `${r.method} ${r.path}`);
}

/** The plan as `apply --plan` reads it back from the file `plan --out` writes. */
function savedAgain(plan: Plan): Plan {
  return parsePlanFile(JSON.stringify(toPlanJson(plan)), 'plan.json');
}

describe('an interrupted replace whose new parser FAILED is tried again without orphaning the original', () => {
  const replacing = halfReplaced;

  it('the retry deletes the failed one and the original once its new parser is FINISHED, and a saved plan says so', () => {
    const state = stateWith({ 'parser.books': replacing }, undefined);
    const live = snapshot([
      summary('p-old', 'books', 3),
      { ...summary('p-new', 'books', 0, 'FAILED'), error: 'boom' },
    ]);
    const plan = buildPlan({ parsers: [books], projects: [], state, live });
    const [retry] = plan.resource_changes;
    expect(retry).toMatchObject({
      action: 'replace',
      finishing: false,
      id: 'p-new',
      alsoDeletes: ['p-old'],
      destructive: true,
    });
    expect(callsOf(retry)).toEqual(['POST /parsers', 'DELETE /parsers/p-new', 'DELETE /parsers/p-old']);
    // Read back from a saved plan, the change is the same: apply makes the same calls.
    expect(savedAgain(plan).resource_changes[0]).toMatchObject({
      action: 'replace',
      id: 'p-new',
      alsoDeletes: ['p-old'],
    });
  });

  it('the new parser deleted by hand: the replace of the original is made again, not a create beside it', () => {
    const state = stateWith({ 'parser.books': replacing }, undefined);
    const plan = buildPlan({
      parsers: [books],
      projects: [],
      state,
      live: snapshot([summary('p-old', 'books', 3)]),
    });
    const [again] = plan.resource_changes;
    expect(again).toMatchObject({ action: 'replace', finishing: false, id: 'p-old', destructive: true });
    expect(callsOf(again)).toEqual(['POST /parsers', 'DELETE /parsers/p-old']);
    expect(plan.fingerprint.live['parser.books']).toBe('p-old@3');
  });

  it('its manifest deleted: the delete takes the parser it was replacing with it, and a saved plan says so', () => {
    const state = stateWith({ 'parser.books': replacing }, undefined);
    const live = snapshot([summary('p-old', 'books', 3), summary('p-new', 'books', 0, 'GENERATING')]);
    const plan = buildPlan({ parsers: [], projects: [], state, live });
    expect(plan.resource_changes.map(callsOf)).toEqual([['DELETE /parsers/p-new', 'DELETE /parsers/p-old']]);
    expect(savedAgain(plan).resource_changes[0]).toMatchObject({
      action: 'delete',
      id: 'p-new',
      alsoDeletes: ['p-old'],
    });
  });

  it('its manifest deleted and its new parser gone too: the original is deleted, not forgotten live', () => {
    const state = stateWith({ 'parser.books': replacing }, undefined);
    const plan = buildPlan({
      parsers: [],
      projects: [],
      state,
      live: snapshot([summary('p-old', 'books', 3)]),
    });
    expect(plan.resource_changes).toMatchObject([
      { action: 'delete', id: 'p-old', destructive: true, address: 'parser.books' },
    ]);
    expect(plan.resource_changes.map(callsOf)).toEqual([['DELETE /parsers/p-old']]);
    expect(plan.drift.map((d) => d.message)).toEqual([
      'parser p-new, the new parser of an interrupted replace, was deleted outside scrapeform; p-old, which it was replacing, is still live',
    ]);
    expect(plan.fingerprint.live['parser.books']).toBe('p-old@3');
    expect(savedAgain(plan).resource_changes[0]).toMatchObject({ action: 'delete', id: 'p-old' });
  });

  it('a retry left half done likewise: the failed parser of the attempt before goes with the original', () => {
    const retried: ParserState = {
      ...replacing,
      id: 'p-newer',
      replacing: { oldId: 'p-new', also: ['p-old'] },
    };
    const state = stateWith({ 'parser.books': retried }, undefined);
    const live = snapshot([
      summary('p-old', 'books', 3),
      { ...summary('p-new', 'books', 0, 'FAILED'), error: 'boom' },
    ]);
    const plan = buildPlan({ parsers: [], projects: [], state, live });
    expect(plan.resource_changes).toMatchObject([{ action: 'delete', id: 'p-new', alsoDeletes: ['p-old'] }]);
    expect(plan.resource_changes.map(callsOf)).toEqual([['DELETE /parsers/p-new', 'DELETE /parsers/p-old']]);
    expect(savedAgain(plan).resource_changes[0]).toMatchObject({ id: 'p-new', alsoDeletes: ['p-old'] });
  });

  it('neither left: the resource is forgotten as any parser deleted by hand', () => {
    const state = stateWith({ 'parser.books': replacing }, undefined);
    const plan = buildPlan({ parsers: [], projects: [], state, live: snapshot([]) });
    expect(plan.resource_changes).toMatchObject([{ action: 'forget', id: 'p-new' }]);
  });

  it('prevent_destroy recorded in state forbids deleting the original', () => {
    const state = stateWith({ 'parser.books': { ...replacing, preventDestroy: true } }, undefined);
    expect(() =>
      buildPlan({ parsers: [], projects: [], state, live: snapshot([summary('p-old', 'books', 3)]) }),
    ).toThrow('lifecycle.prevent_destroy');
  });

  it('prevent_destroy forbids the retry that would delete the original', () => {
    const state = stateWith({ 'parser.books': replacing }, undefined);
    const live = snapshot([
      summary('p-old', 'books', 3),
      { ...summary('p-new', 'books', 0, 'FAILED'), error: 'boom' },
    ]);
    const guarded = { ...books, preventDestroy: true };
    expect(() => buildPlan({ parsers: [guarded], projects: [], state, live })).toThrow('prevent_destroy');
  });

  it('a saved plan whose replace deletes more than it names is refused unless destructive', () => {
    const state = stateWith({ 'parser.books': replacing }, undefined);
    const live = snapshot([
      summary('p-old', 'books', 3),
      { ...summary('p-new', 'books', 0, 'FAILED'), error: 'boom' },
    ]);
    const json = toPlanJson(buildPlan({ parsers: [books], projects: [], state, live }));
    const [change] = json.resource_changes;
    if (change !== undefined) change.destructive = false;
    expect(() => parsePlanFile(JSON.stringify(json), 'plan.json')).toThrow(
      'a replace deletes parsers beyond the one it names only when destructive, each once',
    );
  });

  it('a retry whose original is gone, killed after its POST, is recovered all the same', () => {
    const state = stateWith(
      { 'parser.books': replacing },
      { 'parser.books': { kind: 'Parser', name: 'books', definition, replaces: 'p-new', before: ['p-new'] } },
    );
    const live = snapshot([
      { ...summary('p-new', 'books', 0, 'FAILED'), error: 'boom' },
      summary('p-newer', 'books', 0),
    ]);
    expect(recoverIntents(state, live).state.resources['parser.books']).toMatchObject({
      id: 'p-newer',
      replacing: { oldId: 'p-new' },
    });
  });

  it("killed again after the retry's POST: recovered from its intent, and finishing it deletes both", () => {
    const state = stateWith(
      { 'parser.books': replacing },
      {
        'parser.books': {
          kind: 'Parser',
          name: 'books',
          definition,
          replaces: 'p-new',
          alsoReplaces: ['p-old'],
          before: ['p-old', 'p-new'],
        },
      },
    );
    const live = snapshot([
      summary('p-old', 'books', 3),
      { ...summary('p-new', 'books', 0, 'FAILED'), error: 'boom' },
      summary('p-newest', 'books', 0),
    ]);
    const plan = buildPlan({ parsers: [books], projects: [], state, live });
    expect(plan.resource_changes).toMatchObject([
      { action: 'replace', finishing: true, id: 'p-newest', oldId: 'p-new', alsoDeletes: ['p-old'] },
    ]);
    expect(plannedRequests(plan.resource_changes[0] as ResourceChange).map((r) => r.path)).toEqual([
      '/parsers/p-new',
      '/parsers/p-old',
    ]);
    expect(listUnmanaged(live, state, { parsers: [books], projects: [] })).toEqual({
      parsers: [],
      projects: [],
    });
  });
});

describe('a live parser sharing a managed parser name is shown, never hidden', () => {
  it('as drift in the plan, and in --show-unmanaged', () => {
    const state = stateWith({ 'parser.books': { ...old, definition, version: 3 } }, undefined);
    const live = snapshot([summary('p-old', 'books', 3), summary('p-orphan', 'books', 0)]);
    const plan = buildPlan({ parsers: [books], projects: [], state, live });
    expect(plan.resource_changes).toEqual([]);
    expect(plan.drift).toEqual([
      {
        address: 'parser.books',
        kind: 'Parser',
        message:
          'live parser p-orphan ("books", version 0, FINISHED) has this parser\'s name but is not managed by scrapeform (an interrupted apply may have created it); it is left alone: delete it, or import it under another name',
      },
    ]);
    expect(listUnmanaged(live, state, { parsers: [books], projects: [] })).toEqual({
      parsers: [summary('p-orphan', 'books', 0)],
      projects: [],
    });
  });

  it('the one a plan adopts is not listed as unmanaged', () => {
    const live = snapshot([summary('p-found', 'books', 3)]);
    expect(listUnmanaged(live, stateWith({}, undefined), { parsers: [books], projects: [] })).toEqual({
      parsers: [],
      projects: [],
    });
  });
});

describe('recoverIntents: lifecycle.prevent_destroy of the object an interrupted create made', () => {
  const live = { parsers: [summary('p-1', 'books', 0, 'GENERATING')], projects: [liveProject(7, 'nightly')] };

  it('records it protected when its intent says so, and unprotected from an intent written before the flag', () => {
    const projectIntent = {
      kind: 'Project' as const,
      name: 'nightly',
      definition: { name: 'nightly' },
      before: [],
    };
    const parserIntent = { kind: 'Parser' as const, name: 'books', definition, before: [] };
    const flagged = recoverIntents(
      stateWith(
        {},
        {
          'project.nightly': { ...projectIntent, preventDestroy: true },
          'parser.books': { ...parserIntent, preventDestroy: true },
        },
      ),
      live,
    ).state;
    expect(flagged.resources['project.nightly']).toMatchObject({ id: 7, preventDestroy: true });
    expect(flagged.resources['parser.books']).toMatchObject({ id: 'p-1', preventDestroy: true });
    // An older scrapeform's intent, without the flag, still reads: the object is recovered as it was before.
    const older = recoverIntents(
      stateWith({}, { 'project.nightly': projectIntent, 'parser.books': parserIntent }),
      live,
    ).state;
    expect(older.resources['project.nightly']).toMatchObject({ id: 7 });
    expect(older.resources['project.nightly']?.preventDestroy).toBeUndefined();
    expect(older.resources['parser.books']?.preventDestroy).toBeUndefined();
  });

  it('keeps the protection of the parser a replace replaces when its intent (an older one) does not say', () => {
    const recovered = recoverIntents(
      stateWith(
        { 'parser.books': { ...old, preventDestroy: true } },
        {
          'parser.books': { kind: 'Parser', name: 'books', definition, replaces: 'p-old', before: ['p-old'] },
        },
      ),
      { parsers: [summary('p-old', 'books', 3), summary('p-1', 'books', 0, 'GENERATING')], projects: [] },
    ).state;
    expect(recovered.resources['parser.books']).toMatchObject({
      id: 'p-1',
      replacing: { oldId: 'p-old' },
      preventDestroy: true,
    });
  });
});
