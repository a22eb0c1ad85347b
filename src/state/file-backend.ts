import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import { lstatSync, readlinkSync } from 'node:fs';
import type { BigIntStats } from 'node:fs';
import path from 'node:path';
import { ScrapeformError } from '../errors.js';
import type { BrokenLock, ForceUnlockOptions, LockInfo, StateBackend, StateLock } from './backend.js';
import { FileLock } from './file-lock.js';
import { fileSystemError } from './file-system-error.js';
import { checkStateFormat, emptyState, nextState } from './model.js';
import { parseStateJson, SAVE_AS_UTF8 } from './state-text.js';
import { mergeSentMarks, SentJournal } from './sent-journal.js';
import type { SentMark } from './sent-journal.js';
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
  /**
   * The file read, written and locked: `location`, or where it points when it is a symbolic link (linkTarget). The
   * rename otherwise replaced the link with a file of its own, and the lock was taken beside the link: two
   * checkouts linking one shared state each held a lock of their own and each wrote a copy the other never read.
   */
  private readonly file: string;
  /** The lock file beside the state (file-lock.ts): each write first checks that it is still this run's. */
  private readonly fileLock: FileLock;
  /** The calls about to be sent, beside the state (sent-journal.ts): merged in when read, removed by a write. */
  private readonly journal: SentJournal;
  private lastSerial: number | undefined;
  /** The file as this backend last read or wrote it; undefined when unknown (then the serial is read again). */
  private lastSeen: FileIdentity | undefined;

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
    this.file = linkTarget(file);
    this.fileLock = new FileLock(this.file);
    this.journal = new SentJournal(this.file);
  }

  async markSent(marks: readonly SentMark[]): Promise<void> {
    try {
      this.journal.append(marks);
    } catch (error) {
      throw fileSystemError(error, this.journal.path, {
        verb: 'append to the journal of calls being sent',
        left: 'they were not sent',
      });
    }
  }

  /** A lock this backend took over because the process holding it had died (the CLI reports it). */
  get staleLockBroken(): LockInfo | undefined {
    return this.fileLock.staleLockBroken;
  }

  async lock(operation: string): Promise<StateLock> {
    await this.checkFolderCase();
    return this.fileLock.take(operation);
  }

  forceUnlock(options: ForceUnlockOptions = {}): Promise<BrokenLock> {
    return this.fileLock.forceUnlock(options);
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
    try {
      return await this.readFile();
    } catch (error) {
      throw fileSystemError(error, this.location, {
        verb: 'read the state file',
        left: 'nothing was read or written',
      });
    }
  }

  private async readFile(): Promise<State> {
    await this.checkFolderCase();
    // Identified before reading: a file replaced in between is then seen as changed at the next write.
    const seen = await identify(this.file);
    let bytes: Buffer;
    try {
      bytes = await readFile(this.file);
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
    const parsed = parseStateJson(bytes);
    if ('problem' in parsed) {
      throw new ScrapeformError(
        'state.corrupt',
        `the state file ${this.location} is not valid JSON: ${parsed.problem}`,
        {
          hint: parsed.notUtf8
            ? SAVE_AS_UTF8
            : 'restore it from a backup (state.json is rewritten atomically, so a half-written file means it was edited)',
        },
      );
    }
    const state = checkStateFormat(parsed.data, `the file ${this.location}`);
    this.lastSerial = state.serial;
    this.lastSeen = seen;
    return mergeSentMarks(state, this.journal.read());
  }

  async write(state: State): Promise<State> {
    try {
      return await this.writeFile(state);
    } catch (error) {
      throw fileSystemError(error, this.location, {
        verb: 'write the state file',
        left: 'the state was not changed',
      });
    }
  }

  private async writeFile(state: State): Promise<State> {
    await this.checkFolderCase();
    const now = await identify(this.file);
    const stored = sameFile(now, this.lastSeen) ? this.lastSerial : await this.peekSerial();
    // Serialised in one synchronous step: the caller may change `state` while the file is written.
    const next = nextState(state, stored, this.lastSerial, this.location);
    // What the journal holds as the state is serialised: the state carries every mark in it (markSent's caller
    // marks the state in memory first, and a read merged the rest in).
    const journalUpTo = this.journal.length;
    const text = `${JSON.stringify(next)}\n`;
    await mkdir(path.dirname(this.file), { recursive: true });
    const temporary = `${this.file}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
    let written: FileIdentity;
    try {
      const handle = await open(temporary, 'w');
      try {
        await handle.writeFile(text);
        await handle.sync();
        // The rename keeps inode, size and time: this is the file's identity once it is in place.
        written = identityOf(await handle.stat({ bigint: true }));
      } finally {
        await handle.close();
      }
      await this.fileLock.checkHeld();
      await rename(temporary, this.file);
    } catch (error) {
      // Whatever failed (a full disk mid-write, the lock lost), the temporary file goes: one left on a full disk
      // keeps it full.
      await rm(temporary, { force: true }).catch(() => undefined);
      throw error;
    }
    await syncFolder(path.dirname(this.file));
    this.lastSerial = next.serial;
    this.lastSeen = written;
    try {
      this.journal.clearUpTo(journalUpTo);
    } catch {
      // Left as it is: its marks are in the state, and merging them again changes nothing.
    }
    return next;
  }

  private async peekSerial(): Promise<number | undefined> {
    try {
      const parsed = parseStateJson(await readFile(this.file));
      return 'data' in parsed ? (parsed.data as State).serial : undefined;
    } catch {
      return undefined;
    }
  }
}

/** `--state` (or SCRAPEFORM_STATE) naming a folder: said as such, not as a read error of the system. */
function notAFile(location: string): ScrapeformError {
  return new ScrapeformError('state.not-a-file', `the state path ${location} is a folder, not a file`, {
    hint: `point --state (or SCRAPEFORM_STATE) at a file inside it, such as ${path.join(location, 'state.json')}`,
  });
}

/**
 * The file a state path names once symbolic links are followed (a link that points nowhere yet included: the first
 * write creates its target); the path itself when it is no link or cannot be examined. A loop of links stops.
 */
function linkTarget(file: string): string {
  let current = file;
  for (let hops = 0; hops < 40; hops++) {
    try {
      if (!lstatSync(current).isSymbolicLink()) return current;
      current = path.resolve(path.dirname(current), readlinkSync(current));
    } catch {
      return current;
    }
  }
  return current;
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
