import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import type * as fsPromises from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmulator } from '../../src/emulator/server.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { runScrapeform } from '../helpers/cli.js';

/** A disk that fills up once `full` holds: every later write of the state's temporary file fails with ENOSPC. */
const disk = vi.hoisted(() => ({ full: undefined as undefined | (() => boolean) }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof fsPromises>();
  const open: typeof real.open = async (file, flags, mode) => {
    const handle = await real.open(file, flags, mode);
    if (/state\.json\.\d+\.[0-9a-f]{8}\.tmp$/.test(String(file)) && disk.full?.() === true) {
      handle.writeFile = () =>
        Promise.reject(
          Object.assign(new Error(`ENOSPC: no space left on device, write`), {
            code: 'ENOSPC',
            syscall: 'write',
          }),
        );
    }
    return handle;
  };
  return { ...real, open, default: { ...real, open } };
});

const KEY = 'state-full-key';
const PARSERS = 5;
let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator({ apiKeys: [KEY], generationDelayMs: 30 });
});
afterAll(async () => {
  await emulator.close();
});

describe('the disk under the state fills up during apply', () => {
  it('stops the paid calls, names what was created and not recorded, and the next apply converges with no duplicate', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-statefull-'));
    for (let i = 0; i < PARSERS; i++)
      await writeFile(
        path.join(dir, `p${i}.yaml`),
        `kind: Parser\nname: p${i}\nurls: [https://books.example/catalogue/page-1.html]\nfields:\n  heading: { description: Page heading, selector: h1 }\n`,
      );
    const env = {
      SCRAPERAPI_API_KEY: KEY,
      SCRAPEFORM_PARSER_URL: emulator.url,
      SCRAPEFORM_PIPELINE_URL: emulator.url,
      SCRAPEFORM_POLL_INTERVAL: '20ms',
    };
    const created = (): string[] => [...emulator.parsers.parsers.values()].map((p) => p.name).sort();
    // The intents go to disk before the first POST; every write after it fails. One generation at a time, so
    // the failed write comes before the last creates.
    disk.full = () => created().length > 0;
    const run = await runScrapeform(['--chdir', dir, 'apply', '--auto-approve', '--max-generating', '1'], {
      env,
    });
    const landed = created();
    // No create was sent once state could not record it.
    expect(landed.length).toBeGreaterThan(0);
    expect(landed.length).toBeLessThan(PARSERS);
    expect(run.code).toBe(1);
    // The creates never sent say so, not that they failed as a call the service refused would.
    const neverSent = Array.from({ length: PARSERS }, (_, i) => `p${i}`).filter(
      (name) => !landed.includes(name),
    );
    for (const name of neverSent) {
      expect(run.stderr).toContain(`parser.${name}  stopped: not started: state could not be written\n`);
      expect(run.stderr).not.toContain(`parser.${name}  failed`);
    }
    const error = run.stderr.slice(run.stderr.indexOf('error: '));
    expect(error).toBe(
      `error: cannot write the state file .scrapeform/state.json: no space left on the device (ENOSPC); the state was not changed; apply stopped: state does not hold all it did for ${landed.map((name) => `parser.${name} (create)`).join(', ')}, which the next apply reads again (a create not recorded is found by name); not started, nothing sent: ${neverSent.map((name) => `parser.${name}`).join(', ')}\n  hint: free space on that disk, then run the command again\n`,
    );
    expect(run.stderr).not.toContain('internal error');
    // No temporary file is left; the journal beside the state names each create sent and not recorded.
    expect((await readdir(path.join(dir, '.scrapeform'))).sort()).toEqual(['state.json', 'state.json.sent']);
    const journal = await readFile(path.join(dir, '.scrapeform', 'state.json.sent'), 'utf8');
    for (const name of landed) expect(journal).toContain(`"parser.${name}"`);

    disk.full = undefined;
    const again = await runScrapeform(['--chdir', dir, 'apply', '--auto-approve'], { env });
    expect(again.code, again.stderr).toBe(0);
    for (const name of landed) expect(again.stdout).toContain(`warning: parser.${name}: recovered parser`);
    expect(created()).toEqual(Array.from({ length: PARSERS }, (_, i) => `p${i}`));
    // Carried into state by that apply's writes, the journal is gone.
    expect(await readdir(path.join(dir, '.scrapeform'))).toEqual(['state.json']);
    const plan = await runScrapeform(['--chdir', dir, 'plan', '--detailed-exitcode'], { env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });
});
