import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { BOOK_A, BOOK_B } from '../helpers/workspace.js';
import { PLACEHOLDER_DESCRIPTION } from '../../src/model/vocabulary.js';
import type { PlanJson } from '../../src/plan/plan-json.js';
import type { ParserState, State } from '../../src/state/model.js';

/** The fields of the parser made by hand: what the user fills in again in the manifest import wrote. */
const HAND_MADE = [
  { name: 'title', description: 'Book title', selector: 'h1' },
  { name: 'upc', description: 'Universal product code', selector: 'td.upc' },
  { name: 'price', description: 'Price with tax', type: 'number', selector: '.price_color' },
];

/**
 * The imported manifest with what the user knows declared again: the scraper params and each field's description
 * and type in place of the placeholder import wrote, and the selectors too when `selectors` is set.
 */
function declareKnownValues(imported: string, selectors: boolean): string {
  return HAND_MADE.reduce(
    (text, field) =>
      text.replace(
        `${field.name}:\n    description: "${PLACEHOLDER_DESCRIPTION}"`,
        [
          `${field.name}:`,
          `    description: ${field.description}`,
          ...(field.type !== undefined ? [`    type: ${field.type}`] : []),
          ...(selectors ? [`    selector: ${field.selector}`] : []),
        ].join('\n'),
      ),
    imported.replace('urls:', 'scraper_params:\n  country_code: us\n  device_type: desktop\nurls:'),
  );
}

/**
 * Issue 15, "Import that loses nothing": a parser made by hand with scraping parameters and selectors is imported,
 * its manifest filled in, and applied: nothing is replaced, the selectors survive, the expect checks import wrote
 * pass, and the scraper params the service never returns are recorded with `--accept-unknown`, with no call.
 */
