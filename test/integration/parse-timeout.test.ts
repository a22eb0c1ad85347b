import { holdingParses } from '../helpers/emulator-front.js';
import { afterEach, describe, expect, it } from 'vitest';
import { emulatorEnv, runBuiltCli } from '../helpers/child-cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { BOOK_A, bookParser, TestWorkspace } from '../helpers/workspace.js';

let h: EmulatorHarness | undefined;
const closers: (() => void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) close();
  await h?.emulator.close();
  h = undefined;
});

describe('parse', () => {
  it('a parse that never answers ends at the request timeout, is not sent again, and says it may have been charged', async () => {
    h = await startTestEmulator();
    const ws = await TestWorkspace.create(h);
    await ws.write({ 'books.yaml': bookParser('  title: { description: Book title, selector: h1 }\n') });
    await ws.applyChanges(await ws.plan());
    // A front of the emulator that holds every parse (a page the service takes for ever to fetch).
    const { url, parses, close } = await holdingParses(h.emulator.url);
    closers.push(close);
    const run = await runBuiltCli(
      ['parse', 'parser.books', BOOK_A, '--state', ws.backend.location, '--timeout', '300ms'],
      { cwd: ws.dir, env: emulatorEnv(url, EMULATOR_KEY), exitWithinMs: 20_000 },
    );
    expect(run.hung).toBeUndefined();
    expect(parses).toHaveLength(1);
    expect(run.stdout).toBe('');
    const id = /^\/parse\/([^/?]+)/.exec(parses[0] ?? '')?.[1] ?? 'none';
    expect(run.stderr).toBe(
      [
        `error: GET ${url}/parse/${id}?url=${encodeURIComponent(BOOK_A)}&api_key=***: timed out: no answer within the request timeout of 300 ms: a parse is charged per try and this one may have been: not sent again`,
        // Not "retry": the parse may have been paid for, and sent again it may be paid twice.
        '  hint: the service did not answer in time, and this parse may have been charged: parsing the page again may be paid twice (check the usage in the ScraperAPI dashboard); check the network, or raise the request timeout (--timeout or SCRAPEFORM_TIMEOUT)',
        '',
      ].join('\n'),
    );
    expect(run.code).toBe(1);
  }, 30_000);
});
