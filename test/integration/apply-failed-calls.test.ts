import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';

const parser = (priceDescription: string): string => `kind: Parser
name: books
urls:
  - https://books.example/catalogue/a-light-in-the-attic_1000/index.html
fields:
  title:
    description: Book title from the main heading
    selector: h1
  price:
    description: ${priceDescription}
    type: number
`;

interface Json {
  status: string;
  results: { address: string; ok: boolean; calls: { method: string; path: string; status: number }[] }[];
}

/**
 * `apply --json` lists every call a change sent with the status it got, a failed one too: an auditor counting calls
 * (credits) from the JSON must see a call refused, or one whose answer was lost and may have landed.
 */
describe('the calls apply --json lists', () => {
  let h: EmulatorHarness | undefined;
  afterEach(async () => {
    await h?.emulator.close();
    h = undefined;
  });

  const workspace = async (text: string): Promise<string> => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-failed-calls-'));
    await mkdir(path.join(dir, 'manifests'));
    await writeFile(path.join(dir, 'manifests', 'books.yaml'), text);
    return dir;
  };
  const apply = (harness: EmulatorHarness, dir: string, extra: string[] = []) =>
    runScrapeform(
      [
        'apply',
        path.join(dir, 'manifests'),
        '--auto-approve',
        '--state',
        path.join(dir, 'state.json'),
        ...extra,
      ],
      {
        env: {
          SCRAPERAPI_API_KEY: EMULATOR_KEY,
          SCRAPEFORM_PARSER_URL: harness.emulator.url,
          SCRAPEFORM_PIPELINE_URL: harness.emulator.url,
          SCRAPEFORM_POLL_INTERVAL: '10ms',
        },
      },
    );

  it('a create the service refused for credits (402) is listed with its status', async () => {
    h = await startTestEmulator({ credits: 1000 });
    const dir = await workspace(parser('Price including tax'));
    const run = await apply(h, dir, ['--json']);
    expect(run.code, run.stderr).toBe(1);
    const json = JSON.parse(run.stdout) as Json;
    expect(json.status).toBe('failed');
    expect(json.results).toHaveLength(1);
    expect(json.results[0]).toMatchObject({ address: 'parser.books', ok: false });
    expect(json.results[0]?.calls).toEqual([{ method: 'POST', path: '/parsers', status: 402 }]);
  });

  it('a PATCH whose answer did not come in time is listed, with status 0', async () => {
    h = await startTestEmulator();
    const dir = await workspace(parser('Price including tax'));
    const created = await apply(h, dir);
    expect(created.code, created.stderr).toBe(0);
    const [live] = await h.parsers.list();
    expect(live).toBeDefined();

    // The service acts on the PATCH (a regeneration starts) and holds its answer past the request timeout.
    await writeFile(path.join(dir, 'manifests', 'books.yaml'), parser('Price with tax, a number'));
    h.emulator.setFaults({ responseDelayMs: 3000, responseDelayMethods: ['PATCH'] });
    const run = await apply(h, dir, ['--json', '--timeout', '500ms']);
    expect(run.code, run.stderr).toBe(1);
    const json = JSON.parse(run.stdout) as Json;
    expect(json.results[0]).toMatchObject({ address: 'parser.books', ok: false });
    expect(json.results[0]?.calls).toEqual([
      { method: 'PATCH', path: `/parsers/${String(live?.id)}/0`, status: 0 },
    ]);
  });
});
