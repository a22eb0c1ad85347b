import { writeFile } from 'node:fs/promises';
import { replaceFile } from '../replace-file.js';
import { writeFailure } from '../workspace/write-manifest.js';

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
    throw writeFailure(
      error,
      file,
      what,
      done,
      'give a path in a folder that exists and this user can write, on a disk with space',
    );
  }
}
