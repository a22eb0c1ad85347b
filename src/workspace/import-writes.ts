import { rm } from 'node:fs/promises';
import { ScrapeformError } from '../errors.js';
import { writeFailureReason } from '../replace-file.js';
import type { StateBackend } from '../state/backend.js';
import type { State } from '../state/model.js';
import type { ImportedObject } from './live-to-manifest.js';
import { writeManifestFile } from './write-manifest.js';

/**
 * Writes the imported manifests, then records them in `state`; when either fails, the manifests written are
 * removed (undoImportWrites), so nothing is imported: none of these files was there before the run.
 */
export async function writeImported(
  backend: StateBackend,
  state: State,
  planned: readonly ImportedObject[],
): Promise<void> {
  if (planned.length === 0) return;
  const written: string[] = [];
  try {
    for (const p of planned) {
      await writeManifestFile(p.file, p.text, 'the imported manifest', 'nothing was imported');
      written.push(p.file);
    }
  } catch (error) {
    throw await undoImportWrites(error, written);
  }
  for (const p of planned) state.resources[p.address] = p.resource;
  try {
    await backend.write(state);
  } catch (error) {
    throw await undoImportWrites(error, written, { backend, addresses: planned.map((p) => p.address) });
  }
}

/**
 * Undoes the manifests an import run wrote when it fails before its state is written: a manifest left without its
 * state is read by the next plan as an object to adopt by name (or to create, where a list does not show it yet),
 * and by the next import as declared (so not imported again). None of these files was there before the run.
 *
 * `failure` is what failed (a later manifest's write, the state's): it is what the user sees, with what became of
 * the manifests. A manifest that cannot be removed (a folder this user may not change, a file replaced by a
 * folder) is named with why, never an internal error in place of the failure. `stateWrite`: the failure is the
 * state's write, which may have been done all the same (a database whose COMMIT got no answer): the state is read
 * again, and the manifests are kept unless it surely records none of `addresses`.
 */
async function undoImportWrites(
  failure: unknown,
  written: readonly string[],
  stateWrite?: { backend: StateBackend; addresses: readonly string[] },
): Promise<unknown> {
  if (written.length === 0) return failure;
  if (stateWrite !== undefined) {
    const again = await stateWrite.backend.read().catch(() => undefined);
    const recorded =
      again === undefined || stateWrite.addresses.some((a) => again.resources[a] !== undefined);
    if (recorded)
      return extended(
        failure,
        `${again === undefined ? 'the state could not be read again to tell whether it records them' : 'the state read again records them'}, so the manifests import wrote are kept: ${written.join(', ')}`,
        'once the state can be read, run plan: it shows whether their objects are managed, or to be adopted by name',
        { kept: written },
      );
  }
  const left: { file: string; why: string }[] = [];
  for (const file of written) {
    try {
      await rm(file, { force: true });
    } catch (error) {
      left.push({ file, why: removalFailure(error) });
    }
  }
  if (left.length === 0)
    return stateWrite === undefined
      ? failure
      : extended(failure, 'the manifests import wrote were removed, and nothing was imported');
  return extended(
    failure,
    `the manifests import wrote could not all be removed, and are left without state: ${left.map((l) => `${l.file} (${l.why})`).join(', ')}`,
    'remove them by hand before the next plan (it would adopt their objects by name) or import (it would pass them over as declared)',
    { left: left.map((l) => l.file) },
  );
}

/** The failure with what became of the manifests added; an error that is not the user's (a bug) as it was. */
function extended(
  failure: unknown,
  said: string,
  hint?: string,
  details: Record<string, unknown> = {},
): unknown {
  if (!(failure instanceof ScrapeformError)) return failure;
  return failure.saying(said, {
    ...(hint !== undefined ? { hint: failure.hint === undefined ? hint : `${hint}; ${failure.hint}` } : {}),
    details,
  });
}

/** Why a file could not be removed: a folder in its place says so (Node's own code and text name neither plainly). */
function removalFailure(error: unknown): string {
  const reason = writeFailureReason(error);
  if (reason === undefined) return String(error);
  if (reason.code === 'ERR_FS_EISDIR') return 'a folder stands in its place (EISDIR)';
  return `${reason.reason} (${reason.code})`;
}
