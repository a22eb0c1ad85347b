import { describe, expect, it } from 'vitest';
import type { LiveParserSummary } from '../../../src/api/live.js';
import type { DesiredField, DesiredParser } from '../../../src/model/desired.js';
import { PLACEHOLDER_DESCRIPTION } from '../../../src/model/vocabulary.js';
import { createColors } from '../../../src/output/colors.js';
import { renderPlan } from '../../../src/output/render-plan.js';
import { renderPlanJson } from '../../../src/output/render-plan-json.js';
import { buildPlan } from '../../../src/plan/build-plan.js';
import { resolveUnknowns } from '../../../src/plan/unknown-values.js';
import type { PlanOptions } from '../../../src/plan/build-plan.js';
import { parsePlanFile } from '../../../src/plan/plan-file.js';
import { plannedRequests } from '../../../src/plan/plan-json.js';
import type { ParserDefinition, ParserState, State, UnknownValues } from '../../../src/state/model.js';
import { desiredField, desiredParser } from '../../helpers/desired.js';

const ID = 'p-legacy';
const URL_A = 'https://books.example/catalogue/a.html';
const field = (name: string, description = PLACEHOLDER_DESCRIPTION, extra: Partial<DesiredField> = {}) =>
  desiredField(name, description, extra);

/** The manifest import wrote, with the user's edits. */
const manifest = (fields: DesiredField[], extra: Partial<DesiredParser> = {}): DesiredParser =>
  desiredParser('legacy', fields, { urls: [URL_A], ...extra });

const IMPORTED_UNKNOWN: UnknownValues = {
  scraperParams: true,
  descriptions: ['title', 'reviews', 'reviews.author'],
  selectors: ['title', 'reviews', 'reviews.author'],
  types: ['title', 'reviews.author'],
};

/** State as import records it: empty values, every one of them marked unknown. */
function importedState(unknown: UnknownValues | null = IMPORTED_UNKNOWN): State {
  const parser: ParserState = {
    kind: 'Parser',
    id: ID,
    name: 'legacy',
    version: 3,
    definition: {
      urls: [URL_A],
      scraperParams: {},
      fields: [
        field('title'),
        field('reviews', PLACEHOLDER_DESCRIPTION, { type: 'array' }),
        field('reviews.author'),
      ],
    },
    descriptionsKnown: false,
    ...(unknown !== null ? { unknown } : {}),
  };
  return { format_version: 1, serial: 1, lineage: 'l', resources: { 'parser.legacy': parser } };
}

const summary: LiveParserSummary = {
  id: ID,
  name: 'legacy',
  status: 'FINISHED',
  error: null,
  generated_at: '2026-11-01T00:00:00.000Z',
  version: 3,
};

function plan(desired: DesiredParser, options: PlanOptions = {}, state = importedState()) {
  return buildPlan({
    parsers: [desired],
    projects: [],
    state,
    live: { parsers: [summary], details: {}, projects: [] },
    options,
  });
}

const imported = (): DesiredField[] => [
  field('title'),
  field('reviews', PLACEHOLDER_DESCRIPTION, { type: 'array' }),
  field('reviews.author'),
];

