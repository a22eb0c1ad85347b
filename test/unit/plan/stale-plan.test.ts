import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DesiredField } from '../../../src/model/desired.js';
import { buildPlan, summarise } from '../../../src/plan/build-plan.js';
import type { Plan } from '../../../src/plan/model.js';
import { parseSavedPlan } from '../../../src/plan/plan-file.js';
import { renderSavedPlan } from '../../../src/output/render-saved-plan.js';
import { refuseStalePlan as refuseWith } from '../../../src/plan/stale-plan.js';
import { desiredParser } from '../../helpers/desired.js';
import { failure } from '../../helpers/failure.js';

/** The check with no object protected by prevent_destroy unless `protectedNow` names it. */
const refuseStalePlan = (
  saved: Plan,
  fresh: Plan,
  state: { lineage: string; serial: number },
  protectedNow: readonly string[] = [],
): void => refuseWith(saved, fresh, state, new Set(protectedNow));

describe('refuseStalePlan', () => {
  const planAt = (lineage: string, serial: number, live: Record<string, string>): Plan => ({
    format_version: 1,
    status: 'no_changes',
    summary: summarise([]),
    resource_changes: [],
    drift: [],
    warnings: [],
    fingerprint: { state_lineage: lineage, state_serial: serial, live },
  });
  /** A change as the planner makes it: these fields over a free, non-destructive one with no field changes. */
  const changeOf = (fields: Record<string, unknown>): Plan['resource_changes'][number] =>
    ({
      regenerates: false,
      destructive: false,
      field_changes: [],
      breaking: [],
      ...fields,
    }) as unknown as Plan['resource_changes'][number];
  /** A plan of these changes (status and summary theirs), against state L at serial 3. */
  const withChanges = (changes: Plan['resource_changes'], live: Record<string, string> = {}): Plan => ({
    ...planAt('L', 3, live),
    status: 'changes' as const,
    summary: summarise(changes),
    resource_changes: changes,
  });

  it('accepts a plan whose state and live versions have not moved', () => {
    const saved = planAt('L', 3, { 'parser.a': 'p-1@2' });
    expect(() =>
      refuseStalePlan(saved, planAt('L', 3, { 'parser.a': 'p-1@2' }), { lineage: 'L', serial: 3 }),
    ).not.toThrow();
  });

  it('lists everything that moved', () => {
    const saved = planAt('L', 3, { 'parser.a': 'p-1@2', 'project.b': '7#abc' });
    const fresh = planAt('L', 4, { 'parser.a': 'p-1@3' });
    expect(failure(() => refuseStalePlan(saved, fresh, { lineage: 'L', serial: 4 }))).toEqual({
      code: 'apply.plan-stale',
      message:
        'refusing the saved plan: the state moved (serial 3 -> 4); parser.a moved (p-1@2 -> p-1@3); project.b moved (7#abc -> gone)',
    });
    expect(failure(() => refuseStalePlan(saved, saved, { lineage: 'M', serial: 3 })).message).toBe(
      'refusing the saved plan: the state is another one (lineage differs)',
    );
  });

  it('a create a fresh plan no longer makes (a list shows what an earlier run created) is stale: no second object', () => {
    const create = changeOf({
      address: 'parser.a',
      kind: 'Parser',
      name: 'a',
      action: 'create',
      id: null,
      reasons: ['unconfirmed create: …'],
      definition: { urls: ['https://books.example/a.html'], scraperParams: {}, fields: [] },
      regenerates: true,
    });
    const saved = withChanges([create]);
    expect(() => refuseStalePlan(saved, saved, { lineage: 'L', serial: 3 })).not.toThrow();
    expect(failure(() => refuseStalePlan(saved, planAt('L', 3, {}), { lineage: 'L', serial: 3 }))).toEqual({
      code: 'apply.plan-stale',
      message: 'refusing the saved plan: parser.a: the saved plan creates it and a fresh plan no longer does',
    });
  });

  describe("the changes a fresh plan makes, by address and action, are the saved plan's (an edited file, digest recomputed)", () => {
    const update = (address: string): Plan['resource_changes'][number] =>
      changeOf({
        address,
        kind: 'Project',
        name: address.slice('project.'.length),
        action: 'update',
        id: 7,
        reasons: ['changed: scrapingInterval'],
        changed: { scrapingInterval: 'daily' },
        definition: { scrapingInterval: 'daily' },
      });
    const state = { lineage: 'L', serial: 3 };
    const fresh = withChanges([update('project.a'), update('project.b')]);

    it('refuses a saved plan that leaves out a change a fresh plan makes, naming it', () => {
      expect(() => refuseStalePlan(fresh, fresh, state)).not.toThrow();
      expect(failure(() => refuseStalePlan(withChanges([update('project.a')]), fresh, state))).toEqual({
        code: 'apply.plan-stale',
        message:
          'refusing the saved plan: project.b: a fresh plan updates it, and the saved plan makes no change to it',
      });
      expect(failure(() => refuseStalePlan(planAt('L', 3, {}), fresh, state)).message).toBe(
        'refusing the saved plan: project.a: a fresh plan updates it, and the saved plan makes no change to it; project.b: a fresh plan updates it, and the saved plan makes no change to it',
      );
    });

    it('refuses a change the saved plan makes with another action than a fresh plan', () => {
      const adopt = { ...update('project.b'), action: 'adopt' } as Plan['resource_changes'][number];
      expect(
        failure(() => refuseStalePlan(withChanges([update('project.a'), adopt]), fresh, state)).message,
      ).toBe('refusing the saved plan: project.b: the saved plan adopts it, and a fresh plan updates it');
    });

    it('a record made with --accept-unknown stands for the update a fresh plan makes, with its definition', () => {
      const definition = { urls: ['https://books.example/a.html'], scraperParams: {}, fields: [] };
      const parser = (action: 'record' | 'update', fields = definition): Plan['resource_changes'][number] =>
        changeOf({
          address: 'parser.a',
          kind: 'Parser',
          name: 'a',
          action,
          id: 'p-1',
          reasons: [],
          definition: fields,
          waves: [],
        });
      const live = { 'parser.a': 'p-1@0' };
      const saved = withChanges([parser('record')], live);
      expect(() => refuseStalePlan(saved, withChanges([parser('update')], live), state)).not.toThrow();
      expect(() => refuseStalePlan(saved, planAt('L', 3, live), state)).not.toThrow();
      const edited = withChanges(
        [parser('update', { ...definition, urls: ['https://books.example/b.html'] })],
        live,
      );
      expect(failure(() => refuseStalePlan(saved, edited, state)).message).toBe(
        'refusing the saved plan: parser.a: the saved plan records another definition than a fresh plan',
      );
    });

    it('a plan made with --target or --exclude is held to the objects it chose', () => {
      const partial = (warning: string, changes = [update('project.a')]): Plan => ({
        ...withChanges(changes),
        warnings: [
          `partial plan: ${warning}; changes to other objects are neither shown nor applied, and a plan without these flags may have more`,
        ],
      });
      expect(() => refuseStalePlan(partial('only project.a (--target)'), fresh, state)).not.toThrow();
      expect(() => refuseStalePlan(partial('without project.b (--exclude)'), fresh, state)).not.toThrow();
      expect(
        failure(() => refuseStalePlan(partial('only project.a, project.b (--target)'), fresh, state)).message,
      ).toBe(
        'refusing the saved plan: project.b: a fresh plan updates it, and the saved plan makes no change to it',
      );
      // Narrowed by paths the file does not list: held to the objects it names, unless a fresh plan is narrowed alike.
      const paths = 'only the objects declared under prod/a (paths given)';
      expect(() => refuseStalePlan(partial(paths), fresh, state)).not.toThrow();
      expect(
        failure(() => refuseStalePlan(partial(paths), partial(paths, fresh.resource_changes), state)).message,
      ).toBe(
        'refusing the saved plan: project.b: a fresh plan updates it, and the saved plan makes no change to it',
      );
    });

    it('a plan that records its selection is held to it, whatever its warning says', () => {
      const chosen = (targets: string[], excludes: string[] = []): Plan => ({
        ...withChanges([update('project.a')]),
        warnings: ['partial plan: reworded by a later version'],
        selection: { targets, excludes, paths: [] },
      });
      expect(() => refuseStalePlan(chosen(['project.a']), fresh, state)).not.toThrow();
      expect(() => refuseStalePlan(chosen([], ['project.b']), fresh, state)).not.toThrow();
      expect(failure(() => refuseStalePlan(chosen(['project.a', 'project.b']), fresh, state)).message).toBe(
        'refusing the saved plan: project.b: a fresh plan updates it, and the saved plan makes no change to it',
      );
      // Narrowed by paths: held to the objects it names unless a fresh plan is narrowed by the same paths.
      const narrowed = (paths: string[], changes = [update('project.a')]): Plan => ({
        ...withChanges(changes),
        selection: { targets: [], excludes: [], paths },
      });
      expect(() => refuseStalePlan(narrowed(['prod/a']), fresh, state)).not.toThrow();
      expect(
        failure(() =>
          refuseStalePlan(narrowed(['prod/a']), narrowed(['prod/a'], fresh.resource_changes), state),
        ).message,
      ).toBe(
        'refusing the saved plan: project.b: a fresh plan updates it, and the saved plan makes no change to it',
      );
    });
  });

  describe('the workspace and state a plan was made for', () => {
    const services = {
      environment: null,
      parsers: 'http://127.0.0.1:8780',
      projects: 'http://127.0.0.1:8780',
    };
    const forState = (workspace: string, location: string, lineage = ''): Plan => ({
      ...planAt(lineage, 0, {}),
      fingerprint: {
        state_lineage: lineage,
        state_serial: 0,
        live: {},
        target: { ...services, state: { workspace, location } },
      },
    });
    const staging = forState('staging', '.scrapeform/staging/state.json');
    const production = forState('production', '.scrapeform/production/state.json');
    const empty = { lineage: '', serial: 0 };

    it('a plan saved for one workspace is refused in another, even when neither state exists yet', () => {
      expect(() => refuseStalePlan(staging, staging, empty)).not.toThrow();
      expect(failure(() => refuseStalePlan(staging, production, empty))).toEqual({
        code: 'apply.plan-stale',
        message:
          'refusing the saved plan: it was made for workspace staging (state .scrapeform/staging/state.json), and this run is for workspace production (state .scrapeform/production/state.json)',
      });
      // Another state of the same workspace name (another database, another file).
      const elsewhere = forState('staging', 'postgres://db.internal:5432/scrapeform');
      expect(failure(() => refuseStalePlan(staging, elsewhere, empty)).message).toBe(
        'refusing the saved plan: it was made for workspace staging (state .scrapeform/staging/state.json), and this run is for workspace staging (state postgres://db.internal:5432/scrapeform)',
      );
    });

    it('a plan saved before the state was recorded: its lineage ties it to a written state; with none, it is refused', () => {
      const older = (lineage: string, target?: typeof services): Plan => ({
        ...planAt(lineage, 3, {}),
        fingerprint: {
          state_lineage: lineage,
          state_serial: 3,
          live: {},
          ...(target !== undefined ? { target } : {}),
        },
      });
      const written = forState('production', '.scrapeform/production/state.json', 'L');
      written.fingerprint.state_serial = 3;
      expect(() => refuseStalePlan(older('L', services), written, { lineage: 'L', serial: 3 })).not.toThrow();
      expect(() => refuseStalePlan(older('L'), written, { lineage: 'L', serial: 3 })).not.toThrow();
      const notYet = forState('production', '.scrapeform/production/state.json');
      notYet.fingerprint.state_serial = 3;
      expect(failure(() => refuseStalePlan(older('', services), notYet, { lineage: '', serial: 3 }))).toEqual(
        {
          code: 'apply.plan-stale',
          message:
            'refusing the saved plan: it was saved by an earlier scrapeform, which did not record the workspace and state it was made for, before any state existed, so nothing ties it to workspace production (state .scrapeform/production/state.json)',
        },
      );
      // Services still compared as before: the state is compared beside them, not instead.
      const otherServices = { ...services, parsers: 'https://aiparser.example' };
      expect(
        failure(() => refuseStalePlan(older('L', otherServices), written, { lineage: 'L', serial: 3 }))
          .message,
      ).toBe(
        'refusing the saved plan: it was made for https://aiparser.example and http://127.0.0.1:8780, and this run is for http://127.0.0.1:8780 and http://127.0.0.1:8780',
      );
    });

    it('a state file named by a relative path at plan time and an absolute one at apply time is the same state', () => {
      const absolute = forState(
        'staging',
        `${process.cwd().split(path.sep).join('/')}/.scrapeform/staging/state.json`,
      );
      expect(() => refuseStalePlan(staging, absolute, empty)).not.toThrow();
      expect(() => refuseStalePlan(absolute, staging, empty)).not.toThrow();
    });

    it('a plan saved before any state existed, applied once the same state was written, says the state was created since', () => {
      expect(failure(() => refuseStalePlan(staging, staging, { lineage: 'L', serial: 1 }))).toEqual({
        code: 'apply.plan-stale',
        message: 'refusing the saved plan: the state was created since the plan was saved (serial 0 -> 1)',
      });
    });

    it('a saved plan keeps the state it records (one without it is read as before: the fixtures)', () => {
      const text = renderSavedPlan(staging);
      expect(parseSavedPlan(text, 'plan.json').fingerprint.target?.state).toEqual({
        workspace: 'staging',
        location: '.scrapeform/staging/state.json',
      });
    });
  });

  it('what approval reads must be what a fresh plan says: an edited file given a new digest is refused', () => {
    const remove = changeOf({
      address: 'parser.a',
      kind: 'Parser',
      name: 'a',
      action: 'delete',
      id: 'p-1',
      reasons: ['no manifest declares it any more'],
      destructive: true,
    });
    const fresh = withChanges([remove], { 'parser.a': 'p-1@2' });
    expect(() => refuseStalePlan(fresh, fresh, { lineage: 'L', serial: 3 })).not.toThrow();
    // A delete marked not destructive would go through without --allow-destroy.
    const unmarked = { ...remove, destructive: false };
    const forged = { ...fresh, summary: summarise([unmarked]), resource_changes: [unmarked] };
    expect(failure(() => refuseStalePlan(forged, fresh, { lineage: 'L', serial: 3 })).message).toBe(
      'refusing the saved plan: parser.a: the saved plan has destructive false, a fresh plan true',
    );
    // Counts that are not its changes' (a regeneration hidden from --max-regenerations).
    const miscounted = { ...fresh, summary: { ...fresh.summary, delete: 0 } };
    expect(failure(() => refuseStalePlan(miscounted, fresh, { lineage: 'L', serial: 3 })).message).toBe(
      'refusing the saved plan: its summary does not count its own changes',
    );
    // A delete a fresh plan does not make (its manifest was restored since) is refused, marked or not.
    const unplanned = { ...planAt('L', 3, { 'parser.a': 'p-1@2' }), status: 'changes' as const };
    for (const saved of [fresh, forged])
      expect(failure(() => refuseStalePlan(saved, unplanned, { lineage: 'L', serial: 3 }))).toEqual({
        code: 'apply.plan-stale',
        message:
          'refusing the saved plan: parser.a: the saved plan deletes it, and a fresh plan makes no change to it',
      });
  });

  it('never deletes, archives or replaces an object prevent_destroy protects now, whatever a fresh plan makes', () => {
    const archive = changeOf({
      address: 'project.b',
      kind: 'Project',
      name: 'b',
      action: 'archive',
      id: 7,
      reasons: ['no manifest declares it any more'],
      destructive: true,
    });
    const saved = withChanges([archive], { 'project.b': '7#abc' });
    expect(() => refuseStalePlan(saved, saved, { lineage: 'L', serial: 3 })).not.toThrow();
    expect(failure(() => refuseStalePlan(saved, saved, { lineage: 'L', serial: 3 }, ['project.b']))).toEqual({
      code: 'apply.plan-stale',
      message:
        'refusing the saved plan: project.b: the saved plan archives it, and lifecycle.prevent_destroy protects it now',
    });
  });

  describe('a change a fresh plan makes with the same action must make the same calls (an edited file, digest recomputed)', () => {
    const remove = (id: string): Plan['resource_changes'][number] =>
      changeOf({
        address: 'parser.b',
        kind: 'Parser',
        name: 'b',
        action: 'delete',
        id,
        reasons: ['no manifest declares it any more'],
        destructive: true,
      });

    it("refuses a delete carrying another parser's id", () => {
      const fresh = withChanges([remove('p-b')]);
      expect(() => refuseStalePlan(fresh, fresh, { lineage: 'L', serial: 3 })).not.toThrow();
      expect(
        failure(() => refuseStalePlan(withChanges([remove('p-a')]), fresh, { lineage: 'L', serial: 3 })),
      ).toEqual({
        code: 'apply.plan-stale',
        message:
          'refusing the saved plan: parser.b: the saved plan has id p-a, a fresh plan p-b; parser.b: the saved plan makes other calls than a fresh plan (DELETE /parsers/p-a, where a fresh plan sends DELETE /parsers/p-b)',
      });
    });

    it("refuses any change carrying an id other than the object's at its address, though a fresh plan makes none", () => {
      // A project update, edited to PATCH another project: a fresh plan (nothing to change) has no change to compare
      // it with, but it sees project.b as 7.
      const update = changeOf({
        address: 'project.b',
        kind: 'Project',
        name: 'b',
        action: 'update',
        id: 9,
        reasons: ['changed: scrapingInterval'],
        changed: { scrapingInterval: 'daily' },
        definition: { scrapingInterval: 'daily' },
      });
      const live = { 'project.b': '7#abc' };
      expect(
        failure(() =>
          refuseStalePlan(withChanges([update], live), planAt('L', 3, live), { lineage: 'L', serial: 3 }),
        ),
      ).toEqual({
        code: 'apply.plan-stale',
        message:
          'refusing the saved plan: project.b: the saved plan acts on 9, and the object there is 7; project.b: the saved plan updates it, and a fresh plan makes no change to it',
      });
      const ours = { ...update, id: 7 } as Plan['resource_changes'][number];
      expect(() =>
        refuseStalePlan(withChanges([ours], live), withChanges([ours], live), { lineage: 'L', serial: 3 }),
      ).not.toThrow();
    });

    it('refuses a project update whose PATCH body or recorded definition is not what a fresh plan sends', () => {
      const definition = {
        projectType: 'urls',
        projectInput: { type: 'list', list: ['https://books.example/a.html'] },
        scrapingInterval: 'daily',
      };
      const update = (
        changed: Record<string, unknown>,
        recorded = definition,
      ): Plan['resource_changes'][number] =>
        changeOf({
          address: 'project.c',
          kind: 'Project',
          name: 'c',
          action: 'update',
          id: 7,
          reasons: ['changed: scrapingInterval'],
          changed,
          definition: recorded,
        });
      const fresh = withChanges([update({ scrapingInterval: 'daily' })]);
      expect(() => refuseStalePlan(fresh, fresh, { lineage: 'L', serial: 3 })).not.toThrow();
      const body = withChanges([update({ scrapingInterval: 'daily', projectType: 'google_search' })]);
      expect(failure(() => refuseStalePlan(body, fresh, { lineage: 'L', serial: 3 })).message).toBe(
        'refusing the saved plan: project.c: the saved plan makes other calls than a fresh plan (PATCH /api/projects/7 with another body)',
      );
      const recorded = withChanges([
        update({ scrapingInterval: 'daily' }, { ...definition, scrapingInterval: 'weekly' }),
      ]);
      expect(failure(() => refuseStalePlan(recorded, fresh, { lineage: 'L', serial: 3 })).message).toBe(
        'refusing the saved plan: project.c: the saved plan records another definition than a fresh plan',
      );
    });

    it('refuses a parser update saved before the manifest changed the same field again (same PATCH path)', () => {
      const urls = ['https://books.example/q.html'];
      const planOf = (fields: DesiredField[], options: { reassert?: string[] } = {}): Plan =>
        buildPlan({
          parsers: [desiredParser('q', fields, { urls })],
          projects: [],
          state: {
            format_version: 1,
            serial: 3,
            lineage: 'L',
            resources: {
              'parser.q': {
                kind: 'Parser',
                id: 'p-q',
                name: 'q',
                version: 0,
                definition: { urls, scraperParams: {}, fields: [{ name: 'title', description: 'Title' }] },
                descriptionsKnown: true,
              },
            },
          },
          live: {
            parsers: [
              { id: 'p-q', name: 'q', status: 'FINISHED', error: null, generated_at: null, version: 0 },
            ],
            details: {},
            projects: [],
          },
          options,
        });
      const saved = planOf([{ name: 'title', description: 'Book title' }]);
      const state = { lineage: 'L', serial: 3 };
      expect(() =>
        refuseStalePlan(saved, planOf([{ name: 'title', description: 'Book title' }]), state),
      ).not.toThrow();
      // --reassert at plan time changes the bodies, not what the manifest declares: still the reviewed plan.
      const reasserted = planOf([{ name: 'title', description: 'Book title' }], { reassert: ['parser.q'] });
      expect(() => refuseStalePlan(reasserted, saved, state)).not.toThrow();
      // The manifest now asks for another description: the reviewed PATCH would send the old one.
      const edited = planOf([{ name: 'title', description: 'Full book title' }]);
      expect(failure(() => refuseStalePlan(saved, edited, state)).message).toBe(
        'refusing the saved plan: parser.q: the saved plan records another definition than a fresh plan',
      );
      // A file edited (and given a new digest) to remove or rename a field the reviewed plan keeps: those calls do
      // not follow from --reassert or --accept-unknown, so they must be a fresh plan's.
      const [change] = saved.resource_changes;
      if (change?.kind !== 'Parser' || change.action !== 'update')
        throw new Error('expected a parser update');
      for (const extra of [
        { remove_fields: ['price'] },
        { rename_fields: [{ name: 'title', new_name: 'name' }] },
      ]) {
        const tampered: Plan = {
          ...saved,
          resource_changes: [{ ...change, waves: change.waves.map((w) => ({ ...w, ...extra })) }],
        };
        expect(failure(() => refuseStalePlan(tampered, saved, state)).message).toBe(
          'refusing the saved plan: parser.q: the saved plan removes or renames other fields than a fresh plan',
        );
      }
    });
  });
});
