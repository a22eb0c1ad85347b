import { writeFile } from 'node:fs/promises';
import { ScrapeformError } from '../errors.js';

/**
 * Writes a file a command was asked for (`plan --out`, `apply --markdown-report`, `test --junit`): a path that
 * cannot be written (a missing folder, no permission, a full or read-only disk, a folder of that name) is the
 * user's to mend, named with what the command did and did not do (`done`), not an internal error with a stack.
 */
export async function writeOutputFile(file: string, text: string, what: string, done: string): Promise<void> {
  try {
    await writeFile(file, text);
  } catch (error) {
    const errno = error as NodeJS.ErrnoException;
    if (typeof errno.code !== 'string') throw error;
    // `ENOENT: no such file or directory, open 'x'`: the cause alone, the path being named already.
    const reason = errno.message.replace(/^[A-Z]+: /, '').replace(/, [a-z]+ '.*'$/, '');
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
