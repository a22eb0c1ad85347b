import { rm } from 'node:fs/promises';
import { ScrapeformError } from '../errors.js';
import { replaceFile, writeFailureReason } from '../replace-file.js';

/**
 * Writes a manifest (or another file the user keeps) whole or not at all (replaceFile): a write that fails midway
 * (a full disk, a file size limit, a kill) leaves the file as it was, never cut short, where the next plan would
 * plan removing what was cut. A failure is the user's to mend, named as `fmt` names it (`cli.output-write`), with
 * what the command did and did not do (`done`).
 */
export async function writeManifestFile(
  file: string,
  text: string,
  what: string,
  done: string,
): Promise<void> {
  try {
    await replaceFile(file, text);
  } catch (error) {
    throw writeFailure(error, file, `write ${what} to ${file}`, done, MANIFEST_HINT);
  }
}

const MANIFEST_HINT =
  'free space on the disk, or give this user the right to write there, then run the command again';

/**
 * Removes a manifest left with no document (`why` says why it goes). A failure (a folder this user may not change,
 * a file held open: EACCES, EPERM, EBUSY) is the user's to mend, as a failed write is (`cli.output-write`), with
 * what the command did and did not do (`done`), not an internal error with a stack.
 */
export async function removeManifestFile(file: string, why: string, done: string): Promise<void> {
  try {
    await rm(file);
  } catch (error) {
    throw writeFailure(
      error,
      file,
      `remove ${file}, ${why}`,
      done,
      'give this user the right to change that folder, or close what holds the file open, then run the command again',
    );
  }
}

/**
 * A failed write of `file` as the user's to mend (`cli.output-write`), not an internal error with a stack: `action`
 * is what could not be done (`write WHAT to FILE`, or a removal), `done` what the command did and did not do, `hint`
 * how to mend it. An error that is not one of a file call (no errno code) is returned as it is.
 */
export function writeFailure(
  error: unknown,
  file: string,
  action: string,
  done: string,
  hint: string,
): unknown {
  const failure = writeFailureReason(error);
  if (failure === undefined) return error;
  return new ScrapeformError(
    'cli.output-write',
    `cannot ${action}: ${failure.reason} (${failure.code}); ${done}`,
    { hint, details: { path: file, errno: failure.code }, cause: error },
  );
}
