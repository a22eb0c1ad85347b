import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Account } from './accounts.js';
import type { StoredParser } from './parser-records.js';
import type { ProjectSnapshot } from './project-service.js';

const STATE_FILE = 'emulator-state.json';

/** What `--data-dir` keeps between runs. Files written before projects were kept have no `projects`. */
export interface PersistedState {
  accounts: Account[];
  parsers: StoredParser[];
  projects?: ProjectSnapshot;
  clockOffsetMs: number;
}

export interface StateSaver {
  /** Asks for a write; asks made while one is queued share it. */
  save(): void;
  /** Resolves once every asked-for write is on disk. */
  flush(): Promise<void>;
}

/** Coalesced, ordered writes of the state taken at write time, so a burst of changes costs one write. */
export function createStateSaver(dataDir: string, takeState: () => PersistedState): StateSaver {
  let saving: Promise<void> = Promise.resolve();
  let queued = false;
  return {
    save() {
      if (queued) return;
      queued = true;
      saving = saving.then(async () => {
        queued = false;
        await writeState(dataDir, takeState());
      });
    },
    flush: () => saving,
  };
}

/** Writes the state atomically: a temporary file, then a rename over the old one. */
async function writeState(dataDir: string, state: PersistedState): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  const file = path.join(dataDir, STATE_FILE);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(state));
  await rename(temporary, file);
}

/** The state saved in `dataDir`, or undefined when there is none yet. */
export async function readState(dataDir: string): Promise<PersistedState | undefined> {
  try {
    return JSON.parse(await readFile(path.join(dataDir, STATE_FILE), 'utf8')) as PersistedState;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read the emulator state in ${dataDir}: ${(error as Error).message}`);
  }
}
