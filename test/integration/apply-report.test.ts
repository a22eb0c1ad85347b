import { mkdtemp, readFile, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';

const parser = (titleSelector: string): string => `kind: Parser
name: books
urls:
  - https://books.example/catalogue/a-light-in-the-attic_1000/index.html
  - https://books.example/catalogue/tipping-the-velvet_999/index.html
fields:
  title:
    description: Book title from the main heading
    selector: ${titleSelector}
  price:
    description: Price including tax, as a number
    type: number
`;

/** apply ends each regeneration with what it did to the data, in every output, and flags a field gone everywhere. */
describe('the apply report of a regeneration', () => {
  let h: EmulatorHarness;
  let dir: string;
  beforeAll(async () => {
    h = await startTestEmulator();
    dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-report-'));
    await mkdir(path.join(dir, 'manifests'));
  });
  afterAll(async () => {
    await h.emulator.close();
  });
  const apply = async (extra: string[]) =>
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
          SCRAPEFORM_PARSER_URL: h.emulator.url,
          SCRAPEFORM_PIPELINE_URL: h.emulator.url,
          SCRAPEFORM_POLL_INTERVAL: '10ms',
        },
      },
    );

  it('a regeneration that loses a field shows the diff and flags the field as a likely regression', async () => {
    await writeFile(path.join(dir, 'manifests', 'books.yaml'), parser('h1'));
    const created = await apply([]);
    expect(created.code, created.stderr).toBe(0);

    // A selector that matches nothing: the next version extracts no title from any page.
    await writeFile(path.join(dir, 'manifests', 'books.yaml'), parser('.no-such-element'));
    const report = path.join(dir, 'report.md');
    const updated = await apply(['--json', '--markdown-report', report]);
    expect(updated.code, updated.stderr).toBe(0);
    const json = JSON.parse(updated.stdout) as {
      result_changes: {
        address: string;
        from: { version: number };
        to: { version: number };
        missing: string[];
        changes: { path: string; change: string; url: string }[];
      }[];
    };
    expect(json.result_changes).toHaveLength(1);
    const [diff] = json.result_changes;
    expect(diff).toMatchObject({
      address: 'parser.books',
      from: { version: 0 },
      to: { version: 1 },
      missing: ['title'],
    });
    // Both example pages lose their title (the emulator reports it as null).
    expect(diff?.changes.filter((c) => c.path === 'title')).toEqual([
      expect.objectContaining({ change: 'changed', to: null }),
      expect.objectContaining({ change: 'changed', to: null }),
    ]);
    const markdown = await readFile(report, 'utf8');
    expect(markdown).toContain('### scrapeform apply: complete');
    expect(markdown).toContain('#### Data: `parser.books`, version 0 -> 1');
    expect(markdown).toContain(
      'Likely regression: `title` had a value before and is missing from every example now.',
    );

    // The same facts for people.
    await writeFile(path.join(dir, 'manifests', 'books.yaml'), parser('h1'));
    const back = await apply([]);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toContain('What the regenerations changed in the data:');
    expect(back.stdout).toContain('example_result, version 1 -> 2:');
    expect(back.stdout).not.toContain('likely regression');
  });
});
