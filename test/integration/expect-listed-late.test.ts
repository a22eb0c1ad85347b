import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { emulatorEnv } from '../helpers/child-cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { BOOK_A, bookParser, TestWorkspace } from '../helpers/workspace.js';

let h: EmulatorHarness | undefined;
afterEach(async () => {
  await h?.emulator.close();
  h = undefined;
});

/**
 * `test` learns from one list whether each parser's latest version is FINISHED. Nothing public says a new parser
 * or version is listed at once (API-NOTES, Lists; the emulator's lagging-list): a parser `apply --no-wait` just
 * created is not in the list yet, and was taken for ready: a parse was sent (paid) while it generated, and its
 * empty result reported as every expected field missing.
 */
describe('expect checks of a parser the list does not show yet', () => {
  it('test reads the parser by id (free): still generating is an error, and no parse is sent', async () => {
    h = await startTestEmulator({ quirks: ['lagging-list'], generationDelayMs: 600_000 });
    const ws = await TestWorkspace.create(h);
    await ws.write({
      'books.yaml': bookParser(
        '  title: { description: Book title, selector: h1 }\n',
        `expect:\n  - url: ${BOOK_A}\n    result: { title: A Light in the Attic }\n`,
      ),
    });
    await ws.applyChanges(await ws.plan(), { noWait: true });
    h.emulator.requestLog.length = 0;

    const run = await runScrapeform(
      ['test', path.join(ws.dir, 'manifests'), '--json', '--state', ws.backend.location],
      { env: emulatorEnv(h.emulator.url, EMULATOR_KEY) },
    );
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as { results: { url: string; ok: boolean; error?: string }[] };
    expect(report.results.map((r) => [r.url, r.ok, r.error])).toEqual([
      [BOOK_A, false, 'version 0 is still generating; the checks run once it is FINISHED'],
    ]);
    expect(h.emulator.requestLog.filter((r) => r.path.startsWith('/parse/'))).toEqual([]);
  });
});
