import { readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { DesiredParser, DesiredProject, ManifestSource } from '../model/desired.js';
import { decodeText } from './decode-text.js';
import { hasErrors } from './diagnostic.js';
import type { Diagnostic, SourcePosition } from './diagnostic.js';
import { interpolateDocument } from './interpolate.js';
import type { Environment } from './interpolate.js';
import { normaliseParser, normaliseProject, parseInputFile } from './normalise.js';
import { at, checkParserRules, checkProjectRules, isRecord } from './rules.js';
import {
  hasCredentials,
  MANIFEST_KINDS,
  ParserManifestSchema,
  ProjectManifestSchema,
  URL_CREDENTIALS_MESSAGE,
} from './schemas.js';
import type { WrittenParser, WrittenProject } from './schemas.js';
import { suggestNearest } from './suggest.js';
import { documentToData, inspectDocument, locate, parseYamlFile, readPlainYaml } from './yaml-document.js';
import type { SourceDocument } from './yaml-document.js';
import { describeValue, diagnosticsFromIssues } from './zod-diagnostics.js';

/** A valid object of one file, with where its name is written (for cross-file duplicate checks). */
export interface LoadedObject<T> {
  value: T;
  namePosition: SourcePosition;
}

/** Everything one file contributes. */
export interface LoadedFile {
  parsers: LoadedObject<DesiredParser>[];
  projects: LoadedObject<DesiredProject>[];
  diagnostics: Diagnostic[];
}

/** What reading a file needs besides its path. */
export interface LoadFileOptions {
  env: Environment;
  /** When validation runs (a past `scheduledAt` warns); loadManifests reads the clock when not given one. */
  now: Date;
  /** The folder being read (the one given, or the folder of a file given): input files must stay inside it. */
  root: string;
}

/** Input files larger than this are refused: they are sent whole in the request that creates the project. */
export const MAX_INPUT_FILE_BYTES = 1024 * 1024;

/** Keys only a scrapeform manifest has; a document with none of them and no `kind` is another tool's file. */
const SCRAPEFORM_KEYS = new Set(
  [...Object.keys(ParserManifestSchema.shape), ...Object.keys(ProjectManifestSchema.shape)].filter(
    (key) => !['apiVersion', 'kind', 'name'].includes(key),
  ),
);

const IGNORE_HINT =
  'if this file is not a scrapeform manifest, list it in a .scrapeformignore (gitignore syntax)';

/**
 * Reads one manifest file: every document is interpolated, validated and normalised on its own. A file of plain
 * YAML is first read the fast way (readPlainYaml); whenever that cannot vouch for its result, or the file has any
 * problem, it is read with yaml's document model, which places every diagnostic exactly. `fast: false` skips the
 * fast way (tests compare the two).
 */
export function loadManifestFile(
  file: string,
  options: LoadFileOptions,
  how: { fast?: boolean } = {},
): LoadedFile {
  const result: LoadedFile = { parsers: [], projects: [], diagnostics: [] };
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    result.diagnostics.push(
      fileDiagnostic(file, 'manifest.unreadable', `cannot read file: ${(error as Error).message}`),
    );
    return result;
  }
  const decoded = decodeText(bytes);
  if ('problem' in decoded) {
    result.diagnostics.push({
      severity: 'error',
      code: 'manifest.encoding',
      file,
      line: decoded.problem.line,
      column: decoded.problem.column,
      path: '',
      message: decoded.problem.message,
      hint: 'save the file as UTF-8 text',
    });
    return result;
  }
  const fast = how.fast === false ? undefined : loadPlainFile(file, decoded.text, options);
  if (fast !== undefined) return fast;
  const parsed = parseYamlFile(file, decoded.text);
  result.diagnostics.push(...parsed.diagnostics);
  for (const source of parsed.documents) {
    const loaded = loadDocument(source, options, result.diagnostics);
    if (loaded === undefined) continue;
    const namePosition = locate(source, ['name']);
    if (loaded.kind === 'Parser') result.parsers.push({ value: loaded, namePosition });
    else result.projects.push({ value: loaded, namePosition });
  }
  return result;
}

/** Thrown by the fast path's stand-in document when a position is asked for: the file is read in full instead. */
class PositionsNeeded extends Error {}

/** The file read the fast way, or undefined when it must be read in full (see readPlainYaml). */
function loadPlainFile(file: string, text: string, options: LoadFileOptions): LoadedFile | undefined {
  const documents = readPlainYaml(text);
  if (documents === undefined) return undefined;
  const result: LoadedFile = { parsers: [], projects: [], diagnostics: [] };
  for (const document of documents) {
    const source: SourceDocument = {
      file,
      index: document.index,
      get doc(): never {
        throw new PositionsNeeded();
      },
      get lineCounter(): never {
        throw new PositionsNeeded();
      },
    };
    let loaded: DesiredParser | DesiredProject | undefined;
    try {
      loaded = loadData(source, document.data, options, result.diagnostics, false, () => document.origin);
    } catch (error) {
      if (error instanceof PositionsNeeded) return undefined;
      throw error;
    }
    if (result.diagnostics.length > 0 || loaded === undefined || document.namePosition === undefined) {
      return undefined;
    }
    const namePosition = document.namePosition;
    if (loaded.kind === 'Parser') result.parsers.push({ value: loaded, namePosition });
    else result.projects.push({ value: loaded, namePosition });
  }
  return result;
}

