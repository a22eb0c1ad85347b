import { describe, expect, it } from 'vitest';
import type { LiveParserSummary } from '../../../src/api/live.js';
import type { ScrapeformError } from '../../../src/errors.js';
import { checkForgets, checkRecreates } from '../../../src/plan/approval.js';
import { buildPlan } from '../../../src/plan/build-plan.js';
import { detectDrift } from '../../../src/plan/drift.js';
import type { LiveSnapshot, Plan } from '../../../src/plan/model.js';
import { projectPayload } from '../../../src/plan/plan-project.js';
import type { ParserDefinition, ParserState, ProjectState, State } from '../../../src/state/model.js';
import { thrown } from '../../helpers/failure.js';
import { desiredParser, desiredProject } from '../../helpers/desired.js';
import { liveProject } from '../../helpers/live.js';
import { parserState, stateOf } from '../../helpers/state.js';

/**
 * A key of another account (or the URL of another service) answers for none of the objects state records: no list
 * shows them and each read by id answers 404. Taken as deletions, the plan would create every one again (paid
 * duplicates). When the service shows none of two or more objects of a kind, the plan says so and apply creates
 * them again only with --recreate for each address; drift --accept keeps them.
 */
const fields = [{ name: 'title', description: 'Book title' }];
const books = desiredParser('books', fields, { urls: ['https://books.example/a.html'] });
const music = desiredParser('music', fields, { urls: ['https://books.example/b.html'] });
const definitionOf = (urls: string[]): ParserDefinition => ({ urls, scraperParams: {}, fields });
const parser = (id: string, name: string, urls: string[]): ParserState =>
  parserState({ id, name, definition: definitionOf(urls) });
const nightly = desiredProject('nightly', {
  projectInput: { type: 'list', list: ['https://books.example/1.html'] },
});
const weekly = desiredProject('weekly', {
  projectInput: { type: 'list', list: ['https://books.example/2.html'] },
});
const project = (id: number, desired: typeof nightly): ProjectState => ({
  kind: 'Project',
  id,
  name: desired.name,
  definition: projectPayload(desired),
});
const state: State = stateOf({
  'parser.books': parser('p-1', 'books', books.urls),
  'parser.music': parser('p-2', 'music', music.urls),
  'project.nightly': project(7, nightly),
  'project.weekly': project(8, weekly),
});
const empty: LiveSnapshot = { parsers: [], details: {}, projects: [] };
const summary = (id: string, name: string): LiveParserSummary => ({
  id,
  name,
  status: 'FINISHED',
  error: null,
  generated_at: null,
  version: 0,
});

const forgetRefusal = (plan: Plan, forget: string[] = []): ScrapeformError | undefined =>
  thrown(() => checkForgets(plan, forget));

const refusal = (plan: Plan, recreate: string[] = []): ScrapeformError | undefined =>
  thrown(() => checkRecreates(plan, recreate));

const PARSERS_STORY =
  'the service shows none of the 2 parsers state records (no list shows them, and each answers 404 when read by id): a key of another account, or SCRAPEFORM_PARSER_URL set to another service, reads this way, as does deleting every one of them outside scrapeform';
const PROJECTS_STORY =
  'the service shows none of the 2 projects state records (no list shows them, and each answers 404 when read by id): a key of another account, or SCRAPEFORM_PIPELINE_URL set to another service, reads this way, as does deleting every one of them outside scrapeform';

