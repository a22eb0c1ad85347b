import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import type * as fsPromises from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { EMULATOR_KEY, startTestEmulator, waitForVersion } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';

/**
 * A disk that fails one write or one removal, simulated without root (root may write a read-only folder): `open`
 * of a file matching `write` gets a handle whose write fails (a full disk); `rm` of a file matching `remove` fails.
 */
const MESSAGES: Record<string, string> = { ENOSPC: 'no space left on device', EACCES: 'permission denied' };
const disk = vi.hoisted(() => ({
  write: undefined as undefined | { code: string; match: RegExp },
  remove: undefined as undefined | { code: string; match: RegExp },
  /** Run just before the write that fails fails. */
  beforeFailing: undefined as undefined | (() => Promise<void>),
}));

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof fsPromises>();
  const failed = (code: string, syscall: string, file: string): NodeJS.ErrnoException =>
    Object.assign(new Error(`${code}: ${MESSAGES[code] ?? 'simulated'}, ${syscall} '${file}'`), {
      code,
      syscall,
      path: file,
    });
  const open: typeof real.open = async (file, flags, mode) => {
    const failure = disk.write;
    const handle = await real.open(file, flags, mode);
    if (failure !== undefined && failure.match.test(String(file)))
      handle.writeFile = async () => {
        await disk.beforeFailing?.();
        throw failed(failure.code, 'write', String(file));
      };
    return handle;
  };
  const rm: typeof real.rm = async (file, options) => {
    const failure = disk.remove;
    if (failure !== undefined && failure.match.test(String(file)))
      throw failed(failure.code, 'rm', String(file));
    return real.rm(file, options);
  };
  return { ...real, open, rm, default: { ...real, open, rm } };
});

let h: EmulatorHarness;
beforeAll(async () => {
  h = await startTestEmulator({ generationDelayMs: 1 });
});
afterAll(async () => h.emulator.close());
beforeEach(() => h.emulator.reset());
afterEach(() => {
  disk.write = undefined;
  disk.remove = undefined;
  disk.beforeFailing = undefined;
});

async function liveParser(name: string, page: number): Promise<string> {
  const created = await h.raw('POST', '/parsers', {
    api_key: EMULATOR_KEY,
    name,
    urls: [`https://books.example/catalogue/page-${page}.html`],
    fields: [{ name: 'title', description: 'Book title', selector: 'h1' }],
  });
  expect(created.status).toBeLessThan(300);
  const body = created.body as { id: string | number; version?: number };
  await waitForVersion(h.parsers, String(body.id), body.version ?? 1);
  return String(body.id);
}

async function folder() {
  const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-import-partial-'));
  const out = path.join(dir, 'imported');
  const stateFile = path.join(dir, 'state.json');
  const scrapeform = (args: string[]) =>
    runScrapeform([...args, '--state', stateFile], {
      env: {
        SCRAPERAPI_API_KEY: EMULATOR_KEY,
        SCRAPEFORM_PARSER_URL: h.emulator.url,
        SCRAPEFORM_PIPELINE_URL: h.emulator.url,
      },
    });
  return { dir, out, stateFile, scrapeform };
}

describe('import failing partway removes the manifests it wrote, and says which it could not', () => {
  it('a later manifest failing and an earlier one that cannot be removed: the failure, and the file left named', async () => {
    await liveParser('authors', 2);
    await liveParser('books', 1);
    const { out, dir, scrapeform } = await folder();
    const authors = path.join(out, 'parser-authors.yaml');
    disk.write = { code: 'ENOSPC', match: /\.parser-books\.yaml\.\d+\.[0-9a-f]{8}\.tmp$/ };
    disk.remove = { code: 'EACCES', match: /parser-authors\.yaml$/ };

    const run = await scrapeform(['import', '--out', out]);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: cannot write the imported manifest to ${path.join(out, 'parser-books.yaml')}: no space left on device (ENOSPC); nothing was imported; the manifests import wrote could not all be removed, and are left without state: ${authors} (permission denied (EACCES))\n  hint: remove them by hand before the next plan (it would adopt their objects by name) or import (it would pass them over as declared); free space on the disk, or give this user the right to write there, then run the command again\n`,
    });
    expect(await readdir(out)).toEqual(['parser-authors.yaml']);
    expect(await readdir(dir)).not.toContain('state.json');
  });

  it('a manifest replaced by a folder before its removal: named, with the failure that stopped the import', async () => {
    await liveParser('authors', 2);
    await liveParser('books', 1);
    const { out, scrapeform } = await folder();
    const authors = path.join(out, 'parser-authors.yaml');
    disk.write = { code: 'ENOSPC', match: /\.parser-books\.yaml\.\d+\.[0-9a-f]{8}\.tmp$/ };
    disk.beforeFailing = async () => {
      await rm(authors);
      await mkdir(path.join(authors, 'inside'), { recursive: true });
    };

    const run = await scrapeform(['import', '--out', out]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).not.toContain('internal error');
    const [message, hint] = run.stderr.split('\n');
    expect(message).toBe(
      `error: cannot write the imported manifest to ${path.join(out, 'parser-books.yaml')}: no space left on device (ENOSPC); nothing was imported; the manifests import wrote could not all be removed, and are left without state: ${authors} (a folder stands in its place (EISDIR))`,
    );
    expect(hint).toBe(
      '  hint: remove them by hand before the next plan (it would adopt their objects by name) or import (it would pass them over as declared); free space on the disk, or give this user the right to write there, then run the command again',
    );
  });

  it('the state write failing: the manifests written go, so the next import imports them (a state the write did not reach)', async () => {
    await liveParser('authors', 2);
    const { out, dir, stateFile, scrapeform } = await folder();
    disk.write = { code: 'ENOSPC', match: /state\.json\.\d+\.[0-9a-f]{8}\.tmp$/ };

    const run = await scrapeform(['import', '--out', out]);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: cannot write the state file ${stateFile}: no space left on the device (ENOSPC); the state was not changed; the manifests import wrote were removed, and nothing was imported\n  hint: free space on that disk, then run the command again\n`,
    });
    // Left there, the next import took parser.authors as declared ("Nothing to import") and never recorded it.
    expect(await readdir(out)).toEqual([]);
    expect(await readdir(dir)).toEqual(['imported']);

    disk.write = undefined;
    const again = await scrapeform(['import', '--out', out]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(`imported parser.authors -> ${path.join(out, 'parser-authors.yaml')}\n`);
    const plan = await scrapeform(['plan', out]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('No changes');
  });
});
