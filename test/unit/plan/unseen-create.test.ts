import { describe, expect, it } from 'vitest';
import type { LiveParserSummary } from '../../../src/api/live.js';
import type { ScrapeformError } from '../../../src/errors.js';
import { checkForgets, checkRecreates } from '../../../src/plan/approval.js';
import { buildPlan } from '../../../src/plan/build-plan.js';
import type { LiveSnapshot, Plan } from '../../../src/plan/model.js';
import { projectPayload } from '../../../src/plan/plan-project.js';
import { refreshState } from '../../../src/plan/refresh-state.js';
import type { ParserDefinition, ParserState, ProjectState, State } from '../../../src/state/model.js';
import { parserState } from '../../helpers/state.js';
import { thrown } from '../../helpers/failure.js';
import { desiredParser, desiredProject } from '../../helpers/desired.js';
import { liveProject } from '../../helpers/live.js';

/**
 * F3: a service read from replicas may answer 404 for an object a moment after its create. An object this state
 * created and never saw live since is not planned as a plain create again on one 404 (a duplicate: a parser's
 * costs a generation, a project's create may start a paid run): apply asks for `--recreate ADDR`. One seen live
 * since its create and then gone is created again, as before.
 */
const books = desiredParser('books', [{ name: 'title', description: 'Book title' }], {
  urls: ['https://books.example/a.html'],
});
const definition: ParserDefinition = { urls: books.urls, scraperParams: {}, fields: books.fields };
const nightly = desiredProject('nightly', {
  projectInput: { type: 'list', list: ['https://books.example/1.html'] },
  scrapingInterval: 'daily',
});
const CREATED_AT = '2026-11-26T02:00:00.000Z';

const stateOf = (resources: State['resources']): State => ({
  format_version: 1,
  serial: 4,
  lineage: 'L',
  resources,
});
const empty: LiveSnapshot = { parsers: [], details: {}, projects: [] };

/** A parser as apply records it right after its create: no version known FINISHED, version 0 pending. */
const justCreated: ParserState = parserState({
  version: null,
  definition: null,
  pending: { version: 0, definition },
});
const finished: ParserState = { ...justCreated, version: 0, definition, pending: undefined };
delete (finished as Partial<ParserState>).pending;

const project = (extra: Partial<ProjectState> = {}): ProjectState => ({
  kind: 'Project',
  id: 7,
  name: 'nightly',
  definition: projectPayload(nightly),
  ...extra,
});

function summary(id: string, version: number, status = 'FINISHED'): LiveParserSummary {
  return { id, name: 'books', status, error: null, generated_at: null, version };
}

const refusal = (plan: Plan, recreate: string[] = []): ScrapeformError | undefined =>
  thrown(() => checkRecreates(plan, recreate));

const PARSER_REASON =
  'not seen since its create: parser p-1 was created by scrapeform and never seen FINISHED since, and the service answers 404 for it (it may not be visible yet); apply creates it again only with --recreate parser.books';
const PROJECT_REASON = `not seen since its create: project 7 was created by scrapeform at ${CREATED_AT} and no list or read has shown it since, and the service answers 404 for it (it may not be visible yet); apply creates it again only with --recreate project.nightly`;

