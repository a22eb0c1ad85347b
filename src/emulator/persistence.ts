import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ScrapeformError } from '../errors.js';
import { replaceFile } from '../replace-file.js';
import type { Account } from './accounts.js';
import { holdsDate } from './clock.js';
import type { StoredParser } from './parser-records.js';
import type { ProjectSnapshot } from './project-service.js';
import { isRecord as isObject } from '../is-record.js';

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
  /**
   * Resolves once every asked-for write has run and the last one is on disk; rejects with `emulator.state-unwritable`
   * when the last one failed (the file holds older state than the emulator).
   */
  flush(): Promise<void>;
}

/**
 * Coalesced, ordered writes of the state taken at write time, so a burst of changes costs one write. A write that
 * fails never stops the next one (the disk may be freed, the folder put back): `report` hears of the first failure,
 * not of each one after it, and of the first write that works again. The chain never rejects: a rejection nobody
 * handles would end the process.
 */
export function createStateSaver(
  dataDir: string,
  takeState: () => PersistedState,
  report: (problem: string) => void,
): StateSaver {
  const file = path.join(dataDir, STATE_FILE);
  let saving: Promise<void> = Promise.resolve();
  let queued = false;
  let failure: ScrapeformError | undefined;
  return {
    save() {
      if (queued) return;
      queued = true;
      saving = saving.then(async () => {
        queued = false;
        try {
          await writeState(dataDir, takeState());
          if (failure !== undefined) report(`the emulator state ${file} is written again`);
          failure = undefined;
        } catch (error) {
          if (failure === undefined) {
            failure = unwritable(file, error);
            report(`${failure.message}; the emulator keeps running and tries again at the next change`);
          }
        }
      });
    },
    // A write that failed is tried once more at the end: space freed since, with no change after it, still saves.
    flush() {
      if (failure !== undefined) this.save();
      return saving.then(() => {
        if (failure !== undefined) throw failure;
      });
    },
  };
}

function unwritable(file: string, cause: unknown): ScrapeformError {
  return new ScrapeformError(
    'emulator.state-unwritable',
    `cannot write the emulator state ${file}: ${(cause as Error).message}`,
    {
      hint: 'free space on the disk, or give write access to the folder; changes since the last write are not saved',
      details: { file },
      cause,
    },
  );
}

/**
 * Writes the state atomically (replaceFile: a temporary file, flushed to disk, then a rename over the old one), so a
 * crash midway never leaves a cut-short file, which the next start refuses. Readable by this user alone, even when
 * the file was widened since: it holds the accounts' API keys.
 */
async function writeState(dataDir: string, state: PersistedState): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  await replaceFile(path.join(dataDir, STATE_FILE), JSON.stringify(state), { mode: 0o600 });
}

/**
 * The state saved in `dataDir`, or undefined when there is none yet. A file that is not JSON or not of this shape
 * is refused, naming it: starting empty would drop what it holds at the next write.
 */
export async function readState(dataDir: string): Promise<PersistedState | undefined> {
  const file = path.join(dataDir, STATE_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unreadable(file, (error as Error).message, error);
  }
  let state: unknown;
  try {
    state = JSON.parse(text) as unknown;
  } catch {
    // Not the parser's message: newer Nodes quote the text around the fault, which may be an account's API key.
    throw unreadable(file, 'not JSON (cut short or damaged)');
  }
  const problem = describeStateProblem(state);
  if (problem !== undefined) throw unreadable(file, `not an emulator state this version reads: ${problem}`);
  return state as PersistedState;
}

function unreadable(file: string, why: string, cause?: unknown): ScrapeformError {
  return new ScrapeformError('emulator.state-unreadable', `cannot read the emulator state ${file}: ${why}`, {
    hint: 'restore the file from a backup, or move it away to start with an empty emulator',
    details: { file },
    ...(cause !== undefined ? { cause } : {}),
  });
}

/** What is wrong with the top of a parsed state file (the parts start-up relies on), or undefined. */
function describeStateProblem(state: unknown): string | undefined {
  if (!isObject(state)) return 'the file holds no object';
  const accounts = state.accounts;
  if (!Array.isArray(accounts) || !accounts.every((a) => isObject(a) && typeof a.key === 'string'))
    return '"accounts" is not a list of accounts';
  const parsers = state.parsers;
  if (!Array.isArray(parsers) || !parsers.every((p) => isObject(p) && Array.isArray(p.versions)))
    return '"parsers" is not a list of parsers';
  if (typeof state.clockOffsetMs !== 'number' || !holdsDate(Date.now() + state.clockOffsetMs))
    return '"clockOffsetMs" is not a clock offset';
  const projects = state.projects;
  if (projects === undefined) return undefined;
  if (
    !isObject(projects) ||
    !['projects', 'archived', 'jobs'].every((key) => Array.isArray(projects[key])) ||
    typeof projects.nextProjectId !== 'number' ||
    typeof projects.nextJobId !== 'number'
  )
    return '"projects" is not a record of projects and jobs';
  return undefined;
}
