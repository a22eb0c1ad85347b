import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { bookParser, TestWorkspace } from '../helpers/workspace.js';

/**
 * A manifest written again in another spelling of the same parser plans no call against the emulator: a replace
 * would cost a new parser id and 30,000 credits, a modify 30,000 (parser-spelling.ts).
 */
let h: EmulatorHarness;
let ws: TestWorkspace;
beforeAll(async () => {
  h = await startTestEmulator({ generationDelayMs: 5 });
});
afterAll(async () => h.emulator.close());
beforeEach(async () => {
  h.emulator.reset();
  ws = await TestWorkspace.create(h);
});

const FIELDS = `  title: { description: "Caf\\u00e9 book title from the main heading", selector: h1 }
  price: { description: Price including tax, type: number }
`;

const RESPELLED = `  price: { description: Price including tax, type: number }
  title:
    description: >
      Cafe\u0301 book title
      from  the main heading
    selector: h1
`;

describe('a parser manifest respelled', () => {
  it('a default spelled out, a country code in capitals, descriptions re-wrapped and decomposed: no call', async () => {
    await ws.write({ 'books.yaml': bookParser(FIELDS, 'scraper_params: { country_code: us }\n') });
    await ws.converge();
    const id = (await ws.state()).resources['parser.books']?.id;
    await ws.write({
      'books.yaml': bookParser(RESPELLED, 'scraper_params: { follow_redirect: true, country_code: US }\n'),
    });
    const plan = await ws.plan();
    expect([plan.status, plan.resource_changes, plan.warnings]).toEqual(['no_changes', [], []]);
    expect((await h.parsers.list()).map((p) => [p.id, p.version])).toEqual([[id, 0]]);
  });

  it('render: false and premium: false written out or left out, a description as a block scalar: no call', async () => {
    await ws.write({
      'books.yaml': bookParser(
        FIELDS,
        'scraper_params: { render: false, premium: false, country_code: us }\n',
      ),
    });
    await ws.converge();
    const id = (await ws.state()).resources['parser.books']?.id;
    const block = `  title:\n    description: |\n      Caf\u00e9 book title from the main heading\n    selector: h1\n  price: { description: Price including tax, type: number }\n`;
    await ws.write({ 'books.yaml': bookParser(block, 'scraper_params: { country_code: us }\n') });
    const plan = await ws.plan();
    expect([plan.status, plan.resource_changes, plan.warnings]).toEqual(['no_changes', [], []]);
    await ws.write({
      'books.yaml': bookParser(FIELDS, 'scraper_params: { country_code: us, render: false }\n'),
    });
    const again = await ws.plan();
    expect([again.status, again.resource_changes, again.warnings]).toEqual(['no_changes', [], []]);
    expect((await h.parsers.list()).map((p) => [p.id, p.version])).toEqual([[id, 0]]);
  });
});
