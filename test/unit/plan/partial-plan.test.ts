import { describe, expect, it } from 'vitest';
import { renderPlanMarkdown } from '../../../src/output/render-plan-markdown.js';
import { summarisePlan } from '../../../src/output/render-plan.js';
import { buildPlan } from '../../../src/plan/build-plan.js';
import type { Plan } from '../../../src/plan/model.js';
import { partialPlanWarning, planSelection, savedSelection } from '../../../src/plan/partial-plan.js';
import { toPlanJson } from '../../../src/plan/plan-json.js';
import type { State } from '../../../src/state/model.js';
import { desiredParser } from '../../helpers/desired.js';
import { liveProject } from '../../helpers/live.js';

const state: State = { format_version: 1, serial: 1, lineage: 'L', resources: {} };
const live = { parsers: [], details: {}, projects: [] };
const parsers = [desiredParser('a'), desiredParser('b')];

describe('a plan made with --target or --exclude says it is partial', () => {
  it('in its warnings, first, and never "No changes" for the objects it left out', () => {
    const plan = buildPlan({
      parsers,
      projects: [],
      state,
      live,
      options: { excludes: ['parser.a', 'parser.b'] },
    });
    expect(plan.resource_changes).toEqual([]);
    expect(plan.warnings[0]).toBe(
      'partial plan: without parser.a, parser.b (--exclude); changes to other objects are neither shown nor applied, and a plan without these flags may have more',
    );
    expect(summarisePlan(plan)).toBe(
      'No changes among the objects selected (a partial plan: see its warning).',
    );
    expect(renderPlanMarkdown(plan)).toContain('partial plan: without parser.a, parser.b (--exclude)');
  });

  it('with changes too; a whole plan has no such warning', () => {
    const targeted = buildPlan({ parsers, projects: [], state, live, options: { targets: ['parser.a'] } });
    expect(targeted.resource_changes.map((c) => c.address)).toEqual(['parser.a']);
    expect(targeted.warnings[0]).toMatch(/^partial plan: only parser\.a \(--target\);/);
    const whole = buildPlan({ parsers, projects: [], state, live });
    expect(whole.warnings.some((w) => w.startsWith('partial plan:'))).toBe(false);
  });
});

describe('a plan narrowed by paths given with --env', () => {
  it('plans only the objects declared under them: what state holds elsewhere is never deleted or archived', () => {
    const held: State = {
      ...state,
      resources: {
        'parser.retired': {
          kind: 'Parser',
          id: 'p-retired',
          name: 'retired',
          version: 1,
          definition: { urls: ['https://books.example/retired/a.html'], scraperParams: {}, fields: [] },
          descriptionsKnown: true,
        },
        'project.old-crawl': { kind: 'Project', id: 8, name: 'old-crawl', definition: {} },
      },
    };
    const withLive = {
      parsers: [
        {
          id: 'p-retired',
          name: 'retired',
          status: 'FINISHED',
          error: null,
          generated_at: '2026-11-01T00:00:00.000Z',
          version: 1,
        },
      ],
      details: {},
      projects: [
        liveProject(8, 'old-crawl', { projectInput: { type: 'list', list: ['https://b.example/1'] } }),
      ],
    } as Parameters<typeof buildPlan>[0]['live'];
    const whole = buildPlan({ parsers, projects: [], state: held, live: withLive });
    expect(whole.resource_changes.map((c) => [c.address, c.action])).toEqual([
      ['parser.a', 'create'],
      ['parser.b', 'create'],
      ['parser.retired', 'delete'],
      ['project.old-crawl', 'archive'],
    ]);
    const narrowed = buildPlan({
      parsers,
      projects: [],
      state: held,
      live: withLive,
      options: { narrowedTo: { paths: ['teams/a'], addresses: ['parser.a'] } },
    });
    expect(narrowed.resource_changes.map((c) => [c.address, c.action])).toEqual([['parser.a', 'create']]);
    expect(narrowed.warnings[0]).toBe(
      'partial plan: only the objects declared under teams/a (paths given); changes to other objects are neither shown nor applied, and a plan without these flags may have more',
    );
    // In a pull request, right under the summary line, with the objects whose deletes no path selects: not in the
    // collapsed warnings.
    const markdown = renderPlanMarkdown(narrowed);
    expect(markdown).toContain(
      [
        '**Plan: 1 to create (1 regeneration, ~30,000 credits).**',
        '',
        '> [!NOTE]',
        '> - partial plan: only the objects declared under teams/a (paths given); changes to other objects are neither shown nor applied, and a plan without these flags may have more',
        '> - parser.retired, project.old-crawl: state manages them and no manifest of the environment declares them any more, so no path selects them; a plan without paths deletes or archives them',
        '',
        '| adopt |',
      ].join('\n'),
    );
    expect(markdown).not.toContain('<summary>Warnings</summary>');
  });
});

