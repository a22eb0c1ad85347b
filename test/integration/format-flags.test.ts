import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { heldByLiveProcess } from '../helpers/state.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CONFLICT =
  "error: option '--json' cannot be used with option '--markdown'\n(run scrapeform --help for usage)\n";

// --json with --markdown silently printed JSON. It is commander's usage error now, raised while the command line
// is parsed: before a manifest or saved plan is read, the state (and its lock) opened or a call sent.
describe('--json and --markdown together', () => {
  let h: EmulatorHarness;
  let dir: string;
  let state: string;
  beforeAll(async () => {
    h = await startTestEmulator();
    dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-formats-'));
    state = path.join(dir, 'state.json');
    await cp(path.join(ROOT, 'examples/quickstart'), path.join(dir, 'manifests'), { recursive: true });
  });
  afterAll(async () => {
    await h.emulator.close();
  });
  const env = (): Record<string, string> => ({
    SCRAPERAPI_API_KEY: EMULATOR_KEY,
    SCRAPEFORM_PARSER_URL: h.emulator.url,
    SCRAPEFORM_PIPELINE_URL: h.emulator.url,
  });
  // Every path absolute and the state named: the in-process CLI reads relative paths from the test's own folder.
  const cli = (args: string[]) =>
    runScrapeform(
      args.map((a) => (a === 'manifests' || a === 'plan.json' ? path.join(dir, a) : a)),
      { env: env() },
    );
  const sent = (): unknown[] => h.emulator.requestLog.filter((r) => !r.path.startsWith('/_emulator'));
  beforeEach(() => {
    h.emulator.requestLog.length = 0;
  });

  it.each([
    ['plan --lock', ['plan', 'manifests', '--json', '--markdown', '--lock'], true],
    ['plan --lock, the other way round', ['plan', 'manifests', '--markdown', '--lock', '--json'], true],
    ['drift', ['drift', 'manifests', '--json', '--markdown'], false],
    ['drift --accept', ['drift', 'manifests', '--markdown', '--json', '--accept'], true],
  ])('%s: a usage error naming both, exit 1, no lock taken, nothing sent', async (_, args, locks) => {
    // A lock a live run holds: a command that went on to lock would fail on it with another message.
    const lock = JSON.stringify(heldByLiveProcess());
    await writeFile(`${state}.lock`, lock);
    try {
      const run = await cli([...args, '--state', state]);
      expect(run.stderr).toBe(CONFLICT);
      expect(run.stdout).toBe('');
      expect(run.code).toBe(1);
      expect((await readdir(dir)).sort()).toEqual(['manifests', 'state.json.lock']);
      expect(await readFile(`${state}.lock`, 'utf8')).toBe(lock);
      expect(sent()).toEqual([]);
      // The same command with one format does go on: to the lock, or (drift without --accept, which takes none)
      // to its Markdown report.
      const one = await cli([...args.filter((a) => a !== '--json'), '--state', state]);
      expect(one.stderr).not.toContain('cannot be used with');
      if (locks) expect(one.stderr).toContain(`error: the state ${state} is locked by`);
      else expect(one.stdout).toMatch(/^### scrapeform drift\n/);
    } finally {
      await rm(`${state}.lock`);
    }
  });

  it('show: the same usage error before the saved plan is read', async () => {
    // plan.json does not exist: reading it would have failed with "cannot read the saved plan".
    const run = await cli(['show', 'plan.json', '--json', '--markdown']);
    expect(run.stderr).toBe(CONFLICT);
    expect(run.stdout).toBe('');
    expect(run.code).toBe(1);
    expect((await cli(['show', 'plan.json', '--markdown'])).stderr).toContain('cannot read the saved plan');
  });

  it('each alone still chooses its format', async () => {
    const markdown = await cli(['plan', 'manifests', '--markdown', '--state', state]);
    expect(markdown.code, markdown.stderr).toBe(0);
    expect(markdown.stdout).toMatch(/^#/);
    expect(sent()).not.toEqual([]);
    const json = await cli(['plan', 'manifests', '--json', '--state', state]);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ format_version: 1 });
  });
});
