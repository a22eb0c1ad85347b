import { randomUUID } from 'node:crypto';
import { link, mkdir, open, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { ScrapeformError } from '../errors.js';
import { describeLock, lockAliveError, lockMismatch, newLockInfo, UNREADABLE_LOCK } from './backend.js';
import type { BrokenLock, ForceUnlockOptions, LockInfo, StateLock } from './backend.js';
import { fileSystemError } from './file-system-error.js';
import { judgeHolder } from './process-identity.js';

/**
 * The lock file beside a state file (file-backend.ts): created exclusively (O_EXCL, written whole and linked into
 * place), taken over from a holder that died under an exclusive guard file, so two runs on one machine or shared
 * disk never both hold it; a write first checks that it is still this run's (checkHeld).
 */
export class FileLock {
  private readonly lockPath: string;
  /** Created exclusively while a run takes over a stale lock, so two runs never both do. */
  private readonly guardPath: string;
  /** The lock this run holds: each write first checks that the lock file still names it. */
  private held: LockInfo | undefined;
  /** A lock this run took over because the process holding it had died (the CLI reports it). */
  staleLockBroken: LockInfo | undefined;

  /** @param statePath the state file the lock guards (the lock is `statePath.lock`), named in messages. */
  constructor(private readonly statePath: string) {
    this.lockPath = `${statePath}.lock`;
    this.guardPath = `${statePath}.lock.takeover`;
  }

  /**
   * Takes the lock for `operation`, or fails with `state.locked` naming its holder (`state.io` when the disk is
   * full, read-only or forbidden).
   */
  async take(operation: string): Promise<StateLock> {
    // Only a lock taken over by this call is reported: a backend used again (watch) takes it again each round.
    this.staleLockBroken = undefined;
    try {
      return await this.takeFile(operation);
    } catch (error) {
      throw fileSystemError(error, this.lockPath, {
        verb: 'write the lock file',
        left: 'the lock was not taken and nothing was written',
      });
    }
  }

  private async takeFile(operation: string): Promise<StateLock> {
    await mkdir(path.dirname(this.lockPath), { recursive: true });
    const info = newLockInfo(operation);
    let triedTakeover = false;
    for (let attempt = 1; ; attempt++) {
      if (await createExclusive(this.lockPath, info)) break;
      const held = await this.readLockText();
      // Gone between the create that found it and this read: its holder released it (or force-unlock broke
      // it), so the lock is free and the create is tried again, as exclusive as the first. Bounded: runs that
      // keep taking and releasing it before each read end this one as locked by another run.
      if (held === undefined) {
        if (attempt < VANISHED_LOCK_TRIES) continue;
        throw lockedError(this.statePath, undefined);
      }
      // A lock left by a process of this machine that no longer runs (killed) is stale beyond doubt: take it
      // over once. A holder on another host, or in another container, may still be running, so only
      // force-unlock breaks those. A lock that cannot be read (left half written by a scrapeform from before
      // locks were written whole) is stale once older than any write of one.
      if (!triedTakeover && (await this.staleHolder(held))) {
        triedTakeover = true;
        if (await this.takeOver(held.text, info)) {
          if (held.info !== undefined) this.staleLockBroken = held.info;
          break;
        }
        continue;
      }
      throw lockedError(this.statePath, held.info);
    }
    this.held = info;
    return {
      info,
      release: async () => {
        if (this.held?.id === info.id) this.held = undefined;
        // Only this run's own lock: one broken since (force-unlock) may be another run's now.
        if ((await this.readLock())?.id !== info.id) return;
        await rm(this.lockPath, { force: true }).catch((error: unknown) => {
          throw fileSystemError(error, this.lockPath, {
            verb: 'remove the lock file',
            left: 'the lock stays: remove it by hand once no run is active',
          });
        });
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

  /**
   * Breaks the lock: its holder, or UNREADABLE_LOCK for a lock file that names none (every run calls the state
   * locked by it, so force-unlock says it broke it rather than that nothing was locked).
   */
  async forceUnlock(options: ForceUnlockOptions = {}): Promise<BrokenLock> {
    const found = await this.readLockText();
    const held = found === undefined ? undefined : (found.info ?? UNREADABLE_LOCK);
    if (options.lockId !== undefined && (held === UNREADABLE_LOCK || held?.id !== options.lockId)) {
      throw lockMismatch(this.statePath, options.lockId, held);
    }
    if (found?.info !== undefined && options.force !== true && judgeHolder(found.info) === 'alive') {
      throw lockAliveError(this.statePath, found.info);
    }
    try {
      await rm(this.lockPath, { force: true });
      await rm(this.guardPath, { force: true });
    } catch (error) {
      throw fileSystemError(error, this.lockPath, {
        verb: 'remove the lock file',
        left: 'nothing was broken',
      });
    }
    return held;
  }

  private async readLock(): Promise<LockInfo | undefined> {
    return (await this.readLockText())?.info;
  }

  /**
   * The lock as written (to see whether it changed) and as read: undefined when absent, without `info` when it
   * cannot be read (empty, half written, or JSON that is not an object).
   */
  private async readLockText(): Promise<{ text: string; info?: LockInfo } | undefined> {
    let text: string;
    try {
      text = await readFile(this.lockPath, 'utf8');
    } catch {
      return undefined;
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      return { text };
    }
    // JSON that is no lock (`null`, a list: written by hand or by another tool) is as unreadable as a half-written
    // one: judging its holder failed with a TypeError, in force-unlock too, so no command could clear it.
    const lock = data as Partial<LockInfo> | null;
    if (typeof lock !== 'object' || lock === null || Array.isArray(lock)) return { text };
    return { text, info: lock as LockInfo };
  }

  /**
   * Before a write replaces the state: the lock this backend took must still be this run's. Without it the file
   * is someone else's to write (force-unlock, or a run that took the lock over for a dead holder), and two
   * writers would each drop what the other recorded.
   */
  async checkHeld(): Promise<void> {
    const mine = this.held;
    if (mine === undefined) return;
    const current = await this.readLock();
    if (current?.id === mine.id) return;
    throw new ScrapeformError(
      'state.lock-lost',
      `the state lock of ${this.statePath} is no longer held by this run (${current !== undefined ? `now held by ${describeLock(current)}` : 'it was removed'}): the state was not written`,
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
 * How many times a run creates the lock file when each time it existed at the create and was gone by the read
 * that would name its holder. A few: each miss is another run that took the lock and released it meanwhile.
 */
const VANISHED_LOCK_TRIES = 5;

/**
 * Creates `file` holding `info` unless it exists: true when this call created it. The content is written to a
 * file of its own first and linked into place (atomic, and refused when `file` exists), so a lock is never seen
 * empty or half written: one a run left that way when killed would hold every later run off. Where the file
 * system has no hard links, an exclusive create and a write.
 */
async function createExclusive(file: string, info: LockInfo): Promise<boolean> {
  const text = JSON.stringify(info, null, 2);
  const temporary = `${file}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
  try {
    await writeDurably(temporary, text, 'wx');
    await link(temporary, file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw error;
    // EPERM from writing the temporary file is a forbidden folder, not a file system without hard links.
    if ((error as NodeJS.ErrnoException).syscall !== 'link') throw error;
  } finally {
    // Also when it could not be written whole (a full disk): a temporary file left there keeps the disk full.
    await rm(temporary, { force: true }).catch(() => undefined);
  }
  try {
    await writeDurably(file, text, 'wx');
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/**
 * Writes `text` to a file it creates (`wx`) and syncs it. A file it created but could not write whole is removed: a
 * lock left empty would hold off every run for 30 s, a temporary file would stay on a full disk.
 */
async function writeDurably(file: string, text: string, flags: string): Promise<void> {
  const handle = await open(file, flags);
  try {
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    await rm(file, { force: true }).catch(() => undefined);
    throw error;
  }
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
