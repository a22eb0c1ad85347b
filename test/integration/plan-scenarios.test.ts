import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ScrapeformError } from '../../src/errors.js';
import type { Plan } from '../../src/plan/model.js';
import { plannedRequests } from '../../src/plan/plan-json.js';
import type { PlannedRequest } from '../../src/plan/plan-json.js';
import { startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { BOOK_A, BOOK_B, bookParser, TestWorkspace } from '../helpers/workspace.js';

let h: EmulatorHarness;
let ws: TestWorkspace;
beforeAll(async () => {
  h = await startTestEmulator({ generationDelayMs: 5 });
});
afterAll(async () => h.emulator.close());
let mode: 'library' | 'cli' = 'library';
beforeEach(async () => {
  h.emulator.reset();
  ws = await TestWorkspace.create(h, mode);
});
afterEach(async () => {
  await h.emulator.projects.idle();
});

const FIELDS_V1 = `  title: { description: Book title, selector: h1 }
  price: { description: Price including tax, type: number }
  availability: { description: Stock availability text }
  reviews:
    description: Customer reviews
    fields:
      author: { description: Name of the reviewer }
      rating: { description: Stars from 1 to 5, type: number }
`;

const PROJECT_V1 = `kind: Project
name: nightly
projectType: urls
projectInput: { type: list, list: [https://books.example/catalogue/page-1.html] }
scrapingInterval: daily
scheduledAt: "2099-01-01T00:00:00Z"
webhookOutput: { url: "https://hooks.example/books" }
notificationConfig: { notifyOnFailure: daily }
lifecycle: { ignore_changes: [scheduledAt] }
`;

/** The calls of the change at `i` (none when there is no change there). */
function requestsAt(plan: Plan, i: number): PlannedRequest[] {
  const change = plan.resource_changes[i];
  return change === undefined ? [] : plannedRequests(change);
}

function requestsOf(plan: Plan, address: string) {
  const change = plan.resource_changes.find((c) => c.address === address);
  return (change === undefined ? undefined : plannedRequests(change))?.map((r) => ({
    method: r.method,
    path: r.path.replace(/[0-9a-f-]{36}/, '{id}'),
    body: r.body,
  }));
}

describe.each(['library', 'cli'] as const)(
  'plan scenarios against the emulator (%s): plan, apply, then an empty plan',
  (current) => {
    beforeAll(() => {
      mode = current;
    });

    it('creates a parser and a project', async () => {
      await ws.write({ 'books.yaml': bookParser(FIELDS_V1), 'nightly.yaml': PROJECT_V1 });
      const { plan } = await ws.converge();
      expect(plan.summary).toEqual({
        create: 2,
        update: 0,
        replace: 0,
        delete: 0,
        archive: 0,
        adopt: 0,
        regenerations: 1,
        estimated_credits: 30_000,
      });
      expect(requestsOf(plan, 'project.nightly')).toEqual([
        {
          method: 'POST',
          path: '/api/projects',
          body: {
            name: 'nightly',
            projectType: 'urls',
            projectInput: { type: 'list', list: ['https://books.example/catalogue/page-1.html'] },
            scrapingInterval: 'daily',
            schedulingEnabled: true,
            webhookOutput: { url: 'https://hooks.example/books' },
            notificationConfig: { notifyOnFailure: 'daily', notifyOnSuccess: 'never' },
            scheduledAt: '2099-01-01T00:00:00Z',
          },
        },
      ]);
      const state = await ws.state();
      expect(Object.keys(state.resources).sort()).toEqual(['parser.books', 'project.nightly']);
      expect(state.resources['parser.books']).toMatchObject({ version: 0, descriptionsKnown: true });
    });

    it('the dual check: plans built from fixture data equal the plans against the emulator', async () => {
      await ws.write({ 'books.yaml': bookParser(FIELDS_V1), 'nightly.yaml': PROJECT_V1 });
      await ws.converge();
      const edits: Record<string, string>[] = [
        {
          'books.yaml': bookParser(
            FIELDS_V1.replace(
              'availability:',
              'stock: { renamed_from: availability, description: Stock availability text }\n  x_unused:',
            ),
          ),
          'nightly.yaml': PROJECT_V1,
        },
        {
          'books.yaml': bookParser(FIELDS_V1.replace('Price including tax', 'Price incl. tax')),
          'nightly.yaml': PROJECT_V1.replace('daily', 'hourly'),
        },
        { 'books.yaml': bookParser(FIELDS_V1).replace(`, ${BOOK_B}]`, ']') },
        {},
      ];
      for (const files of edits) {
        await ws.write(files);
        // Fingerprints differ by design: they digest everything the emulator reports of a project.
        const { fingerprint: _f, ...fromFixture } = await ws.planFromFixture();
        const { fingerprint: _g, ...fromEmulator } = await ws.plan();
        expect(fromFixture).toEqual(fromEmulator);
        expect(fromEmulator.resource_changes.length).toBeGreaterThan(0);
      }
    });

    it('rename + modify + add: exactly one PATCH with only those operations, one regeneration', async () => {
      await ws.write({ 'books.yaml': bookParser(FIELDS_V1) });
      await ws.converge();
      await ws.write({
        'books.yaml': bookParser(`  title: { description: Book title, selector: h1 }
  price: { description: Price including tax in pounds, type: number }
  stock: { description: Stock availability text, renamed_from: availability }
  upc: { description: Universal product code, selector: td.upc }
  reviews:
    description: Customer reviews
    fields:
      author: { description: Name of the reviewer }
      rating: { description: Stars from 1 to 5, type: number }
`),
      });
      const { plan } = await ws.converge();
      expect(requestsOf(plan, 'parser.books')).toEqual([
        {
          method: 'PATCH',
          path: '/parsers/{id}/0',
          body: {
            rename_fields: [{ name: 'availability', new_name: 'stock' }],
            modify_fields: [{ name: 'price', description: 'Price including tax in pounds', type: 'number' }],
            add_fields: [{ name: 'upc', description: 'Universal product code', selector: 'td.upc' }],
          },
        },
      ]);
      expect(plan.summary.regenerations).toBe(1);
      const details = await h.parsers.get(String(plan.resource_changes[0]?.id));
      expect(details.exampleResult?.[0]?.result).toMatchObject({
        stock: 'In stock (22 available)',
        upc: 'a897fe39b1053632',
      });
    });

    it('removing a parent field sends it alone; renames and removes are free and immediate', async () => {
      await ws.write({ 'books.yaml': bookParser(FIELDS_V1) });
      await ws.converge();
      await ws.write({
        'books.yaml': bookParser(
          `  headline: { description: Book title, selector: h1, renamed_from: title }\n  price: { description: Price including tax, type: number }\n  availability: { description: Stock availability text }\n`,
        ),
      });
      const { plan } = await ws.converge();
      expect(requestsOf(plan, 'parser.books')).toEqual([
        {
          method: 'PATCH',
          path: '/parsers/{id}/0',
          body: { remove_fields: ['reviews'], rename_fields: [{ name: 'title', new_name: 'headline' }] },
        },
      ]);
      expect(plan.summary.regenerations).toBe(0);
    });

    it('a swap written with renamed_from on both fields converges', async () => {
      await ws.write({
        'books.yaml': bookParser(
          `  a: { description: Book title, selector: h1 }\n  b: { description: Stock availability text }\n`,
        ),
      });
      await ws.converge();
      await ws.write({
        'books.yaml': bookParser(
          `  b: { description: Book title, selector: h1, renamed_from: a }\n  a: { description: Stock availability text, renamed_from: b }\n`,
        ),
      });
      const { plan } = await ws.converge();
      expect(requestsAt(plan, 0)).toHaveLength(2);
      const id = String(plan.resource_changes[0]?.id);
      expect((await h.parsers.get(id)).exampleResult?.[0]?.result).toEqual({
        b: 'A Light in the Attic',
        a: 'In stock (22 available)',
      });
    });

    it('urls changed: a replace (create, wait, delete the old one), destructive, new id', async () => {
      await ws.write({ 'books.yaml': bookParser(FIELDS_V1) });
      await ws.converge();
      const oldId = (await ws.state()).resources['parser.books']?.id;
      await ws.write({ 'books.yaml': bookParser(FIELDS_V1).replace(`, ${BOOK_B}]`, ']') });
      const { plan } = await ws.converge();
      const change = plan.resource_changes[0];
      expect([change?.action, change?.destructive, change?.regenerates]).toEqual(['replace', true, true]);
      expect(requestsAt(plan, 0).map((r) => `${r.method} ${r.path}`)).toEqual([
        'POST /parsers',
        `DELETE /parsers/${String(oldId)}`,
      ]);
      const newId = (await ws.state()).resources['parser.books']?.id;
      expect(newId).not.toBe(oldId);
      expect((await h.parsers.list()).map((p) => p.id)).toEqual([newId]);
    });

    it('a project: only the changed top-level fields; a key dropped from the manifest is reset', async () => {
      await ws.write({ 'nightly.yaml': PROJECT_V1 });
      await ws.converge();
      await ws.write({
        'nightly.yaml': PROJECT_V1.replace(
          'scrapingInterval: daily',
          'scrapingInterval: "0 6 * * *"',
        ).replace('webhookOutput: { url: "https://hooks.example/books" }\n', ''),
      });
      const { plan } = await ws.converge();
      expect(requestsOf(plan, 'project.nightly')).toEqual([
        {
          method: 'PATCH',
          path: '/api/projects/1',
          body: { scrapingInterval: '0 6 * * *', webhookOutput: null },
        },
      ]);
    });

    it('no schedule in the manifest: scheduling is off, never the weekly default', async () => {
      await ws.write({
        'once.yaml':
          'kind: Project\nname: once\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/catalogue/page-1.html] }\n',
      });
      const { plan } = await ws.converge();
      expect(requestsAt(plan, 0)[0]?.body).toMatchObject({ schedulingEnabled: false });
      expect((await h.projects.get(1)).schedulingEnabled).toBe(false);
    });

    it('an address dropped from the manifests: the parser is deleted and the project archived', async () => {
      await ws.write({ 'books.yaml': bookParser(FIELDS_V1), 'nightly.yaml': PROJECT_V1 });
      await ws.converge();
      await ws.write({});
      const { plan } = await ws.converge();
      expect(plan.resource_changes.map((c) => [c.address, c.action, c.destructive])).toEqual([
        ['parser.books', 'delete', true],
        ['project.nightly', 'archive', true],
      ]);
      expect(await h.parsers.list()).toEqual([]);
      expect(await h.projects.list()).toEqual([]);
      expect((await ws.state()).resources).toEqual({});
    });

    it('adopts a live parser and project with the same name, comparing field names only', async () => {
      await h.parsers.create({
        name: 'books',
        urls: [BOOK_A, BOOK_B],
        fields: [{ name: 'title', description: 'x', selector: 'h1' }],
      });
      await h.emulator.idle();
      await h.projects.create({
        name: 'nightly',
        projectInput: { type: 'list', list: ['https://books.example/catalogue/page-1.html'] },
      });
      await ws.write({
        'books.yaml': bookParser('  title: { description: Book title, selector: h1 }\n'),
        'nightly.yaml': PROJECT_V1,
      });
      const { plan } = await ws.converge();
      expect(plan.summary.adopt).toBe(2);
      expect(plan.resource_changes.map((c) => [c.address, c.action])).toEqual([
        ['parser.books', 'adopt'],
        ['project.nightly', 'update'],
      ]);
      expect(plan.warnings[0]).toContain(
        'only field names and which fields have fields under them are compared',
      );
      expect((await ws.state()).resources['parser.books']).toMatchObject({ descriptionsKnown: false });
    });

    it('adopts a live parser with a list of values: no regeneration for the output type the service reports', async () => {
      await h.parsers.create({
        name: 'books',
        urls: [BOOK_A, BOOK_B],
        fields: [
          { name: 'title', description: 'x', selector: 'h1' },
          { name: 'crumbs', description: 'y', type: 'array', selector: '.breadcrumb a' },
        ],
      });
      await h.emulator.idle();
      const [live] = await h.parsers.list();
      await ws.write({
        'books.yaml': bookParser(
          '  title: { description: Book title, selector: h1 }\n  crumbs: { description: Breadcrumb links, type: array, selector: .breadcrumb a }\n',
        ),
      });
      const { plan } = await ws.converge();
      expect(plan.resource_changes.map((c) => [c.address, c.action, c.regenerates])).toEqual([
        ['parser.books', 'adopt', false],
      ]);
      expect((await h.parsers.list())[0]?.version).toBe(live?.version);
    });

    it('several live parsers with the name: an error listing their ids, nothing planned', async () => {
      const one = await h.parsers.create({ name: 'books', urls: [BOOK_A] });
      const two = await h.parsers.create({ name: 'books', urls: [BOOK_A] });
      await ws.write({ 'books.yaml': bookParser(FIELDS_V1) });
      const error = (await ws.plan().catch((e: unknown) => e)) as ScrapeformError;
      if (current === 'library') expect(error.code).toBe('plan.invalid');
      expect(error.message).toBe(
        `parser.books: 2 live parsers are named "books" (${one.id}, ${two.id}); scrapeform cannot tell which to adopt. Rename the manifest, or delete the extra parsers.`,
      );
    });

    it('drift: a field removed outside scrapeform is shown apart and added back', async () => {
      await ws.write({ 'books.yaml': bookParser(FIELDS_V1) });
      await ws.converge();
      const id = String((await ws.state()).resources['parser.books']?.id);
      await h.parsers.update(id, 0, { remove_fields: ['availability'] });
      const plan = await ws.plan();
      expect(plan.drift).toEqual([
        {
          address: 'parser.books',
          kind: 'Parser',
          message: 'version moved from 0 to 1 outside scrapeform; fields removed: availability',
        },
      ]);
      expect(requestsAt(plan, 0)[0]).toMatchObject({
        path: `/parsers/${id}/1`,
        body: { add_fields: [{ name: 'availability', description: 'Stock availability text' }] },
      });
      await ws.converge();
    });

    it('drift: a field renamed outside scrapeform is renamed back by one free PATCH, not removed and added', async () => {
      await ws.write({ 'books.yaml': bookParser(FIELDS_V1) });
      await ws.converge();
      const id = String((await ws.state()).resources['parser.books']?.id);
      await h.parsers.update(id, 0, { rename_fields: [{ name: 'reviews', new_name: 'opinions' }] });
      const plan = await ws.plan();
      expect(plan.drift).toEqual([
        {
          address: 'parser.books',
          kind: 'Parser',
          message: 'version moved from 0 to 1 outside scrapeform; fields renamed: reviews -> opinions',
        },
      ]);
      expect(requestsOf(plan, 'parser.books')).toEqual([
        {
          method: 'PATCH',
          path: '/parsers/{id}/1',
          body: { rename_fields: [{ name: 'opinions', new_name: 'reviews' }] },
        },
      ]);
      expect([plan.summary.regenerations, plan.summary.estimated_credits]).toEqual([0, 0]);
      h.emulator.requestLog.length = 0;
      await ws.converge();
      const patches = h.emulator.requestLog.filter((e) => e.method === 'PATCH');
      expect(patches.map((e) => e.status)).toEqual([200]);
      const details = await h.parsers.get(id);
      expect([details.version, details.status]).toEqual([2, 'FINISHED']);
      expect(details.fields.map((f) => f.name)).toContain('reviews.author');
    });

    it('deleted outside scrapeform: created again, said plainly', async () => {
      await ws.write({ 'books.yaml': bookParser(FIELDS_V1), 'nightly.yaml': PROJECT_V1 });
      await ws.converge();
      // The next apply reads them: seen since their create, so a 404 now means gone (a project created and not
      // seen since would need --recreate: F3).
      await ws.applyChanges();
      // One at a time: both gone at once is what a key of another account reads like (plan/vanished.ts).
      const state = await ws.state();
      await h.parsers.delete(String(state.resources['parser.books']?.id));
      const { plan } = await ws.converge();
      expect(plan.drift.map((d) => d.message)).toEqual([
        `parser ${String(state.resources['parser.books']?.id)} was deleted outside scrapeform; it will be created again (new id)`,
      ]);
      await h.projects.archive(Number(state.resources['project.nightly']?.id));
      const { plan: second } = await ws.converge();
      expect(second.drift.map((d) => d.message)).toEqual([
        `project ${String(state.resources['project.nightly']?.id)} was archived or deleted outside scrapeform; it will be created again (new id)`,
      ]);
      expect([plan.summary.create, second.summary.create]).toEqual([1, 1]);
    });

    it('a FAILED generation is reported; fixing the manifest replaces it without needing approval', async () => {
      await ws.write({
        'books.yaml': bookParser(FIELDS_V1).replace(BOOK_B, 'https://books.example/missing.html'),
      });
      const first = await ws.applyChanges();
      expect(first.results[0]?.ok).toBe(false);
      expect(first.results[0]?.error?.message).toBe(
        'parser.books: version 0 FAILED: DownloadError: Failed to download https://books.example/missing.html after 3 retries',
      );
      expect(first.results[0]?.error?.hint).toContain('example URLs inaccessible or blocked');
      await ws.write({ 'books.yaml': bookParser(FIELDS_V1) });
      const { plan } = await ws.converge();
      expect([plan.resource_changes[0]?.action, plan.resource_changes[0]?.destructive]).toEqual([
        'replace',
        false,
      ]);
      expect(await h.parsers.list()).toHaveLength(1);
    });

    it('a FAILED update is retried from the last good version', async () => {
      await ws.write({ 'books.yaml': bookParser(FIELDS_V1) });
      await ws.converge();
      h.emulator.setFaults({ failGenerations: 1 });
      await ws.write({
        'books.yaml': bookParser(
          `${FIELDS_V1}  upc: { description: Universal product code, selector: td.upc }\n`,
        ),
      });
      const failed = await ws.applyChanges();
      expect(failed.results[0]?.ok).toBe(false);
      const plan = await ws.plan();
      expect(plan.resource_changes[0]?.reasons[0]).toMatch(/^version 1 FAILED: GenerationError/);
      expect(requestsAt(plan, 0)[0]?.path).toMatch(/\/0$/);
      await ws.converge();
    });

    // The second try of each is of the same definition: as written, or respelled between the tries (the new field
    // first, its description re-wrapped), which must not start the count of paid tries again.
    it.each([
      ['(the plan is empty), until --reassert', undefined],
      [
        'when respelled between the tries',
        `  upc: { description: "Universal  product\\n code", selector: td.upc }\n${FIELDS_V1}`,
      ],
    ])('a definition that FAILED twice is not retried by itself %s', async (_, respelled) => {
      await ws.write({ 'books.yaml': bookParser(FIELDS_V1) });
      await ws.converge();
      h.emulator.setFaults({ failGenerations: 2 });
      await ws.write({
        'books.yaml': bookParser(
          `${FIELDS_V1}  upc: { description: Universal product code, selector: td.upc }\n`,
        ),
      });
      expect((await ws.applyChanges()).results[0]?.ok).toBe(false);
      if (respelled !== undefined) await ws.write({ 'books.yaml': bookParser(respelled) });
      const retry = await ws.plan();
      expect(retry.status).toBe('changes');
      expect((await ws.applyChanges(retry)).results[0]?.ok).toBe(false);
      const after = await ws.plan();
      expect(after.status).toBe('no_changes');
      expect(after.warnings).toContainEqual(
        expect.stringMatching(
          /^parser\.books: version 2 FAILED 2 times with the definition the manifests ask for \(GenerationError.*\); not retried again by itself: fix the manifest, or try once more with --reassert parser\.books$/,
        ),
      );
      if (current === 'library') {
        const forced = await ws.plan({ reassert: ['parser.books'] });
        expect(forced.status).toBe('changes');
        await ws.applyChanges(forced);
        expect((await ws.plan()).status).toBe('no_changes');
      }
    });

    it('prevent_destroy turns a delete or replace into an error', async () => {
      await ws.write({ 'books.yaml': bookParser(FIELDS_V1, 'lifecycle: { prevent_destroy: true }\n') });
      await ws.converge();
      await ws.write({
        'books.yaml': bookParser(FIELDS_V1, 'lifecycle: { prevent_destroy: true }\n').replace(
          `, ${BOOK_B}]`,
          ']',
        ),
      });
      await expect(ws.plan()).rejects.toThrow(
        'parser.books: lifecycle.prevent_destroy is set, and this plan would delete or replace it',
      );
    });

    it('--target and --exclude limit the plan', async () => {
      await ws.write({ 'books.yaml': bookParser(FIELDS_V1), 'nightly.yaml': PROJECT_V1 });
      expect(
        (await ws.plan({ targets: ['project.nightly'] })).resource_changes.map((c) => c.address),
      ).toEqual(['project.nightly']);
      expect(
        (await ws.plan({ excludes: ['project.nightly'] })).resource_changes.map((c) => c.address),
      ).toEqual(['parser.books']);
    });

    it('apply --no-wait returns after the calls; the next plan has nothing to do once it finishes', async () => {
      await ws.write({ 'books.yaml': bookParser(FIELDS_V1) });
      const result = await ws.applyChanges(undefined, { noWait: true });
      expect(result.results[0]).toMatchObject({ ok: true, status: 'GENERATING' });
      await h.emulator.idle();
      expect((await ws.plan()).status).toBe('no_changes');
    });
  },
);