describe('import round trip', () => {
  let h: EmulatorHarness;
  let dir: string;
  const env = (): Record<string, string> => ({
    SCRAPERAPI_API_KEY: EMULATOR_KEY,
    SCRAPEFORM_PARSER_URL: h.emulator.url,
    SCRAPEFORM_PIPELINE_URL: h.emulator.url,
    SCRAPEFORM_POLL_INTERVAL: '10ms',
  });
  const scrapeform = (args: string[]) =>
    runScrapeform([...args, '--state', path.join(dir, 'state.json')], { env: env() });
  const manifestFile = (): string => path.join(dir, 'imported', 'parser-legacy-books.yaml');
  const state = async (): Promise<ParserState> => {
    const read = JSON.parse(await readFile(path.join(dir, 'state.json'), 'utf8')) as State;
    return read.resources['parser.legacy-books'] as ParserState;
  };
  /** The manifests plan to nothing, with the exit code that says so. */
  const expectNoChanges = async (): Promise<void> => {
    const plan = await scrapeform(['plan', path.join(dir, 'imported'), '--detailed-exitcode']);
    expect([plan.code, plan.stdout.split('\n')[0]]).toEqual([
      0,
      'No changes. The live services match the manifests.',
    ]);
  };
  const writes = (): string[] =>
    h.emulator.requestLog.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);

  beforeAll(async () => {
    h = await startTestEmulator();
  });
  afterAll(async () => h.emulator.close());
  beforeEach(async () => {
    h.emulator.reset();
    dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-import-'));
    const created = await h.raw('POST', '/parsers', {
      api_key: EMULATOR_KEY,
      name: 'legacy-books',
      urls: [BOOK_A, BOOK_B],
      scraper_params: { country_code: 'us', device_type: 'desktop' },
      fields: HAND_MADE,
    });
    expect(created.status).toBe(201);
    await h.emulator.idle();
    const imported = await scrapeform(['import', '--out', path.join(dir, 'imported')]);
    expect(imported.code, imported.stderr).toBe(0);
  });

  it('records what it never saw as unknown, and writes expect checks from the example results', async () => {
    const text = await readFile(manifestFile(), 'utf8');
    expect(text).toContain(
      '`scrapeform plan --accept-unknown parser.legacy-books` records them with no call',
    );
    expect(text).toContain(
      [
        'expect:',
        `  - url: ${BOOK_A}`,
        '    result:',
        '      title: ~\\S',
        '      upc: ~\\S',
        `  - url: ${BOOK_B}`,
        '    result:',
        '      title: ~\\S',
        '      upc: ~\\S',
      ].join('\n'),
    );
    expect((await state()).unknown).toEqual({
      scraperParams: true,
      descriptions: ['title', 'upc', 'price'],
      selectors: ['title', 'upc', 'price'],
      types: ['title', 'upc', 'price'],
    });
    await expectNoChanges();
    // The checks hold against the parser as imported.
    const test = await scrapeform(['test', path.join(dir, 'imported')]);
    expect(test.code, test.stdout + test.stderr).toBe(0);
  });

  it('descriptions filled in: no replace, a warning for the selectors first, then they survive and the checks pass', async () => {
    const imported = await readFile(manifestFile(), 'utf8');
    const filled = declareKnownValues(imported, false);
    await writeFile(manifestFile(), filled);

    const warned = await scrapeform(['plan', path.join(dir, 'imported'), '--json']);
    expect(warned.code, warned.stderr).toBe(0);
    const json = JSON.parse(warned.stdout) as PlanJson;
    expect(json.resource_changes.map((c) => [c.address, c.action, c.destructive])).toEqual([
      ['parser.legacy-books', 'update', false],
    ]);
    expect(json.warnings).toEqual([
      'parser.legacy-books: the manifest declares values that were never seen (imported): scraper_params, title.description, upc.description, price.description, price.type; scraper_params are not compared (a value never seen is no reason to replace the parser); the field values are sent with modify_fields (a regeneration). If they are already live, confirm with --accept-unknown parser.legacy-books: state records them, no call is made',
      'parser.legacy-books: title, upc, price: modify_fields sends these fields without a selector, and the selector the live parser may have was never seen (imported): the service may drop it. To keep it, declare the selector in the manifest (fields.title.selector, fields.upc.selector, fields.price.selector)',
    ]);

    // The fix the warning names: declare the selectors.
    await writeFile(manifestFile(), declareKnownValues(imported, true));
    const fixed = JSON.parse(
      (await scrapeform(['plan', path.join(dir, 'imported'), '--json'])).stdout,
    ) as PlanJson;
    expect(fixed.warnings.filter((w) => w.includes('may drop'))).toEqual([]);
    expect(fixed.resource_changes.map((c) => c.action)).toEqual(['update']);

    const applied = await scrapeform(['apply', path.join(dir, 'imported'), '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(writes().filter((w) => !w.startsWith('PATCH'))).toEqual(['POST /parsers']);
    expect(applied.stdout.split('\n')[0]).toBe('Plan: 1 to update (1 regeneration, ~30,000 credits).');
    // A type never seen is not reported as a retype consumers would notice.
    expect(applied.stdout).not.toContain('retypes price');
    expect(applied.stdout).toContain('2 checks passed');
    const stored = [...h.emulator.parsers.parsers.values()];
    expect(stored).toHaveLength(1);
    const latest = stored[0]?.versions.at(-1);
    expect(latest?.status).toBe('FINISHED');
    expect(latest?.fields.map((f) => [f.name, f.selector])).toEqual([
      ['title', 'h1'],
      ['upc', 'td.upc'],
      ['price', '.price_color'],
    ]);
    // Every field was sent as declared, so only the scraper params are still unknown: recorded with
    // --accept-unknown, and nothing is sent.
    expect((await state()).unknown).toEqual({ scraperParams: true });
    h.emulator.requestLog.length = 0;
    const accepted = await scrapeform([
      'apply',
      path.join(dir, 'imported'),
      '--auto-approve',
      '--accept-unknown',
      'parser.legacy-books',
    ]);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stdout).toContain('~ parser.legacy-books');
    expect(accepted.stdout).toContain(
      '# records scraper_params: {"country_code":"us","device_type":"desktop"}',
    );
    expect(writes()).toEqual([]);
    const recorded = await state();
    expect(recorded.definition?.scraperParams).toEqual({ country_code: 'us', device_type: 'desktop' });
    expect(recorded.unknown).toBeUndefined();
    expect(recorded.descriptionsKnown).toBe(true);
    await expectNoChanges();
  });

  it('every value declared and confirmed: a saved plan records them, with no call and no regeneration', async () => {
    const declared = declareKnownValues(await readFile(manifestFile(), 'utf8'), true);
    await writeFile(manifestFile(), declared);
    const planFile = path.join(dir, 'plan.json');
    const planned = await scrapeform([
      'plan',
      path.join(dir, 'imported'),
      '--accept-unknown',
      'parser.legacy-books',
      '--out',
      planFile,
      '--json',
    ]);
    expect(planned.code, planned.stderr).toBe(0);
    const json = JSON.parse(planned.stdout) as PlanJson;
    expect(json.warnings).toEqual([]);
    expect(json.resource_changes).toHaveLength(1);
    const [record] = json.resource_changes;
    expect(record).toMatchObject({
      action: 'record',
      regenerates: false,
      destructive: false,
      requests: [],
      record: { kind: 'Parser', baseVersion: 0, descriptionsKnown: false, generates: false },
    });
    expect(record?.record).toMatchObject({ unknown: { types: ['title', 'upc'] } });
    expect(record?.reasons).toEqual([
      'values never seen (imported) confirmed live with --accept-unknown: recorded in state, no call for them',
      'records scraper_params: {"country_code":"us","device_type":"desktop"}',
      'records title.description: "Book title"',
      'records title.selector: "h1"',
      'records upc.description: "Universal product code"',
      'records upc.selector: "td.upc"',
      'records price.description: "Price with tax"',
      'records price.selector: ".price_color"',
      'records price.type: "number"',
      'still never seen (declare them, then --accept-unknown again): title.type, upc.type',
    ]);

    h.emulator.requestLog.length = 0;
    const applied = await scrapeform([
      'apply',
      path.join(dir, 'imported'),
      '--plan',
      planFile,
      '--auto-approve',
    ]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout.split('\n')[0]).toBe(
      'Plan: 1 to record in state (values confirmed live) (no regeneration, no credits).',
    );
    expect(writes()).toEqual([]);
    expect(h.emulator.parsers.parsers.size).toBe(1);
    expect([...h.emulator.parsers.parsers.values()][0]?.versions).toHaveLength(1);
    const recorded = await state();
    expect(recorded.version).toBe(0);
    expect(recorded.definition?.scraperParams).toEqual({ country_code: 'us', device_type: 'desktop' });
    expect(recorded.definition?.fields[0]).toEqual({
      name: 'title',
      description: 'Book title',
      selector: 'h1',
    });
    expect(recorded.unknown).toEqual({ types: ['title', 'upc'] });
    await expectNoChanges();
  });

  it('--accept-unknown naming an unknown address: the exact message, and nothing is sent', async () => {
    h.emulator.requestLog.length = 0;
    const run = await scrapeform([
      'plan',
      path.join(dir, 'imported'),
      '--accept-unknown',
      'parser.legacy-book',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'error: --accept-unknown parser.legacy-book: no manifest declares it and state does not manage it',
    );
    expect(run.stderr).toContain('parser.legacy-book -> did you mean parser.legacy-books?');
    expect(h.emulator.requestLog).toEqual([]);
  });
});