describe('a 404 for an object this state created and never saw live since', () => {
  it('a parser whose create is still pending: the create again is planned with why, and refused without --recreate', () => {
    const plan = buildPlan({
      parsers: [books],
      projects: [],
      state: stateOf({ 'parser.books': justCreated }),
      live: empty,
    });
    expect(plan.resource_changes.map((c) => [c.address, c.action, c.reasons])).toEqual([
      ['parser.books', 'create', [PARSER_REASON]],
    ]);
    // Not reported as deleted outside scrapeform: nothing says it was.
    expect(plan.drift).toEqual([]);
    expect(plan.warnings).toEqual([
      'parser.books: parser p-1 was created by scrapeform and never seen FINISHED since; the service answers 404 for it, which so soon after a create may only mean it is not visible yet: apply refuses to create it again without --recreate parser.books (check the service first: if it exists, that makes a duplicate)',
    ]);
    const refused = refusal(plan);
    expect(refused?.code).toBe('apply.recreate-not-approved');
    expect(refused?.status).toBe('input-needed');
    expect(refused?.message).toBe(
      'not applied: the plan creates again an object scrapeform created that the service has not shown since (it answers 404, which may only mean not visible yet) (parser.books); nothing was sent',
    );
    expect(refused?.hint).toBe(
      'apply again later: once the service shows it, it is kept, not created again; after checking the service that it does not exist, pass --recreate parser.books; to apply the rest meanwhile, pass --exclude parser.books',
    );
    expect(refusal(plan, ['parser.books'])).toBeUndefined();
  });

  it('a project created and not shown by a list or read since: the same, with when it was created', () => {
    const plan = buildPlan({
      parsers: [],
      projects: [nightly],
      state: stateOf({ 'project.nightly': project({ unseenSince: CREATED_AT }) }),
      live: empty,
    });
    expect(plan.resource_changes.map((c) => [c.address, c.action, c.reasons])).toEqual([
      ['project.nightly', 'create', [PROJECT_REASON]],
    ]);
    expect(plan.drift).toEqual([]);
    expect(refusal(plan)?.message).toContain('(project.nightly); nothing was sent');
    expect(refusal(plan, ['project.nightly'])).toBeUndefined();
  });

  it('the half-done replace whose new parser is not found: made again only with --recreate', () => {
    const plan = buildPlan({
      parsers: [books],
      projects: [],
      state: stateOf({ 'parser.books': { ...justCreated, replacing: { oldId: 'p-old' } } }),
      live: { parsers: [summary('p-old', 0)], details: {}, projects: [] },
    });
    expect(plan.resource_changes.map((c) => [c.action, c.id, c.reasons])).toEqual([
      ['replace', 'p-old', [PARSER_REASON]],
    ]);
    expect(refusal(plan)?.code).toBe('apply.recreate-not-approved');
  });

  it('a create refused for both reasons names each, and says both what to do', () => {
    const state: State = {
      ...stateOf({ 'parser.books': justCreated }),
      intents: {
        'project.nightly': {
          kind: 'Project',
          name: 'nightly',
          definition: projectPayload(nightly),
          before: [],
          unconfirmed: CREATED_AT,
        },
      },
    };
    const plan = buildPlan({ parsers: [books], projects: [nightly], state, live: empty });
    expect(refusal(plan)?.message).toBe(
      'not applied: the plan sends again a create an earlier apply sent and could not confirm, which no list shows yet (project.nightly), and creates again an object scrapeform created that the service has not shown since (it answers 404, which may only mean not visible yet) (parser.books); nothing was sent',
    );
  });

  it('while it is live, the marker changes nothing in the plan', () => {
    const plan = buildPlan({
      parsers: [books],
      projects: [nightly],
      state: stateOf({
        'parser.books': justCreated,
        'project.nightly': project({ unseenSince: CREATED_AT }),
      }),
      live: { parsers: [summary('p-1', 0)], details: {}, projects: [liveProject(7, 'nightly')] },
    });
    expect(plan.status).toBe('no_changes');
  });
});