function loadDocument(
  source: SourceDocument,
  options: LoadFileOptions,
  diagnostics: Diagnostic[],
): DesiredParser | DesiredProject | undefined {
  // Aliases, tags and nesting are checked on the YAML itself: turning such a document into data would throw,
  // change what a value is, or blow the stack.
  const structural = inspectDocument(source);
  if (structural.length > 0) {
    diagnostics.push(...structural);
    return undefined;
  }
  const envProblems = interpolateDocument(source, options.env);
  diagnostics.push(...envProblems);
  const converted = documentToData(source);
  if ('diagnostic' in converted) {
    diagnostics.push(converted.diagnostic);
    return undefined;
  }
  return loadData(source, converted.data, options, diagnostics, envProblems.length > 0, () =>
    locate(source, []),
  );
}

/** Validates and normalises one document's data; `origin` is where the document starts. */
function loadData(
  source: SourceDocument,
  data: unknown,
  options: LoadFileOptions,
  diagnostics: Diagnostic[],
  envFailed: boolean,
  origin: () => SourcePosition,
): DesiredParser | DesiredProject | undefined {
  if (!isRecord(data)) {
    diagnostics.push(
      at(
        source,
        [],
        'value',
        'manifest.not-a-manifest',
        `not a scrapeform manifest: expected a map, got ${describeValue(data)}`,
        { hint: `every document needs kind: Parser or kind: Project; ${IGNORE_HINT}` },
      ),
    );
    return undefined;
  }
  const kind = data.kind;
  if (kind === undefined && isForeign(data)) {
    diagnostics.push(
      at(
        source,
        [],
        'value',
        'manifest.not-scrapeform',
        'skipped: not a scrapeform manifest (no kind, and none of the keys of a Parser or Project)',
        {
          severity: 'warning',
          hint: 'to read it without this warning, list it in a .scrapeformignore (gitignore syntax)',
        },
      ),
    );
    return undefined;
  }
  if (!(MANIFEST_KINDS as readonly unknown[]).includes(kind)) {
    diagnostics.push(unknownKind(source, kind));
    return undefined;
  }
  const position = origin();
  const from: ManifestSource = { file: source.file, line: position.line, column: position.column };
  const schema = kind === 'Parser' ? ParserManifestSchema : ProjectManifestSchema;
  const result = schema.safeParse(data, { reportInput: true });
  const problems = result.success ? [] : diagnosticsFromIssues(source, schema, data, result.error.issues);
  // Cross-key rules run whatever the schema said, so every problem of the document is reported at once.
  if (kind === 'Parser') {
    problems.push(...checkParserRules(source, data));
    diagnostics.push(...problems);
    if (!result.success || hasErrors(problems) || envFailed) return undefined;
    return normaliseParser(result.data as WrittenParser, from);
  }
  problems.push(...checkProjectRules(source, data, options.now));
  const inputFile = readInputFile(source, data, options.root, problems);
  diagnostics.push(...problems);
  if (!result.success || hasErrors(problems) || envFailed) return undefined;
  return normaliseProject(result.data as WrittenProject, from, inputFile);
}

/** Another tool's YAML (a compose file, a CI workflow): no `kind`, no scrapeform apiVersion, no scrapeform key. */
function isForeign(data: Record<string, unknown>): boolean {
  if (typeof data.apiVersion === 'string' && data.apiVersion.startsWith('scrapeform/')) return false;
  return !Object.keys(data).some((key) => SCRAPEFORM_KEYS.has(key));
}

/**
 * Reads a list input's `file`. It must resolve (symlinks followed) inside the folder being read, be UTF-8 text
 * without NUL, stay under MAX_INPUT_FILE_BYTES, and hold no URL with credentials: anything else is an error at
 * `projectInput.file`, and nothing of the file is kept.
 */
function readInputFile(
  source: SourceDocument,
  project: Record<string, unknown>,
  root: string,
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
  const resolved = path.resolve(path.dirname(source.file), file);
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
  const realRoot = realpathOr(root);
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

function unknownKind(source: SourceDocument, kind: unknown): Diagnostic {
  if (kind === undefined) {
    return at(
      source,
      [],
      'value',
      'manifest.not-a-manifest',
      'not a scrapeform manifest: missing required key "kind"',
      {
        hint: `every document needs kind: Parser or kind: Project; ${IGNORE_HINT}`,
      },
    );
  }
  const near = typeof kind === 'string' ? suggestNearest(kind, MANIFEST_KINDS) : undefined;
  return at(
    source,
    ['kind'],
    'value',
    'manifest.unknown-kind',
    `kind must be Parser or Project, got ${describeValue(kind)}`,
    { hint: near !== undefined ? `did you mean "${near}"?` : `kind Parser or Project; ${IGNORE_HINT}` },
  );
}

export function fileDiagnostic(file: string, code: string, message: string): Diagnostic {
  return { severity: 'error', code, file, line: 0, column: 0, path: '', message };
}
