import { mkdir, mkdtemp, readdir, readFile } from 'node:fs/promises';
import type * as FsPromises from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createStateSaver } from '../../../src/emulator/persistence.js';
import type { PersistedState } from '../../../src/emulator/persistence.js';

/** What the write did, in order: each flush of a file to disk and each rename. */
const steps: string[] = [];

vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof FsPromises>();
  return {
    ...fs,
    open: async (...args: Parameters<typeof fs.open>) => {
      const handle = await fs.open(...args);
      const sync = handle.sync.bind(handle);
      handle.sync = async () => {
        await sync();
        steps.push(`sync ${path.basename(String(args[0]))}`);
      };
      return handle;
    },
    rename: async (from: string, to: string) => {
      steps.push(`rename ${path.basename(from)}`);
      return fs.rename(from, to);
    },
  };
});

const state: PersistedState = { accounts: [{ key: 'k', credits: 5 }], parsers: [], clockOffsetMs: 0 };
const newDataDir = (): Promise<string> => mkdtemp(path.join(tmpdir(), 'scrapeform-persistence-'));

describe('createStateSaver', () => {
  it('puts the new state on disk before it replaces the old file', async () => {
    const dataDir = await newDataDir();
    steps.length = 0;
    const saver = createStateSaver(dataDir, () => state);
    saver.save();
    await saver.flush();
    const temporary = `emulator-state.json.${process.pid}.tmp`;
    expect(steps).toEqual([`sync ${temporary}`, `rename ${temporary}`]);
    expect(JSON.parse(await readFile(path.join(dataDir, 'emulator-state.json'), 'utf8'))).toEqual(state);
    expect(await readdir(dataDir)).toEqual(['emulator-state.json']);
  });

  it('leaves no temporary file behind when a write fails', async () => {
    const dataDir = await newDataDir();
    const file = path.join(dataDir, 'emulator-state.json');
    // A folder where the state file goes: the rename over it fails once the temporary file is written.
    await mkdir(file);
    const saver = createStateSaver(dataDir, () => state);
    saver.save();
    await expect(saver.flush()).rejects.toMatchObject({ code: 'EISDIR' });
    expect(await readdir(dataDir)).toEqual(['emulator-state.json']);
  });
});
