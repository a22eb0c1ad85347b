import { randomUUID } from 'node:crypto';
import { link, mkdir, open, readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import type { BigIntStats } from 'node:fs';
import path from 'node:path';
import { ScrapeformError } from '../errors.js';
import { describeLock, lockAliveError, lockMismatch, newLockInfo } from './backend.js';
import type { ForceUnlockOptions, LockInfo, StateBackend, StateLock } from './backend.js';
import { judgeHolder } from './process-identity.js';
import { checkStateFormat, emptyState, nextState } from './model.js';
import type { State, StateIdentity } from './model.js';
import { DEFAULT_STATE_PATH, DEFAULT_WORKSPACE } from '../model/state-location.js';

export { DEFAULT_STATE_PATH } from '../model/state-location.js';

/**
 * State in a JSON file, written atomically (temporary file, fsync, rename, fsync of the folder), with a lock file
 * beside it created exclusively (O_EXCL), so two runs on one machine or shared disk never both write; each write
 * first checks that the lock is still this run's.
 *
 * The serial read or last written is kept in memory with the file's identity (inode, size, modification time):
 * a write re-reads the file to check the serial only when the file changed since (another run, force-unlocked),
 * so a large state is not parsed again on every write. The file is compact JSON: it is rewritten often.
 */
export class FileStateBackend implements StateBackend {
  readonly location: string;
  readonly stateIdentity: StateIdentity;
  private readonly lockPath: string;
  /** Created exclusively while a run takes over a stale lock, so two runs never both do. */
  private readonly guardPath: string;
  /** The lock this backend holds: each write first checks that the lock file still names it. */
  private held: LockInfo | undefined;
  private lastSerial: number | undefined;
  /** The file as this backend last read or wrote it; undefined when unknown (then the serial is read again). */
  private lastSeen: FileIdentity | undefined;
  /** A lock this backend took over because the process holding it had died (the CLI reports it). */
  staleLockBroken: LockInfo | undefined;

  /** Whether the workspace's folder was checked against the names beside it (once per backend). */
  private folderChecked = false;

  /**
   * @param file the state file: for a workspace other than `default`, the one inside its folder
   *   (model/state-location.ts, workspaceStatePath).
   */
  constructor(
    file: string = DEFAULT_STATE_PATH,
    readonly workspace: string = DEFAULT_WORKSPACE,
  ) {
    this.location = file;
    // As --state and scrapeform.yaml name it: a relative path relative to the working directory (the checkouts
    // that plan and apply, a pull request's job and the merge's, are different folders), an absolute one as it is
    // (the same file from any folder); `/` on every system.
    this.stateIdentity = {
      workspace,
      location: (path.isAbsolute(file)
        ? path.resolve(file)
        : path.relative(process.cwd(), path.resolve(file))
      )
        .split(path.sep)
        .join('/'),
    };
    this.lockPath = `${file}.lock`;
    this.guardPath = `${file}.lock.takeover`;
  }

  /**
   * `Prod` and `prod` are different workspaces, but on a case-insensitive file system (macOS, Windows) their
   * folders are one: a workspace whose name differs only in case from a folder beside it is refused on every
   * system, so no two workspaces ever share a state file unnoticed.
   */
  private async checkFolderCase(): Promise<void> {
    if (this.workspace === DEFAULT_WORKSPACE || this.folderChecked) return;
    const parent = path.dirname(path.dirname(this.location));
    let entries: string[] = [];
    try {
      entries = await readdir(parent);
    } catch {
      // No folder yet: nothing to collide with.
    }
    const lower = this.workspace.toLowerCase();
    const other = entries.find((entry) => entry !== this.workspace && entry.toLowerCase() === lower);
    if (other !== undefined) {
      throw new ScrapeformError(
        'state.workspace',
        `workspace "${this.workspace}" differs only in case from the workspace folder ${path.join(parent, other)}: on a case-insensitive file system the two would share one state file`,
        { hint: `use the workspace "${other}", or a name that differs in more than case` },
      );
    }
    this.folderChecked = true;
  }

  async read(): Promise<State> {
    await this.checkFolderCase();
    // Identified before reading: a file replaced in between is then seen as changed at the next write.
    const seen = await identify(this.location);
    let text: string;
    try {
      text = await readFile(this.location, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EISDIR') throw notAFile(this.location);
      if (code !== 'ENOENT') throw error;
      // No lineage until the first write, so two reads of a missing state compare equal (a saved plan made
      // before the first apply is not refused for a lineage that never existed).
      this.lastSerial = 0;
      this.lastSeen = undefined;
      return emptyState('');
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (error) {
      throw new ScrapeformError(
        'state.corrupt',
        `the state file ${this.location} is not valid JSON: ${(error as Error).message}`,
        {
          hint: 'restore it from a backup (state.json is rewritten atomically, so a half-written file means it was edited)',
        },
      );
    }
    const state = checkStateFormat(data, `the file ${this.location}`);
    this.lastSerial = state.serial;
    this.lastSeen = seen;
    return state;
  }

  async write(state: State): Promise<State> {
    await this.checkFolderCase();
    const now = await identify(this.location);
    const stored = sameFile(now, this.lastSeen) ? this.lastSerial : await this.peekSerial();
    // Serialised in one synchronous step: the caller may change `state` while the file is written.
    const next = nextState(state, stored, this.lastSerial, this.location);
    const text = `${JSON.stringify(next)}\n`;
    await mkdir(path.dirname(this.location), { recursive: true });
    const temporary = `${this.location}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
    const handle = await open(temporary, 'w');
    let written: FileIdentity;
    try {
      await handle.writeFile(text);
      await handle.sync();
      // The rename keeps inode, size and time: this is the file's identity once it is in place.
      written = identityOf(await handle.stat({ bigint: true }));
    } finally {
      await handle.close();
    }
    try {
      await this.checkLockHeld();
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    await rename(temporary, this.location);
    await syncFolder(path.dirname(this.location));
    this.lastSerial = next.serial;
    this.lastSeen = written;
    return next;
  }

  private async peekSerial(): Promise<number | undefined> {
    try {
      return (JSON.parse(await readFile(this.location, 'utf8')) as State).serial;
    } catch {
      return undefined;
    }
  }

  async lock(operation: string): Promise<StateLock> {
    await this.checkFolderCase();
    await mkdir(path.dirname(this.lockPath), { recursive: true });
    const info = newLockInfo(operation);
    for (let attempt = 1; ; attempt++) {
      if (await createExclusive(this.lockPath, info)) break;
      const held = await this.readLockText();
      // A lock left by a process of this machine that no longer runs (killed) is stale beyond doubt: take it
      // over once. A holder on another host, or in another container, may still be running, so only
      // force-unlock breaks those. A lock that cannot be read (left half written by a scrapeform from before
      // locks were written whole) is stale once older than any write of one.
      if (attempt === 1 && held !== undefined && (await this.staleHolder(held))) {
        if (await this.takeOver(held.text, info)) {
          if (held.info !== undefined) this.staleLockBroken = held.info;
          break;
        }
        continue;
      }
      throw lockedError(this.location, held?.info);
    }
    this.held = info;
    return {
      info,
      release: async () => {
        if (this.held?.id === info.id) this.held = undefined;
        // Only this run's own lock: one broken since (force-unlock) may be another run's now.
        if ((await this.readLock())?.id === info.id) await rm(this.lockPath, { force: true });
      },
    };
  }

  /**
   * Replaces the stale lock `staleText` with `info`, under a guard file created exclusively: runs that find the
   * same stale lock together take turns, and a run removes the lock only while it is still the dead holder's
   * (another run that came first has put its own there). False when another run took it over or is doing so.
   */
  private async takeOver(staleText: string, info: LockInfo): Promise<boolean> {
    // A guard left by a run killed during its takeover is cleared, and this run takes its turn at once: the lock
    // it guarded is as stale as before.
    if (
      !(await createExclusive(this.guardPath, info)) &&
      !((await this.clearStaleGuard()) && (await createExclusive(this.guardPath, info)))
    )
      return false;
    try {
      const now = await readFile(this.lockPath, 'utf8').catch(() => undefined);
      if (now !== staleText) return false;
      await rm(this.lockPath, { force: true });
      return await createExclusive(this.lockPath, info);
    } finally {
      await rm(this.guardPath, { force: true });
    }
  }

  /**
   * A guard is held for a few file operations; one whose run died in between (or that is older than any takeover
   * takes) would stop every later takeover, so it is removed, if it is still the one judged (another run may
   * have replaced it meanwhile). True when it was removed.
   */
  private async clearStaleGuard(): Promise<boolean> {
    let text: string;
    let modified: number;
    try {
      [text, modified] = await Promise.all([
        readFile(this.guardPath, 'utf8'),
        stat(this.guardPath).then((info) => info.mtimeMs),
      ]);
    } catch {
      return false;
    }
    let dead = false;
    try {
      dead = judgeHolder(JSON.parse(text) as LockInfo) === 'dead';
    } catch {
      // Being written now: its run is alive.
    }
    if (!dead && Date.now() - modified <= STALE_GUARD_MS) return false;
    if ((await readFile(this.guardPath, 'utf8').catch(() => undefined)) !== text) return false;
    await rm(this.guardPath, { force: true });
    return true;
  }

  /** Whether the holder of a lock found is gone: a dead process of this machine, or a lock never written whole. */
  private async staleHolder(held: { text: string; info?: LockInfo }): Promise<boolean> {
    if (held.info !== undefined) return judgeHolder(held.info) === 'dead';
    const modified = await stat(this.lockPath)
      .then((found) => found.mtimeMs)
      .catch(() => undefined);
    return modified !== undefined && Date.now() - modified > STALE_GUARD_MS;
  }

  async forceUnlock(options: ForceUnlockOptions = {}): Promise<LockInfo | undefined> {
    const held = await this.readLock();
    if (options.lockId !== undefined && held?.id !== options.lockId) {
      throw lockMismatch(this.location, options.lockId, held);
    }
    if (held !== undefined && options.force !== true && judgeHolder(held) === 'alive') {
      throw lockAliveError(this.location, held);
    }
    await rm(this.lockPath, { force: true });
    await rm(this.guardPath, { force: true });
    return held;
  }

  private async readLock(): Promise<LockInfo | undefined> {
    return (await this.readLockText())?.info;
  }

  /**
   * The lock as written (to see whether it changed) and as read: undefined when absent, without `info` when it
   * cannot be read (empty, or half written).
   */
  private async readLockText(): Promise<{ text: string; info?: LockInfo } | undefined> {
    let text: string;
    try {
      text = await readFile(this.lockPath, 'utf8');
    } catch {
      return undefined;
    }
    try {
      return { text, info: JSON.parse(text) as LockInfo };
    } catch {
      return { text };
    }
  }

  /**
   * Before a write replaces the state: the lock this backend took must still be this run's. Without it the file
   * is someone else's to write (force-unlock, or a run that took the lock over for a dead holder), and two
   * writers would each drop what the other recorded.
   */
  private async checkLockHeld(): Promise<void> {
    const mine = this.held;
    if (mine === undefined) return;
    const current = await this.readLock();
    if (current?.id === mine.id) return;
    throw new ScrapeformError(
      'state.lock-lost',
      `the state lock of ${this.location} is no longer held by this run (${current !== undefined ? `now held by ${describeLock(current)}` : 'it was removed'}): the state was not written`,
      {
        hint: 'someone ran force-unlock while this run was active; check what it did with plan, then apply again',
        details: { lock: current ?? null, expected: mine },
      },
    );
  }
}

/** How old a takeover guard is when its run is surely gone: a takeover takes a few file operations. */
const STALE_GUARD_MS = 30_000;

/**
 * Creates `file` holding `info` unless it exists: true when this call created it. The content is written to a
 * file of its own first and linked into place (atomic, and refused when `file` exists), so a lock is never seen
 * empty or half written: one a run left that way when killed would hold every later run off. Where the file
 * system has no hard links, an exclusive create and a write.
 */
async function createExclusive(file: string, info: LockInfo): Promise<boolean> {
  const text = JSON.stringify(info, null, 2);
  const temporary = `${file}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
  await writeDurably(temporary, text, 'wx');
  try {
    await link(temporary, file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw error;
  } finally {
    await rm(temporary, { force: true });
  }
  try {
    await writeDurably(file, text, 'wx');
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

async function writeDurably(file: string, text: string, flags: string): Promise<void> {
  const handle = await open(file, flags);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** `--state` (or SCRAPEFORM_STATE) naming a folder: said as such, not as a read error of the system. */
function notAFile(location: string): ScrapeformError {
  return new ScrapeformError('state.not-a-file', `the state path ${location} is a folder, not a file`, {
    hint: `point --state (or SCRAPEFORM_STATE) at a file inside it, such as ${path.join(location, 'state.json')}`,
  });
}

export function lockedError(location: string, held: LockInfo | undefined): ScrapeformError {
  const who = held !== undefined ? describeLock(held) : 'another run';
  const unlock = held?.id !== undefined ? `scrapeform force-unlock ${held.id}` : 'scrapeform force-unlock';
  const stale = held !== undefined && judgeHolder(held) === 'dead';
  return new ScrapeformError('state.locked', `the state ${location} is locked by ${who}`, {
    hint: stale
      ? `that process is no longer running: if no other run is active, break the lock with ${unlock}`
      : `wait for that run to finish; if it died, break the lock with ${unlock}`,
    details: { lock: held },
  });
}

/** What tells one version of the file from another without reading it. */
interface FileIdentity {
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
}

function identityOf(info: BigIntStats): FileIdentity {
  return { ino: info.ino, size: info.size, mtimeNs: info.mtimeNs };
}

async function identify(file: string): Promise<FileIdentity | undefined> {
  try {
    return identityOf(await stat(file, { bigint: true }));
  } catch {
    return undefined;
  }
}

function sameFile(a: FileIdentity | undefined, b: FileIdentity | undefined): boolean {
  return (
    a !== undefined && b !== undefined && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs
  );
}

async function syncFolder(folder: string): Promise<void> {
  try {
    const handle = await open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some file systems cannot fsync a folder; the rename is still atomic.
  }
}
