import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderPlanJson } from '../../../src/output/render-plan-json.js';
import { parsePlanFile, parseSavedPlan } from '../../../src/plan/plan-file.js';
import { renderSavedPlan } from '../../../src/output/render-saved-plan.js';
import { failure, thrown } from '../../helpers/failure.js';

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

  it('refuses another format_version no scrapeform wrote, naming both', async () => {
    for (const version of [0, '1', 1.5]) {
      const text = await edited('fresh', (plan) => {
        plan.format_version = version;
      });
      expect(failure(() => parsePlanFile(text, 'plan.json')).message).toBe(
        `plan.json has plan format_version ${JSON.stringify(version)}; this scrapeform reads format_version 1`,
      );
    }
  });

  it('refuses a plan written by a newer scrapeform as such, naming both versions, whatever else it holds', async () => {
    for (const text of [
      await edited('fresh', (plan) => {
        plan.format_version = 2;
      }),
      JSON.stringify({ format_version: 3, changes: 'a shape this scrapeform does not know' }),
    ]) {
      const error = thrown(() => parsePlanFile(text, 'plan.json'));
      expect(error?.code).toBe('apply.plan-unreadable');
      expect(error?.message).toMatch(
        /^plan\.json was written by a newer scrapeform \(plan format_version [23]; this scrapeform reads format_version 1\)$/,
      );
      expect(error?.hint).toBe(
        'upgrade scrapeform to the version that wrote it (npm install scrapeform@latest), or save the plan again with this one',
      );
    }
  });

  it('refuses JSON nested deeper than any plan, naming where, before anything walks it (the call stack overflowed)', async () => {
    // Spliced in as text: JSON.stringify of such a value overflows the call stack itself.
    const nested = `${'['.repeat(20_000)}"x"${']'.repeat(20_000)}`;
    const text = (await fixture('history')).replace('"body": {', `"body": {"deep": ${nested}, `);
    const saved = text.replace(/\n}\n$/, `,\n  "digest": "sha256:${'0'.repeat(64)}"\n}\n`);
    const refusal = {
      code: 'apply.plan-unreadable',
      message: `the saved plan plan.json is damaged at resource_changes[0].requests[0].body.deep${'[0]'.repeat(122)}: it is nested too deep (more than 128 levels of objects and arrays)`,
    };
    expect(failure(() => parsePlanFile(text, 'plan.json'))).toEqual(refusal);
    expect(failure(() => parseSavedPlan(saved, 'plan.json'))).toEqual(refusal);
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

  it('is plan --json byte for byte: bidi and C1 characters escaped, read back as they were, the digest still valid', async () => {
    const fresh = parsePlanFile(await fixture('fresh'), 'fresh.json');
    const name = 'rev\u202eersed\u009b31m';
    const plan = {
      ...fresh,
      resource_changes: fresh.resource_changes.map((c, i) => (i === 0 ? { ...c, origin: name } : c)),
    };
    const saved = renderSavedPlan(plan);
    expect(saved).not.toMatch(/[\u202e\u009b]/);
    expect(saved).toContain('rev\\u202eersed\\u009b31m');
    const { digest: _digest, ...content } = JSON.parse(saved) as Record<string, unknown>;
    expect(saved.startsWith(renderPlanJson(plan).slice(0, -2))).toBe(true);
    expect(JSON.stringify(content, null, 2)).toBe(JSON.stringify(JSON.parse(renderPlanJson(plan)), null, 2));
    expect(parseSavedPlan(saved, 'plan.json').resource_changes[0]?.origin).toBe(name);
  });

  it('keeps where a change comes from (origin); a plan saved without origins still reads', async () => {
    // The fixtures are plans of objects written out in one manifest: as a plan saved before origin was in the format.
    const older = parsePlanFile(await fixture('fresh'), 'fresh.json');
    expect(older.resource_changes.filter((c) => c.origin !== undefined)).toEqual([]);
    const origin = 'odd\u001bdir/books.yaml:1, ParserTemplate "product" at templates/product.yaml:1';
    const saved = renderSavedPlan({
      ...older,
      resource_changes: older.resource_changes.map((c, i) => (i === 0 ? { ...c, origin } : c)),
    });
    const read = parseSavedPlan(saved, 'plan.json');
    expect(read.resource_changes.map((c) => c.origin)).toEqual(
      older.resource_changes.map((_, i) => (i === 0 ? origin : undefined)),
    );
    expect(renderSavedPlan(read)).toBe(saved);
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

  it('refuses a parser update whose regenerates is not what its calls do (add or modify fields)', async () => {
    const text = await savedAndEdited('history', (plan) => {
      plan.resource_changes[0].regenerates = false;
      plan.resource_changes[0].record.generates = false;
      plan.summary.regenerations -= 1;
    });
    expect(failure(() => parseSavedPlan(text, 'plan.json')).message).toBe(
      'the saved plan plan.json was edited: resource_changes[0].regenerates is not what scrapeform plans for the rest of resource_changes[0] (parser.books-product)',
    );
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
