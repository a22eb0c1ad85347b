import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createColors } from '../../src/output/colors.js';
import { renderPlan } from '../../src/output/render-plan.js';
import { renderPlanMarkdown } from '../../src/output/render-plan-markdown.js';
import { toPlanJson } from '../../src/plan/plan-json.js';
import { startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { BOOK_A, BOOK_B, TestWorkspace } from '../helpers/workspace.js';

/**
 * Issue 15 against the emulator: after a first apply, a branch changes a project's schedule, inputs and webhook,
 * replaces a parser and creates one of each kind. The plan read from the emulator's answers shows every old and
 * new value; applying it converges.
 */
let h: EmulatorHarness;
beforeAll(async () => {
  h = await startTestEmulator({ generationDelayMs: 5 });
});
afterAll(async () => h.emulator.close());
afterEach(async () => {
  await h.emulator.projects.idle();
});

const page = (n: number): string => `https://books.example/catalogue/page-${n}.html`;

const BOOKS_V1 = `kind: Parser
name: books
urls: [${BOOK_A}, ${BOOK_B}]
scraper_params: { render: false }
fields:
  title: { description: Book title, selector: h1 }
  subtitle: { description: Subtitle under the title }
  price: { description: Price, type: number }
`;

const BOOKS_V2 = `kind: Parser
name: books
urls: [${BOOK_A}]
scraper_params: { render: true, country_code: de }
fields:
  title: { description: Book title, selector: h1 }
  headline: { description: Subtitle under the title, renamed_from: subtitle }
  price: { description: Price including tax, type: number }
`;

const nightly = (schedule: string, pages: number[], hook: string): string => `kind: Project
name: nightly
projectType: urls
projectInput: { type: list, list: [${pages.map(page).join(', ')}] }
scrapingInterval: "${schedule}"
scheduledAt: "2099-01-01T00:00:00Z"
webhookOutput: { url: "${hook}" }
lifecycle: { ignore_changes: [scheduledAt] }
`;

const SHELF = `kind: Parser
name: shelf
urls: [${BOOK_B}]
fields:
  heading: { description: Shelf name, selector: h1 }
`;

const WEEKLY = `kind: Project
name: weekly
projectType: urls
projectInput: { type: list, list: [${page(1)}] }
scrapingInterval: "0 6 * * 1"
scheduledAt: "2099-01-01T00:00:00Z"
output_format: CSV
notificationConfig: { notifyOnSuccess: weekly }
apiParams: { country_code: us }
lifecycle: { ignore_changes: [scheduledAt] }
`;

describe('a reviewed plan against the emulator', () => {
  it('shows every old and new value, then applies and converges', async () => {
    const ws = await TestWorkspace.create(h);
    await ws.write({
      'books.yaml': BOOKS_V1,
      'nightly.yaml': nightly('30 2 * * *', [1, 2, 3, 4], 'https://hooks.example/old'),
    });
    await ws.converge();

    await ws.write({
      'books.yaml': BOOKS_V2,
      'nightly.yaml': nightly('15 1 * * *', [1, 2, 5], 'https://hooks.example/new'),
      'shelf.yaml': SHELF,
      'weekly.yaml': WEEKLY,
    });
    const plan = await ws.plan();
    expect(plan.resource_changes.map((c) => `${c.action} ${c.address}`).sort()).toEqual([
      'create parser.shelf',
      'create project.weekly',
      'replace parser.books',
      'update project.nightly',
    ]);
    const human = renderPlan(plan, createColors(false));
    const markdown = renderPlanMarkdown(plan);
    for (const [text, changed, renamed] of [
      [human, '~', '→'],
      [markdown, '!', '→'],
    ] as const) {
      expect(text).toContain(`${changed} scrapingInterval: "30 2 * * *" -> "15 1 * * *"`);
      expect(text).toContain(
        `${changed} webhookOutput.url: "https://hooks.example/old" -> "https://hooks.example/new"`,
      );
      expect(text).toContain(`${changed} inputs: +1 −2 entries (3 in all)`);
      expect(text).toContain(`${changed} urls: ["${BOOK_A}","${BOOK_B}"] -> ["${BOOK_A}"]`);
      expect(text).toContain(
        `${changed} scraper_params: {"render":false} -> {"country_code":"de","render":true}`,
      );
      expect(text).toContain(`${renamed} renamed subtitle -> headline (in the new parser)`);
      expect(text).toContain(`${changed} price: description "Price" -> "Price including tax"`);
      expect(text).toContain('+ heading (selector h1): "Shelf name"');
      expect(text).toContain('+ scrapingInterval: "0 6 * * 1"');
      expect(text).toContain('+ output_format: "CSV"');
      expect(text).toContain('+ notificationConfig.notifyOnSuccess: "weekly"');
      expect(text).toContain('+ apiParams.country_code: "us"');
    }
    expect(human).toContain(`        + ${page(5)}\n`);
    expect(human).toContain(`        - ${page(3)}\n        - ${page(4)}\n`);
    const update = toPlanJson(plan).resource_changes.find((c) => c.address === 'project.nightly');
    expect(update?.value_changes?.find((v) => v.field === 'scrapingInterval')).toEqual({
      field: 'scrapingInterval',
      before: '30 2 * * *',
      after: '15 1 * * *',
    });

    await ws.converge();
  });
});
