import { ScrapeformError } from '../errors.js';

/** What a failure of the disk under a state file means for the user, by the system's error code. */
const FILE_SYSTEM_FAILURES: Record<string, { cause: string; hint: string }> = {
  ENOSPC: {
    cause: 'no space left on the device',
    hint: 'free space on that disk, then run the command again',
  },
  EDQUOT: {
    cause: 'the disk quota is used up',
    hint: 'free space or raise the quota, then run the command again',
  },
  // A file size limit (`ulimit -f`, a container's) or the largest file the file system takes: on Linux the write
  // fails with EFBIG once SIGXFSZ is ignored, as Node ignores it.
  EFBIG: {
    cause: 'the file would pass the largest size allowed',
    hint: 'raise the file size limit (ulimit -f) or point --state (or SCRAPEFORM_STATE) at a file system that takes larger files, then run the command again',
  },
  EROFS: {
    cause: 'the file system is read-only',
    hint: 'point --state (or SCRAPEFORM_STATE) at a writable place, or mount that one writable',
  },
  EACCES: {
    cause: 'permission denied',
    hint: 'let this user read and write that folder and its files, or point --state (or SCRAPEFORM_STATE) elsewhere',
  },
  EPERM: {
    cause: 'operation not permitted',
    hint: 'let this user read and write that folder and its files, or point --state (or SCRAPEFORM_STATE) elsewhere',
  },
};

/**
 * A full, read-only or forbidden disk under the state file, its lock or their folder, as the user error it is
 * (`state.io`), naming the file and the cause; any other error as it was (a bug prints its stack). `doing` says
 * what failed and what it left, such as `write the state file S: the state was not changed`.
 */
export function fileSystemError(
  error: unknown,
  file: string,
  doing: { verb: string; left: string },
): unknown {
  if (error instanceof ScrapeformError) return error;
  const errno = error as NodeJS.ErrnoException;
  const failure = typeof errno.code === 'string' ? FILE_SYSTEM_FAILURES[errno.code] : undefined;
  if (failure === undefined) return error;
  return new ScrapeformError(
    'state.io',
    `cannot ${doing.verb} ${file}: ${failure.cause} (${errno.code}); ${doing.left}`,
    {
      hint: failure.hint,
      details: {
        path: errno.path ?? file,
        errno: errno.code,
        ...(errno.syscall !== undefined ? { syscall: errno.syscall } : {}),
      },
      cause: error,
    },
  );
}
