import { randomUUID } from 'node:crypto';
import { open, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ScrapeformError } from '../errors.js';

/**
 * Writes a file a command was asked for (`plan --out`, `apply --markdown-report`, `test --junit`): a path that
 * cannot be written (a missing folder, no permission, a full or read-only disk, a folder of that name) is the
 * user's to mend, named with what the command did and did not do (`done`), not an internal error with a stack.
 * `whole` replaces the file whole or not at all (replaceFile), for a file the user keeps (`fmt`); without it the
 * path is written as it is, so `/dev/stdout` and a pipe work.
 */
export async function writeOutputFile(
  file: string,
  text: string,
  what: string,
  done: string,
  options: { whole?: boolean } = {},
): Promise<void> {
  try {
    await (options.whole === true ? replaceFile(file, text) : writeFile(file, text));
  } catch (error) {
    const errno = error as NodeJS.ErrnoException;
    if (typeof errno.code !== 'string') throw error;
    // `ENOENT: no such file or directory, open 'x'` or `EFBIG: file too large, write`: the cause alone, the path
    // being named already (a temporary file's path would name a file the user never sees).
    const reason = errno.message.replace(/^[A-Z]+: /, '').replace(/, [a-z]+(?: '.*')?$/, '');
    throw new ScrapeformError(
      'cli.output-write',
      `cannot write ${what} to ${file}: ${reason} (${errno.code}); ${done}`,
      {
        hint: 'give a path in a folder that exists and this user can write, on a disk with space',
        details: { path: file, errno: errno.code },
        cause: error,
      },
    );
  }
}

/**
 * Replaces a file whole or not at all: a temporary file beside it, synced, then renamed over it (as the state file
 * is written), so a full disk, a crash or a kill midway leaves the file as it was, never cut short. The file keeps
 * its mode (and owner, where this user may give it); a symbolic link stays a link to the file it names, which is
 * the one replaced. The temporary file is hidden and not `*.yaml`, so no command reads one left by a kill.
 */
async function replaceFile(file: string, text: string): Promise<void> {
  const target = await realpath(file).catch(() => file);
  const before = await stat(target).catch(() => undefined);
  const folder = path.dirname(target);
  const temporary = path.join(
    folder,
    `.${path.basename(target)}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`,
  );
  try {
    const handle = await open(temporary, 'wx', 0o600);
    try {
      if (before !== undefined) {
        await handle.chown(before.uid, before.gid).catch(() => undefined);
        // After chown, which clears set-user-ID bits; and not at open, where the umask would narrow it.
        await handle.chmod(before.mode & 0o7777);
      }
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, target);
  } catch (error) {
    // A temporary file left on a full disk keeps it full.
    await rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
  try {
    const handle = await open(folder, 'r');
    await handle.sync().finally(() => handle.close());
  } catch {
    // Some file systems cannot sync a folder; the rename is still atomic.
  }
}