describe('the service shows none of the objects of a kind state records', () => {
  it('every create again says why first, with one warning per kind, and apply refuses it without --recreate', () => {
    const plan = buildPlan({ parsers: [books, music], projects: [nightly, weekly], state, live: empty });
    expect(plan.resource_changes.map((c) => [c.address, c.action, c.reasons])).toEqual([
      [
        'parser.books',
        'create',
        [
          `none shown: ${PARSERS_STORY}; apply creates it again only with --recreate parser.books`,
          'deleted outside scrapeform: created again',
        ],
      ],
      [
        'parser.music',
        'create',
        [
          `none shown: ${PARSERS_STORY}; apply creates it again only with --recreate parser.music`,
          'deleted outside scrapeform: created again',
        ],
      ],
      [
        'project.nightly',
        'create',
        [
          `none shown: ${PROJECTS_STORY}; apply creates it again only with --recreate project.nightly`,
          'archived outside scrapeform: created again',
        ],
      ],
      [
        'project.weekly',
        'create',
        [
          `none shown: ${PROJECTS_STORY}; apply creates it again only with --recreate project.weekly`,
          'archived outside scrapeform: created again',
        ],
      ],
    ]);
    expect(plan.warnings).toEqual([
      `${PARSERS_STORY}; apply creates none of them again without --recreate ADDR, and drops none from state without --forget ADDR, for each address (check the key and the account first: if they exist there, a create again makes a duplicate and pays a generation, and one dropped from state goes on unmanaged)`,
      `${PROJECTS_STORY}; apply creates none of them again without --recreate ADDR, and drops none from state without --forget ADDR, for each address (check the key and the account first: if they exist there, a create again makes a duplicate, and one dropped from state goes on unmanaged)`,
    ]);
    const refused = refusal(plan);
    expect(refused?.code).toBe('apply.recreate-not-approved');
    expect(refused?.status).toBe('input-needed');
    expect(refused?.message).toBe(
      "not applied: the plan creates again 4 objects of a kind the service shows none of, which a key of another account or another service's URL reads like (parser.books, parser.music, project.nightly, project.weekly); nothing was sent",
    );
    expect(refused?.hint).toBe(
      'check the key (SCRAPERAPI_API_KEY) and the service URLs first: with the right ones, the plan shows the objects again and creates nothing; after checking the account that they do not exist, pass --recreate parser.books --recreate parser.music --recreate project.nightly --recreate project.weekly; to apply the rest meanwhile, pass --exclude parser.books --exclude parser.music --exclude project.nightly --exclude project.weekly',
    );
    expect(refusal(plan, ['parser.books', 'parser.music'])?.message).toContain(
      '(project.nightly, project.weekly); nothing was sent',
    );
    expect(
      refusal(plan, ['parser.books', 'parser.music', 'project.nightly', 'project.weekly']),
    ).toBeUndefined();
  });

  it('a partial plan holds back the creates it selects, since the whole kind is gone', () => {
    const plan = buildPlan({
      parsers: [books, music],
      projects: [],
      state,
      live: empty,
      options: { targets: ['parser.music'] },
    });
    expect(plan.resource_changes.map((c) => c.reasons[0])).toEqual([
      `none shown: ${PARSERS_STORY}; apply creates it again only with --recreate parser.music`,
    ]);
    expect(refusal(plan)?.code).toBe('apply.recreate-not-approved');
  });

  it('one object of the kind still shown: the others were deleted, and are created again as before', () => {
    const plan = buildPlan({
      parsers: [books, music],
      projects: [nightly, weekly],
      state,
      live: { parsers: [summary('p-2', 'music')], details: {}, projects: [liveProject(8, 'weekly')] },
    });
    const creates = plan.resource_changes.filter((c) => c.action === 'create');
    expect(creates.map((c) => [c.address, c.reasons])).toEqual([
      ['parser.books', ['deleted outside scrapeform: created again']],
      ['project.nightly', ['archived outside scrapeform: created again']],
    ]);
    expect(plan.warnings).toEqual([]);
    expect(refusal(plan)).toBeUndefined();
  });

  it('the old parser of a replace under way still shown counts as shown', () => {
    const replacing: State = stateOf({
      'parser.books': { ...parser('p-new', 'books', books.urls), replacing: { oldId: 'p-old' } },
      'parser.music': parser('p-2', 'music', music.urls),
    });
    const plan = buildPlan({
      parsers: [books, music],
      projects: [],
      state: replacing,
      live: { parsers: [summary('p-old', 'books')], details: {}, projects: [] },
    });
    expect(plan.warnings.some((w) => w.startsWith('the service shows none'))).toBe(false);
    expect(refusal(plan, ['parser.books'])).toBeUndefined();
  });

  it('a single object of a kind gone is a deletion, as before: nothing tells it apart from another account', () => {
    const plan = buildPlan({
      parsers: [books],
      projects: [],
      state: stateOf({ 'parser.books': parser('p-1', 'books', books.urls) }),
      live: empty,
    });
    expect(plan.resource_changes.map((c) => c.reasons)).toEqual([
      ['deleted outside scrapeform: created again'],
    ]);
    expect(refusal(plan)).toBeUndefined();
  });

  /** The plan of a state of one parser and one project, with what the service shows. */
  const oneOfEach = (live: LiveSnapshot): Plan =>
    buildPlan({
      parsers: [books],
      projects: [nightly],
      state: stateOf({
        'parser.books': parser('p-1', 'books', books.urls),
        'project.nightly': project(7, nightly),
      }),
      live,
    });

  // Review: counted per kind, one parser and one project planned with another account's key were created again
  // there (a paid generation, a second scheduled project), and state then dropped the real ones.
  it('one parser and one project, both gone at once: each kind counts, and neither is created again without --recreate', () => {
    const plan = oneOfEach(empty);
    const story = (what: string, url: string): string =>
      `the service shows none of the objects state records, the one ${what} among them (no list shows them, and each answers 404 when read by id): a key of another account, or ${url} set to another service, reads this way, as does deleting every one of them outside scrapeform`;
    expect(plan.resource_changes.map((c) => [c.address, c.action, c.reasons[0]])).toEqual([
      [
        'parser.books',
        'create',
        `none shown: ${story('parser', 'SCRAPEFORM_PARSER_URL')}; apply creates it again only with --recreate parser.books`,
      ],
      [
        'project.nightly',
        'create',
        `none shown: ${story('project', 'SCRAPEFORM_PIPELINE_URL')}; apply creates it again only with --recreate project.nightly`,
      ],
    ]);
    expect(refusal(plan)?.code).toBe('apply.recreate-not-approved');
    expect(refusal(plan, ['parser.books', 'project.nightly'])).toBeUndefined();
  });

  it('one object of a kind gone while the other kind is shown is a deletion, as before', () => {
    const plan = oneOfEach({ parsers: [], details: {}, projects: [liveProject(7, 'nightly')] });
    expect(plan.resource_changes.filter((c) => c.action === 'create').map((c) => c.reasons)).toEqual([
      ['deleted outside scrapeform: created again'],
    ]);
    expect(refusal(plan)).toBeUndefined();
  });

  it('with another key: one object gone while others are shown is a deletion (a key rotated in the account)', () => {
    // Review: the key's change skipped the check that the other objects are shown.
    const plan = buildPlan({
      parsers: [books, music],
      projects: [nightly],
      state: stateOf({
        'parser.books': parser('p-1', 'books', books.urls),
        'parser.music': parser('p-2', 'music', music.urls),
        'project.nightly': project(7, nightly),
      }),
      live: { parsers: [summary('p-1', 'books'), summary('p-2', 'music')], details: {}, projects: [] },
      keyChanged: true,
    });
    expect(plan.resource_changes.filter((c) => c.action === 'create').map((c) => c.reasons)).toEqual([
      ['archived outside scrapeform: created again'],
    ]);
    expect(plan.warnings).toEqual([]);
  });

  it('with another key: a single object gone is held, with the key named in the reason', () => {
    const plan = buildPlan({
      parsers: [books],
      projects: [],
      state: stateOf({ 'parser.books': parser('p-1', 'books', books.urls) }),
      live: empty,
      keyChanged: true,
    });
    expect(plan.resource_changes[0]?.reasons[0]).toContain(
      'the one parser among them (no list shows them, and each answers 404 when read by id), and the key is not the one that last applied this state',
    );
    expect(refusal(plan)?.code).toBe('apply.recreate-not-approved');
  });

  it('an object no manifest declares any more is dropped from state only with --forget, as the creates are held', () => {
    const plan = buildPlan({
      parsers: [books],
      projects: [],
      state: stateOf({
        'parser.books': parser('p-1', 'books', books.urls),
        'parser.music': parser('p-2', 'music', music.urls),
      }),
      live: empty,
    });
    expect(plan.resource_changes.map((c) => [c.address, c.action, c.reasons[0]])).toEqual([
      [
        'parser.books',
        'create',
        `none shown: ${PARSERS_STORY}; apply creates it again only with --recreate parser.books`,
      ],
      [
        'parser.music',
        'forget',
        `none shown: ${PARSERS_STORY}; apply drops it from state only with --forget parser.music`,
      ],
    ]);
    expect(refusal(plan, ['parser.books'])).toBeUndefined();
    const refused = forgetRefusal(plan);
    expect(refused?.code).toBe('apply.forget-not-approved');
    expect(refused?.status).toBe('input-needed');
    expect(refused?.message).toBe(
      "not applied: the plan drops from state an object no manifest declares, of a kind the service shows none of, which a key of another account or another service's URL reads like (parser.music); nothing was sent",
    );
    expect(refused?.hint).toBe(
      'check the key (SCRAPERAPI_API_KEY) and the service URLs first: with the right ones, the plan deletes or archives it instead; after checking the account that it is gone, pass --forget parser.music; to apply the rest meanwhile, pass --exclude parser.music',
    );
    expect(forgetRefusal(plan, ['parser.music'])).toBeUndefined();
  });

  it('a plan of forgets alone warns too: every manifest of the kind removed, with the key of another account', () => {
    const plan = buildPlan({ parsers: [], projects: [], state, live: empty });
    expect(plan.resource_changes.map((c) => [c.action, c.reasons[0]?.split(':')[0]])).toEqual([
      ['forget', 'none shown'],
      ['forget', 'none shown'],
      ['forget', 'none shown'],
      ['forget', 'none shown'],
    ]);
    expect(plan.warnings).toEqual([
      `${PARSERS_STORY}; apply creates none of them again without --recreate ADDR, and drops none from state without --forget ADDR, for each address (check the key and the account first: if they exist there, a create again makes a duplicate and pays a generation, and one dropped from state goes on unmanaged)`,
      `${PROJECTS_STORY}; apply creates none of them again without --recreate ADDR, and drops none from state without --forget ADDR, for each address (check the key and the account first: if they exist there, a create again makes a duplicate, and one dropped from state goes on unmanaged)`,
    ]);
    expect(forgetRefusal(plan)?.message).toContain(
      '4 objects no manifest declares, of a kind the service shows none of',
    );
    expect(refusal(plan)).toBeUndefined();
  });

  it('drift reports them deleted, and --accept keeps them in state and in the manifests', () => {
    const report = detectDrift({ state, live: empty });
    expect(report.drift.map((d) => [d.address, d.drift, d.accept.possible])).toEqual([
      ['parser.books', 'deleted', false],
      ['parser.music', 'deleted', false],
      ['project.nightly', 'deleted', false],
      ['project.weekly', 'deleted', false],
    ]);
    expect(report.drift[0]?.accept.note).toBe(
      `kept in state and in the manifests: ${PARSERS_STORY}; check the key and the service URLs, and if every one was deleted, remove their documents by hand`,
    );
    expect(report.warnings).toEqual([
      `${PARSERS_STORY}; drift --accept keeps them in state and in the manifests (check the key and the account first)`,
      `${PROJECTS_STORY}; drift --accept keeps them in state and in the manifests (check the key and the account first)`,
    ]);
    expect(report.summary.accept).toEqual({ calls: 0, regenerations: 0, credits: 0 });
  });
});
