import { readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { decodeText } from '../decode-text.js';
import type { Diagnostic } from './diagnostic.js';
import { parseInputFile } from './normalise.js';
import type { ObjectSource } from './object-source.js';
import { at, isRecord } from './rules.js';
import { hasCredentials, URL_CREDENTIALS_MESSAGE } from './schema-parts.js';

/** Input files larger than this are refused: they are sent whole in the request that creates the project. */
export const MAX_INPUT_FILE_BYTES = 1024 * 1024;

/**
 * Reads a list input's `file`. It must resolve (symlinks followed) inside the folder being read, be UTF-8 text
 * without NUL, stay under MAX_INPUT_FILE_BYTES, and hold no URL with credentials: anything else is an error at
 * `projectInput.file`, and nothing of the file is kept. `root` is that folder, or gives it for the manifest that
 * writes `file`: a template may be read under another of the environment's paths than the object built on it.
 */
export function readInputFile(
  source: ObjectSource,
  project: Record<string, unknown>,
  root: string | ((manifest: string) => string),
  problems: Diagnostic[],
): { file: string; entries: string[] } | undefined {
  const input = project.projectInput;
  if (!isRecord(input) || input.type !== 'list' || input.list !== undefined) return undefined;
  const file = input.file;
  if (typeof file !== 'string' || file === '') return undefined;
  const problem = (message: string, hint?: string): undefined => {
    problems.push(
      at(source, ['projectInput', 'file'], 'value', 'manifest.project-input', message, {
        ...(hint !== undefined ? { hint } : {}),
      }),
    );
    return undefined;
  };
  // Relative to the manifest that writes `file`, which may be a template's, and inside the folder it was read from.
  const manifest = source.place(['projectInput', 'file']).file;
  const resolved = path.resolve(path.dirname(manifest), file);
  let real: string;
  try {
    real = realpathSync(resolved);
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    return problem(
      `cannot read input file "${file}": ${reason}`,
      'the path is relative to the folder of this manifest',
    );
  }
  const realRoot = realpathOr(typeof root === 'string' ? root : root(manifest));
  const inside = path.relative(realRoot, real);
  if (inside === '' || inside.startsWith('..') || path.isAbsolute(inside)) {
    return problem(
      `input file "${file}" resolves outside the folder being read`,
      'keep input files inside the folder given to scrapeform (for a file given by name, its folder); symlinks are followed before this check',
    );
  }
  let bytes: Buffer;
  try {
    const info = statSync(real);
    if (!info.isFile()) return problem(`input file "${file}" is not a file`);
    if (info.size > MAX_INPUT_FILE_BYTES) {
      return problem(
        `input file "${file}" is ${info.size} bytes; the limit is ${MAX_INPUT_FILE_BYTES} (1 MiB)`,
        'split the inputs over several projects, or serve them from a webhook_input address',
      );
    }
    bytes = readFileSync(real);
  } catch (error) {
    return problem(`cannot read input file "${file}": ${(error as Error).message}`);
  }
  const decoded = decodeText(bytes);
  if ('problem' in decoded) {
    const where = `line ${decoded.problem.line}, column ${decoded.problem.column}`;
    return problem(
      `input file "${file}" is not text: ${decoded.problem.message} (${where})`,
      'an input file is UTF-8 text, one entry a line',
    );
  }
  const lines = decoded.text.split(/\r?\n/);
  const withCredentials = lines.findIndex((line) => hasCredentials(line.trim()));
  if (withCredentials >= 0) {
    problems.push(
      at(
        source,
        ['projectInput', 'file'],
        'value',
        'manifest.url-credentials',
        `input file "${file}", line ${withCredentials + 1}: a URL ${URL_CREDENTIALS_MESSAGE}`,
      ),
    );
    return undefined;
  }
  const entries = parseInputFile(decoded.text);
  if (entries.length === 0) {
    return problem(
      `input file "${file}" holds no entries`,
      'one URL, search term or identifier a line; blank lines and # comments are skipped',
    );
  }
  return { file, entries };
}

function realpathOr(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return path.resolve(folder);
  }
}
