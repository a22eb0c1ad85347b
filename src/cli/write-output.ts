import { writeFile } from 'node:fs/promises';
import { writeFailure, writeManifestFile } from '../workspace/write-manifest.js';

/**
 * Writes a file a command was asked for (`plan --out`, `apply --markdown-report`, `test --junit`): a path that
 * cannot be written (a missing folder, no permission, a full or read-only disk, a folder of that name) is the
 * user's to mend, named with what the command did and did not do (`done`), not an internal error with a stack.
 * `whole` replaces the file whole or not at all, for a file the user keeps (`fmt`: writeManifestFile, with its
 * hint); without it the path is written as it is, so `/dev/stdout` and a pipe work.
 */
export async function writeOutputFile(
  file: string,
  text: string,
  what: string,
  done: string,
  options: { whole?: boolean } = {},
): Promise<void> {
  if (options.whole === true) return writeManifestFile(file, text, what, done);
  try {
    await writeFile(file, text);
  } catch (error) {
    throw writeFailure(error, file, `write ${what} to ${file}`, done, OUTPUT_HINT);
  }
}

const OUTPUT_HINT = 'give a path in a folder that exists and this user can write, on a disk with space';
