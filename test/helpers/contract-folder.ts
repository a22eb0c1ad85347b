import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';

/**
 * A fresh folder for each test of a contract test file (the CLI runs in it, its state in `.scrapeform/`), removed
 * after the test. Call once at the top of the file; `dir()` is the current test's folder.
 */
export function contractFolder(prefix: string): {
  dir: () => string;
  statePath: () => string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- state as the file holds it, read by tests
  readState: () => Promise<any>;
} {
  let dir: string | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), prefix));
  });
  afterEach(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });
  const current = (): string => {
    if (dir === undefined) throw new Error('contractFolder: no test is running');
    return dir;
  };
  const statePath = (): string => path.join(current(), '.scrapeform', 'state.json');
  return {
    dir: current,
    statePath,
    readState: async () => JSON.parse(await readFile(statePath(), 'utf8')) as unknown,
  };
}
