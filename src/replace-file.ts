import { randomUUID } from 'node:crypto';
import { open, realpath, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Replaces a file whole or not at all: a temporary file beside it, synced, then renamed over it (as the state file
 * is written), so a full disk, a crash or a kill midway leaves the file as it was, never cut short. The file keeps
 * its mode (and owner, where this user may give it); a symbolic link stays a link to the file it names, which is
 * the one replaced. The temporary file is hidden and not `*.yaml`, so no command reads one left by a kill. Every
 * file the user keeps and scrapeform rewrites goes through it: `fmt`, `drift --accept`, and `import` (its
 * manifests and the .gitignore it adds `.scrapeform/` to), and the emulator's `--data-dir` state. `mode`, when given,
 * is the file's mode whether it was there or not: the emulator's state holds API keys, so it stays its user's alone.
 */
export async function replaceFile(
  file: string,
  text: string,
  options: { mode?: number } = {},
): Promise<void> {
  const target = await realpath(file).catch(() => file);
  const before = await stat(target).catch(() => undefined);
  const folder = path.dirname(target);
  const temporary = path.join(
    folder,
    `.${path.basename(target)}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`,
  );
  try {
    // A new file (import's) gets the mode any new file gets (0666 less the umask), as a plain write gave it.
    const handle = await open(temporary, 'wx', options.mode ?? (before === undefined ? 0o666 : 0o600));
    try {
      if (before !== undefined) await handle.chown(before.uid, before.gid).catch(() => undefined);
      // After chown, which clears set-user-ID bits; and not at open, where the umask would narrow it.
      const mode = options.mode ?? (before !== undefined ? before.mode & 0o7777 : undefined);
      if (mode !== undefined) await handle.chmod(mode);
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

/**
 * Why a file could not be written, from the error of a file call: `ENOENT: no such file or directory, open 'x'` or
 * `EFBIG: file too large, write` gives the cause alone (`file too large`) and its code, the path being named by the
 * caller (a temporary file's path would name a file the user never sees). Undefined for an error that is not one.
 */
export function writeFailureReason(error: unknown): { reason: string; code: string } | undefined {
  const errno = error as NodeJS.ErrnoException;
  if (typeof errno.code !== 'string' || typeof errno.message !== 'string') return undefined;
  const reason = errno.message.replace(/^[A-Z]+: /, '').replace(/, [a-z]+(?: '.*')?$/, '');
  return { reason, code: errno.code };
}
