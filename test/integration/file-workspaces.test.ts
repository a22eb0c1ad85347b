import { access, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';

const project = `kind: Project
name: nightly
projectType: urls
projectInput: { type: list, list: [https://books.example/catalogue/page-1.html] }
scrapingInterval: daily
`;

const exists = (file: string): Promise<boolean> =>
  access(file).then(
    () => true,
    () => false,
  );

/** Issue 15: with file state, `--workspace NAME` has its own state file instead of being silently ignored. */
describe('workspaces with file state', () => {
  let h: EmulatorHarness;
  let dir: string;
  beforeAll(async () => {
    h = await startTestEmulator();
    dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-workspaces-'));
    await mkdir(path.join(dir, 'manifests'));
    await writeFile(path.join(dir, 'manifests', 'nightly.yaml'), project);
  });
  afterAll(async () => {
    await h.emulator.close();
  });
  const state = (): string => path.join(dir, '.scrapeform', 'state.json');
  const run = (args: string[]) =>
    runScrapeform([args[0] ?? '', path.join(dir, 'manifests'), '--state', state(), ...args.slice(1)], {
      env: {
        SCRAPERAPI_API_KEY: EMULATOR_KEY,
        SCRAPEFORM_PARSER_URL: h.emulator.url,
        SCRAPEFORM_PIPELINE_URL: h.emulator.url,
      },
    });

  it('each workspace keeps its own .scrapeform/NAME/state.json; default keeps .scrapeform/state.json', async () => {
    const applied = await run(['apply', '--auto-approve', '--workspace', 'staging']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(await exists(path.join(dir, '.scrapeform', 'staging', 'state.json'))).toBe(true);
    expect(await exists(path.join(dir, '.scrapeform', 'state.json'))).toBe(false);
    const again = await run(['plan', '--detailed-exitcode', '--workspace', 'staging']);
    expect([again.code, again.stdout.trim()]).toEqual([
      0,
      'No changes. The live services match the manifests.',
    ]);
    // The default workspace has no state: the live project of that name is one to adopt, not one it manages.
    const other = await run(['plan', '--workspace', 'default']);
    expect(other.stdout).toContain('adopted: the live project');
  });

  it('a name that is not a folder name is refused before anything is read or sent', async () => {
    h.emulator.requestLog.length = 0;
    const refused = await run(['plan', '--workspace', '../elsewhere']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'error: workspace "../elsewhere" must be 1 to 40 letters, digits, - or _',
    );
    expect(h.emulator.requestLog).toEqual([]);
  });

  it('two workspaces differing only in case are refused: a case-insensitive disk would give them one file', async () => {
    h.emulator.requestLog.length = 0;
    const refused = await run(['plan', '--workspace', 'Staging']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `error: workspace "Staging" differs only in case from the workspace folder ${path.join(dir, '.scrapeform', 'staging')}: on a case-insensitive file system the two would share one state file`,
    );
    expect(h.emulator.requestLog.filter((e) => e.method !== 'GET')).toEqual([]);
  });
});