describe('a 404 for an object not seen since its create, whose manifest is gone', () => {
  it('is dropped from state only with --forget: it may be live, and would run on with nothing managing it', () => {
    const plan = buildPlan({
      parsers: [],
      projects: [],
      state: stateOf({ 'project.nightly': project({ unseenSince: CREATED_AT }) }),
      live: empty,
    });
    expect(plan.resource_changes.map((c) => [c.address, c.action, c.reasons])).toEqual([
      [
        'project.nightly',
        'forget',
        [
          `not seen since its create: project 7 was created by scrapeform at ${CREATED_AT} and no list or read has shown it since, and the service answers 404 for it (it may not be visible yet); apply drops it from state only with --forget project.nightly`,
          'archived outside scrapeform',
        ],
      ],
    ]);
    expect(plan.warnings).toEqual([
      `project.nightly: project 7 was created by scrapeform at ${CREATED_AT} and no list or read has shown it since; no manifest declares it any more, and the service answers 404 for it, which so soon after a create may only mean it is not visible yet: apply refuses to drop it from state without --forget project.nightly (check the service first: if it exists, archive or delete it there, or declare it again)`,
    ]);
    // Not a create: --recreate has nothing to say of it.
    expect(refusal(plan)).toBeUndefined();
    const refused = thrown(() => checkForgets(plan, []));
    expect(refused?.code).toBe('apply.forget-not-approved');
    expect(refused?.message).toBe(
      'not applied: the plan drops from state an object no manifest declares that scrapeform created and the service has not shown since (it answers 404, which may only mean not visible yet) (project.nightly); nothing was sent',
    );
    expect(refused?.hint).toBe(
      'apply again later: once the service shows it, the plan deletes or archives it instead; after checking the account that it is gone, pass --forget project.nightly; to apply the rest meanwhile, pass --exclude project.nightly',
    );
    expect(thrown(() => checkForgets(plan, ['project.nightly']))).toBeUndefined();
  });

  it('one seen live since is forgotten as before: a deletion outside scrapeform', () => {
    const plan = buildPlan({
      parsers: [],
      projects: [],
      state: stateOf({ 'project.nightly': project() }),
      live: empty,
    });
    expect(plan.resource_changes.map((c) => c.reasons)).toEqual([['archived outside scrapeform']]);
    expect(thrown(() => checkForgets(plan, []))).toBeUndefined();
  });
});

describe('a 404 for an object seen live since its create: gone, created again as before', () => {
  it('a parser seen FINISHED and a project without the marker (any state written before it existed)', () => {
    // Each gone while the other is shown: both gone at once would read as another account (plan/vanished.ts).
    const state = stateOf({ 'parser.books': finished, 'project.nightly': project() });
    const parserGone = buildPlan({
      parsers: [books],
      projects: [nightly],
      state,
      live: { ...empty, projects: [liveProject(7, 'nightly')] },
    });
    const projectGone = buildPlan({
      parsers: [books],
      projects: [nightly],
      state,
      live: {
        ...empty,
        parsers: [
          { id: 'p-1', name: 'books', status: 'FINISHED', error: null, generated_at: null, version: 0 },
        ],
      },
    });
    const creates = (plan: Plan) =>
      plan.resource_changes.filter((c) => c.action === 'create').map((c) => [c.address, c.reasons]);
    expect([...creates(parserGone), ...creates(projectGone)]).toEqual([
      ['parser.books', ['deleted outside scrapeform: created again']],
      ['project.nightly', ['archived outside scrapeform: created again']],
    ]);
    expect([...parserGone.drift, ...projectGone.drift].map((d) => d.message)).toEqual([
      'parser p-1 was deleted outside scrapeform; it will be created again (new id)',
      'project 7 was archived or deleted outside scrapeform; it will be created again (new id)',
    ]);
    expect([...parserGone.warnings, ...projectGone.warnings]).toEqual([]);
    expect(refusal(parserGone)).toBeUndefined();
    expect(refusal(projectGone)).toBeUndefined();
  });
});

describe('the marker of a project created and not seen since', () => {
  it('is cleared the first time a list or a read by id shows the project, and kept while none does', () => {
    const state = stateOf({ 'project.nightly': project({ unseenSince: CREATED_AT }) });
    expect(refreshState(state, empty)).toBeUndefined();
    const seen = refreshState(state, { parsers: [], details: {}, projects: [liveProject(7, 'nightly')] });
    expect(seen?.resources['project.nightly']).toEqual(project());
  });
});
