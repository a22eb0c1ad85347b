import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScrapeformError } from '../../../src/errors.js';
import { renderPlanJson } from '../../../src/output/render-plan-json.js';
import type { Plan } from '../../../src/plan/model.js';
import { parsePlanFile, parseSavedPlan } from '../../../src/plan/plan-file.js';
import { renderSavedPlan } from '../../../src/plan/save-plan.js';
import { refuseStalePlan } from '../../../src/plan/stale-plan.js';
import { summarise } from '../../../src/plan/build-plan.js';

const fixtures = path.resolve(import.meta.dirname, '../../fixtures/plan-json');
const NAMES = ['fresh', 'history', 'failures'] as const;

async function fixture(name: string): Promise<string> {
  return readFile(path.join(fixtures, `${name}.json`), 'utf8');
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the edits break the plan's types on purpose
type Edited = any;

/** The fixture as JSON, edited by `edit`, back to text. */
async function edited(name: string, edit: (plan: Edited) => void): Promise<string> {
  const plan = JSON.parse(await fixture(name)) as Edited;
  edit(plan);
  return JSON.stringify(plan, null, 2);
}

function failure(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof ScrapeformError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a ScrapeformError');
}

describe('parsePlanFile', () => {
  it.each(NAMES)(
    '%s: a saved plan reads back into the typed plan and renders byte for byte',
    async (name) => {
      const text = await fixture(name);
      const plan = parsePlanFile(text, `${name}.json`);
      expect(`${renderPlanJson(plan)}\n`).toBe(text);
    },
  );

  it('recovers the typed payload of each change', async () => {
    const history = parsePlanFile(await fixture('history'), 'history.json');
    const books = history.resource_changes.find((c) => c.address === 'parser.books-product');
    expect(books?.kind === 'Parser' && books.action === 'update' ? books.baseVersion : undefined).toBe(2);
    const shop = history.resource_changes.find((c) => c.address === 'parser.shop-product');
    expect(shop).toMatchObject({
      action: 'replace',
      finishing: false,
      id: 'b0000000-0000-4000-8000-000000000002',
    });
    const failures = parsePlanFile(await fixture('failures'), 'failures.json');
    expect(failures.resource_changes.find((c) => c.address === 'parser.news-article')).toMatchObject({
      action: 'replace',
      finishing: true,
      id: 'c0000000-0000-4000-8000-000000000003',
      oldId: 'c0000000-0000-4000-8000-000000000009',
      version: 0,
    });
  });

  it('refuses text that is not JSON, with the parser message', () => {
    expect(failure(() => parsePlanFile('{"format_version": 1,', 'plan.json'))).toEqual({
      code: 'apply.plan-unreadable',
      message: expect.stringMatching(/^cannot read the saved plan plan\.json: /) as string,
    });
  });

  it('refuses JSON that is not a plan', () => {
    expect(failure(() => parsePlanFile('[1, 2]', 'plan.json'))).toEqual({
      code: 'apply.plan-unreadable',
      message: 'plan.json is not a plan saved by scrapeform plan --out',
    });
    expect(failure(() => parsePlanFile('{"resource_changes": []}', 'plan.json')).message).toBe(
      'plan.json is not a plan saved by scrapeform plan --out',
    );
  });

  it('refuses another format_version, naming both', async () => {
    const text = await edited('fresh', (plan) => {
      plan.format_version = 2;
    });
    expect(failure(() => parsePlanFile(text, 'plan.json')).message).toBe(
      'plan.json has plan format_version 2; this scrapeform reads format_version 1',
    );
  });

  it('names the key path of a value of the wrong type', async () => {
    const text = await edited('fresh', (plan) => {
      plan.resource_changes[0].record.definition.fields[1].description = 42;
    });
    expect(failure(() => parsePlanFile(text, 'plan.json'))).toEqual({
      code: 'apply.plan-unreadable',
      message:
        'the saved plan plan.json is damaged at resource_changes[0].record.definition.fields[1].description: Invalid input: expected string, received number',
    });
  });

  it('names a missing key', async () => {
    const text = await edited('history', (plan) => {
      delete plan.fingerprint.state_serial;
    });
    expect(failure(() => parsePlanFile(text, 'plan.json')).message).toBe(
      'the saved plan plan.json is damaged at fingerprint.state_serial: Invalid input: expected number, received undefined',
    );
  });

  it('refuses a change whose calls were edited: apply makes the calls reviewed or none', async () => {
    const body = await edited('history', (plan) => {
      plan.resource_changes[0].requests[0].body.add_fields[0].description = 'something else';
    });
    expect(failure(() => parsePlanFile(body, 'plan.json')).message).toBe(
      'the saved plan plan.json was edited: resource_changes[0].requests[0].body.add_fields[0] is not what scrapeform plans for the rest of resource_changes[0] (parser.books-product)',
    );
    const version = await edited('history', (plan) => {
      plan.resource_changes[0].requests[0].path = '/parsers/b0000000-0000-4000-8000-000000000001/7';
    });
    expect(failure(() => parsePlanFile(version, 'plan.json')).message).toBe(
      'the saved plan plan.json was edited: resource_changes[0].requests[0] is not what scrapeform plans for the rest of resource_changes[0] (parser.books-product)',
    );
    const create = await edited('fresh', (plan) => {
      plan.resource_changes[0].requests[0].body.urls = ['https://elsewhere.example/'];
    });
    expect(failure(() => parsePlanFile(create, 'plan.json')).message).toBe(
      'the saved plan plan.json was edited: resource_changes[0].requests[0] is not what scrapeform plans for the rest of resource_changes[0] (parser.books-product)',
    );
  });

  it('reads the old values of a project update back, and refuses new values that are not the body sent', async () => {
    const history = parsePlanFile(await fixture('history'), 'history.json');
    const nightly = history.resource_changes[7];
    expect(nightly?.kind === 'Project' && nightly.action === 'update' ? nightly.before : undefined).toEqual({
      scrapingInterval: 'weekly',
    });
    const after = await edited('history', (plan) => {
      plan.resource_changes[7].value_changes[0].after = 'hourly';
    });
    expect(failure(() => parsePlanFile(after, 'plan.json')).message).toBe(
      'the saved plan plan.json was edited: resource_changes[7].value_changes is not what scrapeform plans for the rest of resource_changes[7] (project.nightly-book-pages)',
    );
    // A plan saved before value_changes existed still reads; it shows the new values only.
    const older = await edited('history', (plan) => {
      delete plan.resource_changes[7].value_changes;
    });
    const read = parsePlanFile(older, 'plan.json').resource_changes[7];
    expect(read?.kind === 'Project' && read.action === 'update' ? read.before : 'none').toBeUndefined();
  });

  it('refuses an action a kind does not have, and an id of the wrong kind', async () => {
    const archive = await edited('history', (plan) => {
      plan.resource_changes[3].action = 'archive';
    });
    expect(failure(() => parsePlanFile(archive, 'plan.json')).message).toBe(
      'the saved plan plan.json is damaged at resource_changes[3]: action: a parser is deleted, never archived',
    );
    const id = await edited('history', (plan) => {
      plan.resource_changes[8].id = 'p-503';
    });
    expect(failure(() => parsePlanFile(id, 'plan.json')).message).toBe(
      'the saved plan plan.json is damaged at resource_changes[8]: id: a project to archive needs its id as a number',
    );
  });
});

describe('the saved plan carries a digest of its own content', () => {
  /** A saved plan (the fixture through renderSavedPlan), edited as JSON by `edit`, back to text. */
  async function savedAndEdited(name: string, edit: (plan: Edited) => void): Promise<string> {
    const plan = JSON.parse(renderSavedPlan(parsePlanFile(await fixture(name), `${name}.json`))) as Edited;
    edit(plan);
    return JSON.stringify(plan, null, 2);
  }

  it('is the public plan JSON byte for byte, with the digest as the last key', async () => {
    for (const name of NAMES) {
      const text = await fixture(name);
      const saved = renderSavedPlan(parsePlanFile(text, `${name}.json`));
      const { digest, ...content } = JSON.parse(saved) as Record<string, unknown>;
      expect(Object.keys(JSON.parse(saved) as object).at(-1)).toBe('digest');
      expect(`${JSON.stringify(content, null, 2)}\n`).toBe(text);
      expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(`${renderPlanJson(parseSavedPlan(saved, `${name}.json`))}\n`).toBe(text);
    }
  });

  it('refuses an edit the checks of the rest of the plan cannot see (a project body and record edited alike)', async () => {
    const text = await savedAndEdited('fresh', (plan) => {
      const project = plan.resource_changes.find((c: Edited) => c.kind === 'Project');
      project.requests[0].body.projectInput.url = 'https://attacker.example/asins';
      project.record.definition.projectInput.url = 'https://attacker.example/asins';
    });
    // The same edit without the digest passes every other check: only the digest catches it.
    const { digest: _digest, ...content } = JSON.parse(text) as Record<string, unknown>;
    expect(() => parsePlanFile(JSON.stringify(content), 'plan.json')).not.toThrow();
    expect(failure(() => parseSavedPlan(text, 'plan.json'))).toEqual({
      code: 'apply.plan-unreadable',
      message: 'the saved plan plan.json was edited: its content does not match its digest',
    });
  });

  it('refuses an edited reason, warning or digest alike: the digest covers every value', async () => {
    for (const edit of [
      (plan: Edited) => (plan.resource_changes[0].reasons[0] = 'looks harmless'),
      (plan: Edited) => plan.warnings.push('added'),
      (plan: Edited) => (plan.digest = `sha256:${'0'.repeat(64)}`),
    ]) {
      const text = await savedAndEdited('history', edit);
      expect(failure(() => parseSavedPlan(text, 'plan.json')).message).toBe(
        'the saved plan plan.json was edited: its content does not match its digest',
      );
    }
  });

  it('refuses a plan without a digest (the output of plan --json is not a saved plan)', async () => {
    const unsaved = await fixture('fresh');
    expect(failure(() => parseSavedPlan(unsaved, 'plan.json'))).toEqual({
      code: 'apply.plan-unreadable',
      message:
        'the saved plan plan.json has no digest: apply --plan and show take only files written by scrapeform plan --out',
    });
  });

  it('still names the key of a damaged or edited change before checking the digest', async () => {
    const text = await savedAndEdited('history', (plan) => {
      plan.resource_changes[0].requests[0].path = '/parsers/b0000000-0000-4000-8000-000000000001/7';
    });
    expect(failure(() => parseSavedPlan(text, 'plan.json')).message).toBe(
      'the saved plan plan.json was edited: resource_changes[0].requests[0] is not what scrapeform plans for the rest of resource_changes[0] (parser.books-product)',
    );
  });
});

describe('refuseStalePlan', () => {
  const planAt = (lineage: string, serial: number, live: Record<string, string>): Plan => ({
    format_version: 1,
    status: 'no_changes',
    summary: {
      create: 0,
      update: 0,
      replace: 0,
      delete: 0,
      archive: 0,
      adopt: 0,
      regenerations: 0,
      estimated_credits: 0,
    },
    resource_changes: [],
    drift: [],
    warnings: [],
    fingerprint: { state_lineage: lineage, state_serial: serial, live },
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
    const create = {
      address: 'parser.a',
      kind: 'Parser',
      name: 'a',
      action: 'create',
      id: null,
      reasons: ['unconfirmed create: …'],
      definition: { urls: ['https://books.example/a.html'], scraperParams: {}, fields: [] },
      regenerates: true,
      destructive: false,
      field_changes: [],
      breaking: [],
    } as Plan['resource_changes'][number];
    const saved = {
      ...planAt('L', 3, {}),
      status: 'changes' as const,
      summary: summarise([create]),
      resource_changes: [create],
    };
    expect(() => refuseStalePlan(saved, saved, { lineage: 'L', serial: 3 })).not.toThrow();
    expect(failure(() => refuseStalePlan(saved, planAt('L', 3, {}), { lineage: 'L', serial: 3 }))).toEqual({
      code: 'apply.plan-stale',
      message: 'refusing the saved plan: parser.a: the saved plan creates it and a fresh plan no longer does',
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

    it('a saved plan keeps the state it records (one without it is read as before: the fixtures)', () => {
      const text = renderSavedPlan(staging);
      expect(parseSavedPlan(text, 'plan.json').fingerprint.target?.state).toEqual({
        workspace: 'staging',
        location: '.scrapeform/staging/state.json',
      });
    });
  });

  it('what approval reads must be what a fresh plan says: an edited file given a new digest is refused', () => {
    const remove = {
      address: 'parser.a',
      kind: 'Parser',
      name: 'a',
      action: 'delete',
      id: 'p-1',
      reasons: ['no manifest declares it any more'],
      regenerates: false,
      destructive: true,
      field_changes: [],
      breaking: [],
    } as Plan['resource_changes'][number];
    const fresh = {
      ...planAt('L', 3, { 'parser.a': 'p-1@2' }),
      status: 'changes' as const,
      summary: summarise([remove]),
      resource_changes: [remove],
    };
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
    // A delete a fresh plan does not make (of a parser its manifest still declares) must at least ask approval.
    const unplanned = { ...planAt('L', 3, { 'parser.a': 'p-1@2' }), status: 'changes' as const };
    expect(() => refuseStalePlan(fresh, unplanned, { lineage: 'L', serial: 3 })).not.toThrow();
    expect(failure(() => refuseStalePlan(forged, unplanned, { lineage: 'L', serial: 3 })).message).toBe(
      'refusing the saved plan: parser.a: the saved plan deletes or archives without marking it destructive',
    );
  });
});
