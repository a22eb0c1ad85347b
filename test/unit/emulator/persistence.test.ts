import { chmod, mkdir, mkdtemp, readdir, readFile, rmdir, stat, writeFile } from 'node:fs/promises';
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
    const saver = createStateSaver(
      dataDir,
      () => state,
      () => undefined,
    );
    saver.save();
    await saver.flush();
    const temporary = expect.stringMatching(
      new RegExp(`^(sync|rename) \\.emulator-state\\.json\\.${process.pid}\\.[0-9a-f]{8}\\.tmp$`),
    ) as unknown;
    // The folder is synced after the rename, so the new name is on disk too.
    expect(steps).toEqual([temporary, temporary, `sync ${path.basename(dataDir)}`]);
    expect(steps[0]?.startsWith('sync ')).toBe(true);
    expect(JSON.parse(await readFile(path.join(dataDir, 'emulator-state.json'), 'utf8'))).toEqual(state);
    expect(await readdir(dataDir)).toEqual(['emulator-state.json']);
  });

  it('leaves no temporary file behind when a write fails', async () => {
    const dataDir = await newDataDir();
    const file = path.join(dataDir, 'emulator-state.json');
    // A folder where the state file goes: the rename over it fails once the temporary file is written.
    await mkdir(file);
    const saver = createStateSaver(
      dataDir,
      () => state,
      () => undefined,
    );
    saver.save();
    await expect(saver.flush()).rejects.toMatchObject({
      code: 'emulator.state-unwritable',
      cause: { code: 'EISDIR' },
    });
    expect(await readdir(dataDir)).toEqual(['emulator-state.json']);
  });

  it('says once that writes fail, naming the file, keeps saving, and writes again once the fault is gone', async () => {
    const dataDir = await newDataDir();
    const file = path.join(dataDir, 'emulator-state.json');
    // A folder where the state file goes: every rename over it fails until it is taken away.
    await mkdir(file);
    const problems: string[] = [];
    const saver = createStateSaver(
      dataDir,
      () => state,
      (problem) => problems.push(problem),
    );
    for (let i = 0; i < 3; i++) {
      saver.save();
      await expect(saver.flush()).rejects.toMatchObject({
        code: 'emulator.state-unwritable',
        message: expect.stringContaining(file) as string,
      });
    }
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`cannot write the emulator state ${file}:`);
    expect(problems[0]).toContain('EISDIR');

    await rmdir(file);
    saver.save();
    await saver.flush();
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(state);
    expect(problems).toHaveLength(2);
    expect(problems[1]).toBe(`the emulator state ${file} is written again`);
  });

  it('tries a failed write once more when flushed at the end: space freed since, with no change after it, saves', async () => {
    const dataDir = await newDataDir();
    const file = path.join(dataDir, 'emulator-state.json');
    await mkdir(file);
    const problems: string[] = [];
    const saver = createStateSaver(
      dataDir,
      () => state,
      (problem) => problems.push(problem),
    );
    saver.save();
    await expect(saver.flush()).rejects.toMatchObject({ code: 'emulator.state-unwritable' });
    await rmdir(file);
    // No save() in between: only the flush at the end.
    await saver.flush();
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(state);
    expect(problems[1]).toBe(`the emulator state ${file} is written again`);
  });

  it("writes the state file readable by this user alone: it holds the accounts' API keys", async () => {
    const dataDir = await newDataDir();
    const saver = createStateSaver(
      dataDir,
      () => state,
      () => undefined,
    );
    saver.save();
    await saver.flush();
    expect((await stat(path.join(dataDir, 'emulator-state.json'))).mode & 0o777).toBe(0o600);
  });

  it('narrows a state file widened since back to this user alone at the next write', async () => {
    const dataDir = await newDataDir();
    const file = path.join(dataDir, 'emulator-state.json');
    await writeFile(file, JSON.stringify(state), { mode: 0o644 });
    await chmod(file, 0o644);
    const saver = createStateSaver(
      dataDir,
      () => state,
      () => undefined,
    );
    saver.save();
    await saver.flush();
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });
});