describe('a saved partial plan read back (savedSelection): what --target and --exclude chose', () => {
  const addresses = ['parser.a', 'parser.b', 'parser.ab', 'parser.a, b'];
  const read = (s: ReturnType<typeof savedSelection>): string[] => addresses.filter((a) => s.chose(a));
  const planWith = (options: Parameters<typeof buildPlan>[0]['options']): Plan =>
    buildPlan({ parsers, projects: [], state, live, ...(options !== undefined ? { options } : {}) });
  /** A plan as scrapeform saved it before `selection` was recorded: the choice only in its warning. */
  const earlier = (plan: Plan): Plan => {
    const { selection: _selection, ...rest } = plan;
    return rest;
  };

  it('records the choice as data, and reads it back whatever an address holds', () => {
    const targeted = planWith({ targets: ['parser.a, b'], excludes: ['parser.b'] });
    expect(targeted.selection).toEqual({ targets: ['parser.a, b'], excludes: ['parser.b'], paths: [] });
    expect(toPlanJson(targeted).selection).toEqual(targeted.selection);
    expect(read(savedSelection(targeted))).toEqual(['parser.a, b']);
    expect(read(savedSelection(planWith({ excludes: ['parser.a, b'] })))).toEqual([
      'parser.a',
      'parser.b',
      'parser.ab',
    ]);
    // Read from the warning, the name is two addresses: a choice wider than made (which only holds changes back).
    expect(read(savedSelection(earlier(planWith({ targets: ['parser.a, b'] }))))).toEqual([
      'parser.a',
      'parser.a, b',
    ]);
    const whole = planWith(undefined);
    expect(whole.selection).toBeUndefined();
    expect('selection' in toPlanJson(whole)).toBe(false);
    expect(read(savedSelection(whole))).toEqual(addresses);
  });

  it('reads a plan saved before it was recorded from its warning, whatever flags were combined', () => {
    const chose = (
      narrowed: { paths: string[]; addresses: string[] } | undefined,
      targets: string[],
      excludes: string[],
    ): ReturnType<typeof savedSelection> =>
      savedSelection({
        ...planWith(undefined),
        warnings: [partialPlanWarning(planSelection(narrowed, targets, excludes)) ?? ''],
      });
    expect(partialPlanWarning(planSelection(undefined, [], []))).toBeUndefined();
    expect(read(chose(undefined, ['parser.a'], []))).toEqual(['parser.a']);
    expect(read(chose(undefined, [], ['parser.a']))).toEqual(['parser.b', 'parser.ab', 'parser.a, b']);
    expect(read(chose(undefined, ['parser.a', 'parser.b'], ['parser.b']))).toEqual(['parser.a']);
    const narrowed = chose({ paths: ['teams/a', 'teams/b'], addresses: [] }, ['parser.b'], ['parser.a']);
    expect(read(narrowed)).toEqual(['parser.b']);
    // Narrowed by paths: a fresh plan narrowed by the same paths, told by its warning.
    const byPaths = (paths: string[]): Plan =>
      planWith({ narrowedTo: { paths, addresses: ['parser.a'] }, targets: ['parser.a'] });
    expect(narrowed.samePaths(byPaths(['teams/a', 'teams/b']))).toBe(true);
    expect(narrowed.samePaths(byPaths(['teams/a']))).toBe(false);
    expect(narrowed.samePaths(planWith(undefined))).toBe(false);
    expect(chose(undefined, ['parser.a'], []).samePaths(planWith(undefined))).toBe(true);
  });

  it('paths read from selection: the same paths, in the same order, as a fresh plan was narrowed by', () => {
    const byPaths = (paths: string[]): Plan => planWith({ narrowedTo: { paths, addresses: ['parser.a'] } });
    const saved = byPaths(['teams/a, b', 'teams/c']);
    expect(saved.selection).toEqual({ targets: [], excludes: [], paths: ['teams/a, b', 'teams/c'] });
    const selection = savedSelection(saved);
    expect(read(selection)).toEqual(addresses);
    expect(selection.samePaths(byPaths(['teams/a, b', 'teams/c']))).toBe(true);
    expect(selection.samePaths(byPaths(['teams/a', 'b', 'teams/c']))).toBe(false);
    expect(selection.samePaths(byPaths(['teams/a, b']))).toBe(false);
    expect(selection.samePaths(planWith(undefined))).toBe(false);
    expect(savedSelection(planWith({ targets: ['parser.a'] })).samePaths(planWith(undefined))).toBe(true);
  });
});
