import { describe, expect, it } from 'vitest';
import type { LiveParserDetails, LiveParserSummary } from '../../../src/api/live.js';
import { summarisePlan } from '../../../src/output/render-plan.js';
import { buildPlan, summarise } from '../../../src/plan/build-plan.js';
import { detectDrift } from '../../../src/plan/drift.js';
import { lagWarning } from '../../../src/plan/lagging-version.js';
import type { LiveSnapshot, Plan } from '../../../src/plan/model.js';
import { plannedRequests } from '../../../src/plan/plan-json.js';
import type { ParserDefinition, ParserState, State } from '../../../src/state/model.js';
import { desiredField, desiredParser } from '../../helpers/desired.js';
import { parserState } from '../../helpers/state.js';

// Versions only go up: a service showing a version below one state records as existing is an answer lagging
// behind (a replica), not a change made outside scrapeform. Nothing is sent for the parser on the strength of it.

const T0 = '2026-11-01T00:00:00.000Z';
const subtitle = desiredField('subtitle', 'Subtitle shown under the title');
const headline = desiredField('headline', 'Subtitle shown under the title');
const price = desiredField('price', 'Price including tax', { type: 'number' });
const author = desiredField('author', 'Author name');
const created = desiredParser('books', [subtitle, price]);
// The rename applied; its `renamed_from` hint then dropped from the manifest (DESIGN allows it).
const renamed = desiredParser('books', [headline, price]);
const definitionOf = (fields: typeof renamed.fields): ParserDefinition => ({
  urls: created.urls,
  scraperParams: {},
  fields,
});

/** A free rename answered 200: version 1 recorded as ready at once, nothing pending. */
const afterRename: ParserState = parserState({ version: 1, definition: definitionOf(renamed.fields) });

function stateWith(resource: ParserState): State {
  return { format_version: 1, serial: 3, lineage: 'L', resources: { 'parser.books': resource } };
}

function listed(version: number, status = 'FINISHED'): LiveParserSummary {
  return { id: 'p-1', name: 'books', status, error: null, generated_at: T0, version };
}

function details(version: number, fields: string[], status = 'FINISHED'): LiveParserDetails {
  return {
    id: 'p-1',
    name: 'books',
    version,
    status,
    error: null,
    createdAt: T0,
    generatedAt: T0,
    exampleResult: null,
    fields: fields.map((name) => ({ name, type: 'text' })),
  };
}

function liveAt(version: number, fields: string[], status = 'FINISHED'): LiveSnapshot {
  return {
    parsers: [listed(version, status)],
    details: { 'p-1': details(version, fields, status) },
    projects: [],
  };
}

function callsOf(plan: Plan): { method: string; path: string; body?: unknown }[] {
  return plan.resource_changes
    .flatMap((c) => plannedRequests(c))
    .map((r) => ({ method: r.method, path: r.path, body: r.body }));
}

const LAG =
  'the service shows version 0 of parser p-1, below version 1 that state records (versions only go up: an answer lagging behind, not a change made outside scrapeform)';

/** The plan of `desired` against a service lagging at version 0 (fields subtitle, price): nothing, and why. */
function expectHeldBack(desired: ReturnType<typeof desiredParser>, resource: ParserState): void {
  const plan = buildPlan({
    parsers: [desired],
    projects: [],
    state: stateWith(resource),
    live: liveAt(0, ['subtitle', 'price']),
  });
  expect(plan.resource_changes).toEqual([]);
  expect(plan.warnings).toEqual([
    `parser.books: ${LAG}; nothing is planned for it until the service shows version 1 again`,
  ]);
}