describe('a parser whose values were never seen (import)', () => {
  it('as imported: no change and nothing to say', () => {
    const result = plan(manifest(imported()));
    expect([result.status, result.warnings]).toEqual(['no_changes', []]);
  });

  it('scraper_params declared: no replace and no call; the plan says how to confirm them', () => {
    const result = plan(manifest(imported(), { scraperParams: { render: true } }));
    expect(result.resource_changes).toEqual([]);
    expect(result.warnings).toEqual([
      'parser.legacy: the manifest declares values that were never seen (imported): scraper_params; scraper_params are not compared (a value never seen is no reason to replace the parser). If they are already live, confirm with --accept-unknown parser.legacy: state records them, no call is made',
    ]);
  });

  it('a known value that changed still replaces, and says the scraper_params were never seen', () => {
    const result = plan(
      manifest(imported(), {
        urls: ['https://books.example/catalogue/b.html'],
        scraperParams: { render: true },
      }),
    );
    expect(result.resource_changes.map((c) => [c.action, c.reasons[0]])).toEqual([
      ['replace', 'urls changed'],
    ]);
    expect(result.warnings).toEqual([
      'parser.legacy: the scraper_params of p-legacy were never seen (imported); the new parser gets the manifest\'s: {"render":true}',
    ]);
  });

  it('--accept-unknown: the declared values are recorded with no call, what is left stays unknown', () => {
    const desired = manifest(
      [
        field('title', 'Book title', { selector: 'h1' }),
        field('reviews', 'Reviews', { type: 'array' }),
        field('reviews.author'),
      ],
      { scraperParams: { render: true } },
    );
    const result = plan(desired, { acceptUnknown: ['parser.legacy'] });
    expect(result.warnings).toEqual([]);
    expect(result.status).toBe('changes');
    const [change] = result.resource_changes;
    expect(change).toMatchObject({
      action: 'record',
      id: ID,
      version: 3,
      regenerates: false,
      destructive: false,
    });
    expect(change && plannedRequests(change)).toEqual([]);
    expect(change?.reasons).toEqual([
      'values never seen (imported) confirmed live with --accept-unknown: recorded in state, no call for them',
      'records scraper_params: {"render":true}',
      'records title.description: "Book title"',
      'records title.selector: "h1"',
      'records reviews.description: "Reviews"',
      'still never seen (declare them, then --accept-unknown again): reviews.author.description, reviews.selector, reviews.author.selector, title.type, reviews.author.type',
    ]);
    expect(change?.kind === 'Parser' && change.action === 'record' ? change.unknown : undefined).toEqual({
      descriptions: ['reviews.author'],
      selectors: ['reviews', 'reviews.author'],
      types: ['title', 'reviews.author'],
    });
    expect(renderPlan(result, createColors(false)).split('\n').slice(0, 4)).toEqual([
      'Plan: 1 to record in state (values confirmed live) (no regeneration, no credits).',
      '',
      '~ parser.legacy (p-legacy)  record',
      '    # values never seen (imported) confirmed live with --accept-unknown: recorded in state, no call for them',
    ]);
    // A saved plan reads back into the same change.
    const text = `${renderPlanJson(result)}\n`;
    expect(`${renderPlanJson(parsePlanFile(text, 'plan.json'))}\n`).toBe(text);
    expect(parsePlanFile(text, 'plan.json').resource_changes).toEqual(result.resource_changes);
  });

  it('with the values recorded, the next plan is empty', () => {
    const desired = manifest([field('title', 'Book title'), ...imported().slice(1)], {
      scraperParams: { render: true },
    });
    const first = plan(desired, { acceptUnknown: ['parser.legacy'] });
    const [change] = first.resource_changes;
    if (change?.kind !== 'Parser' || change.action !== 'record') throw new Error('expected a record');
    const state = importedState(change.unknown ?? null);
    const parser = state.resources['parser.legacy'] as ParserState;
    parser.definition = change.definition;
    expect(plan(desired, {}, state).status).toBe('no_changes');
  });

  it('a description filled in is sent, with a warning that the selector never seen may be dropped', () => {
    const result = plan(manifest([field('title', 'Book title'), ...imported().slice(1)]));
    const [change] = result.resource_changes;
    expect(change?.action).toBe('update');
    expect(change && plannedRequests(change).map((r) => r.body)).toEqual([
      { modify_fields: [{ name: 'title', description: 'Book title' }] },
    ]);
    expect(result.warnings).toEqual([
      'parser.legacy: the manifest declares values that were never seen (imported): title.description; the field values are sent with modify_fields (a regeneration). If they are already live, confirm with --accept-unknown parser.legacy: state records them, no call is made',
      'parser.legacy: title: modify_fields sends this field without a selector, and the selector the live parser may have was never seen (imported): the service may drop it. To keep it, declare the selector in the manifest (fields.title.selector)',
    ]);
    // Sent as declared, so known from then on; the others stay unknown.
    expect(change?.kind === 'Parser' && change.action === 'update' ? change.unknown : undefined).toEqual({
      scraperParams: true,
      descriptions: ['reviews', 'reviews.author'],
      selectors: ['reviews', 'reviews.author'],
      types: ['reviews.author'],
    });
  });

  it('the selector declared: no warning about it', () => {
    const result = plan(manifest([field('title', 'Book title', { selector: 'h1' }), ...imported().slice(1)]));
    expect(result.warnings.filter((w) => w.includes('may drop'))).toEqual([]);
  });

  it('a nested field sent with the placeholder import wrote is called out', () => {
    const result = plan(
      manifest([
        ...imported().slice(0, 2),
        field('reviews.author', PLACEHOLDER_DESCRIPTION, { type: 'number' }),
      ]),
    );
    expect(result.warnings).toContain(
      'parser.legacy: reviews.author would be sent with the placeholder description written by import (the live description was never seen): describe it in the manifest first',
    );
    expect(result.warnings).toContain(
      'parser.legacy: reviews.author: modify_fields sends this field without a selector, and the selector the live parser may have was never seen (imported): the service may drop it. To keep it, declare the selector in the manifest (fields.reviews.fields.author.selector)',
    );
    // A type never seen is no retype consumers notice.
    expect(result.resource_changes[0]?.breaking).toEqual([]);
  });

  it('marks follow a renamed parent to its children', () => {
    const result = plan(
      manifest(
        [
          field('title', 'Book title', { selector: 'h1' }),
          field('opinions', PLACEHOLDER_DESCRIPTION, { type: 'array' }),
          field('opinions.author'),
        ],
        { renames: [{ from: 'reviews', to: 'opinions' }] },
      ),
    );
    const [change] = result.resource_changes;
    expect(change?.kind === 'Parser' && change.action === 'update' ? change.unknown : undefined).toEqual({
      scraperParams: true,
      descriptions: ['opinions', 'opinions.author'],
      selectors: ['opinions', 'opinions.author'],
      types: ['opinions.author'],
    });
  });

  it('--accept-unknown with nothing declared records the scraper_params as none; with nothing unknown it says so', () => {
    const none = plan(manifest(imported()), { acceptUnknown: ['parser.legacy'] });
    expect(none.resource_changes[0]?.reasons[1]).toBe('records scraper_params: {}');
    const known = importedState(null);
    const parser = known.resources['parser.legacy'] as ParserState;
    parser.descriptionsKnown = true;
    expect(plan(manifest(imported()), { acceptUnknown: ['parser.legacy'] }, known).warnings).toEqual([
      '--accept-unknown parser.legacy: nothing to record: state knows every value of this parser',
    ]);
  });

  it('a parser imported before state recorded unknown values is recognised by what import wrote', () => {
    const old = importedState(null);
    const result = plan(manifest(imported(), { scraperParams: { render: true } }), {}, old);
    expect(result.resource_changes).toEqual([]);
    expect(result.warnings).toEqual([
      'parser.legacy: the manifest declares values that were never seen (imported): scraper_params; scraper_params are not compared (a value never seen is no reason to replace the parser). If they are already live, confirm with --accept-unknown parser.legacy: state records them, no call is made',
    ]);
    // An adopted parser recorded the manifest's descriptions: its scraper_params are compared as before.
    const adopted = importedState(null);
    const parser = adopted.resources['parser.legacy'] as ParserState;
    parser.definition = { urls: [URL_A], scraperParams: {}, fields: [field('title', 'Title')] };
    const replaced = plan(
      manifest([field('title', 'Title')], { scraperParams: { render: true } }),
      {},
      adopted,
    );
    expect(replaced.resource_changes.map((c) => c.action)).toEqual(['replace']);
  });
});

describe('resolveUnknowns: scraper_params an import could not read', () => {
  const base: ParserDefinition = { urls: [URL_A], scraperParams: {}, fields: [] };
  const unconfirmed = (scraperParams: DesiredParser['scraperParams']): string[] =>
    resolveUnknowns(
      base,
      { scraperParams: true },
      { ...desiredParser('legacy', [], { urls: [URL_A] }), scraperParams },
      false,
    ).unconfirmed;

  it('lists them unconfirmed only when the manifest asks for something: render: false asks for nothing', () => {
    expect(unconfirmed({})).toEqual([]);
    expect(unconfirmed({ render: false, premium: false })).toEqual([]);
    expect(unconfirmed({ render: true })).toEqual(['scraper_params']);
    expect(unconfirmed({ country_code: 'us' })).toEqual(['scraper_params']);
  });
});