describe('a live version below the one state records is lag, not drift', () => {
  it('after a free rename: nothing is planned (no PATCH based on the older version), and a warning says why', () => {
    const plan = buildPlan({
      parsers: [renamed],
      projects: [],
      state: stateWith(afterRename),
      live: liveAt(0, ['subtitle', 'price']),
    });
    expect(plan.status).toBe('no_changes');
    expect(callsOf(plan)).toEqual([]);
    expect(plan.summary.estimated_credits).toBe(0);
    expect(plan.drift).toEqual([]);
    expect(plan.warnings).toEqual([
      `parser.books: ${LAG}; nothing is planned for it until the service shows version 1 again`,
    ]);
  });

  it('a change declared meanwhile waits too: never a PATCH, replace or regeneration on the lagging answer', () => {
    const wanted = desiredParser('books', [headline, price, author]);
    const moved = desiredParser('books', [headline, price], { urls: ['https://books.example/other.html'] });
    for (const desired of [wanted, moved]) expectHeldBack(desired, afterRename);
  });

  it('once the service shows the recorded version again, an update is planned on it as usual', () => {
    const wanted = desiredParser('books', [headline, price, author]);
    const plan = buildPlan({
      parsers: [wanted],
      projects: [],
      state: stateWith(afterRename),
      live: liveAt(1, ['headline', 'price']),
    });
    expect(plan.warnings).toEqual([]);
    expect(plan.drift).toEqual([]);
    expect(callsOf(plan)).toEqual([
      {
        method: 'PATCH',
        path: '/parsers/p-1/1',
        body: { add_fields: [{ name: 'author', description: 'Author name' }] },
      },
    ]);
  });

  it('a version newer than the recorded one is still drift, made outside scrapeform', () => {
    const plan = buildPlan({
      parsers: [renamed],
      projects: [],
      state: stateWith(afterRename),
      live: liveAt(2, ['headline', 'price', 'isbn']),
    });
    expect(plan.drift.map((d) => d.message)).toEqual([
      'version moved from 1 to 2 outside scrapeform; fields added: isbn',
    ]);
    expect(callsOf(plan)).toEqual([
      { method: 'PATCH', path: '/parsers/p-1/2', body: { remove_fields: ['isbn'] } },
    ]);
  });

  it('a version seen FAILED is one the parser has: an older one shown is lag, not a retry from it', () => {
    const failed = parserState({
      version: 0,
      definition: definitionOf(created.fields),
      failed: {
        version: 1,
        error: 'GenerationError: boom',
        definition: definitionOf([subtitle, price, author]),
      },
    });
    expectHeldBack(desiredParser('books', [subtitle, price, author]), failed);
  });

  it('a pending version past the recorded one does not hide the lag below the recorded one', () => {
    const pending = {
      ...afterRename,
      pending: { version: 2, definition: definitionOf([headline, price, author]) },
    };
    expectHeldBack(desiredParser('books', [headline, price, author]), pending);
  });

  it('drift reads it the same way: no drift, a warning naming both versions', () => {
    const report = detectDrift({ state: stateWith(afterRename), live: liveAt(0, ['subtitle', 'price']) });
    expect(report.status).toBe('no_drift');
    expect(report.drift).toEqual([]);
    expect(report.warnings).toEqual([
      `parser.books: ${LAG}; not drift: run drift again once the service shows version 1 again`,
    ]);
    const newer = detectDrift({
      state: stateWith(afterRename),
      live: liveAt(2, ['headline', 'price', 'isbn']),
    });
    expect(newer.drift.map((d) => d.message)).toEqual([
      'version moved from 1 to 2 outside scrapeform: field isbn added',
    ]);
  });
});

describe('the summary line of a plan that holds lagging parsers back', () => {
  const lag = {
    story: 'the service shows version 0 of parser p-1, below version 1 that state records',
    awaited: 1,
  };
  const planWith = (warnings: string[]): Plan => ({
    format_version: 1,
    status: 'no_changes',
    summary: summarise([]),
    resource_changes: [],
    drift: [],
    warnings,
    fingerprint: { state_lineage: 'L', state_serial: 1, live: {} },
  });

  it('says nothing is planned and why, never "No changes." over the warning', () => {
    expect(summarisePlan(planWith([lagWarning('parser.a', lag)]))).toBe(
      'No changes planned: 1 parser lags behind state (see the warning); plan again later.',
    );
    expect(summarisePlan(planWith([lagWarning('parser.a', lag), lagWarning('parser.b', lag)]))).toBe(
      'No changes planned: 2 parsers lag behind state (see the warnings); plan again later.',
    );
    const partial =
      'partial plan: only parser.a (--target); changes to other objects are neither shown nor applied, and a plan without these flags may have more';
    expect(summarisePlan(planWith([partial, lagWarning('parser.a', lag)]))).toBe(
      'No changes planned among the objects selected (a partial plan): 1 parser lags behind state (see the warnings); plan again later.',
    );
    expect(summarisePlan(planWith([]))).toBe('No changes. The live services match the manifests.');
  });
});
