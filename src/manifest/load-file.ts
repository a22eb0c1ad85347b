import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DesiredParser, DesiredProject, ManifestSource } from '../model/desired.js';
import { hasErrors } from './diagnostic.js';
import type { Diagnostic, SourcePosition } from './diagnostic.js';
import { interpolateDocument } from './interpolate.js';
import type { Environment } from './interpolate.js';
import { normaliseParser, normaliseProject, parseInputFile } from './normalise.js';
import { at, checkParserRules, checkProjectRules } from './rules.js';
import { MANIFEST_KINDS, ParserManifestSchema, ProjectManifestSchema } from './schemas.js';
import type { WrittenProject } from './schemas.js';
import { suggestNearest } from './suggest.js';
import { documentToData, locate, parseYamlFile } from './yaml-document.js';
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

/** Reads one manifest file: every document is interpolated, validated and normalised on its own. */
export function loadManifestFile(file: string, env: Environment): LoadedFile {
  const result: LoadedFile = { parsers: [], projects: [], diagnostics: [] };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    result.diagnostics.push(
      fileDiagnostic(file, 'manifest.unreadable', `cannot read file: ${(error as Error).message}`),
    );
    return result;
  }
  const parsed = parseYamlFile(file, text);
  result.diagnostics.push(...parsed.diagnostics);
  for (const source of parsed.documents) {
    const loaded = loadDocument(source, env, result.diagnostics);
    if (loaded === undefined) continue;
    const namePosition = locate(source, ['name']);
    if (loaded.kind === 'Parser') result.parsers.push({ value: loaded, namePosition });
    else result.projects.push({ value: loaded, namePosition });
  }
  return result;
}

function loadDocument(
  source: SourceDocument,
  env: Environment,
  diagnostics: Diagnostic[],
): DesiredParser | DesiredProject | undefined {
  const envProblems = interpolateDocument(source, env);
  diagnostics.push(...envProblems);
  const converted = documentToData(source);
  if ('diagnostic' in converted) {
    diagnostics.push(converted.diagnostic);
    return undefined;
  }
  const data = converted.data;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    diagnostics.push(
      at(
        source,
        [],
        'value',
        'manifest.not-a-manifest',
        `not a scrapeform manifest: expected a map, got ${describeValue(data)}`,
        {
          hint: 'every document needs kind: Parser or kind: Project',
        },
      ),
    );
    return undefined;
  }
  const kind = (data as Record<string, unknown>).kind;
  if (!(MANIFEST_KINDS as readonly unknown[]).includes(kind)) {
    diagnostics.push(unknownKind(source, kind));
    return undefined;
  }
  const position = locate(source, []);
  const origin: ManifestSource = { file: source.file, line: position.line, column: position.column };
  if (kind === 'Parser') {
    const result = ParserManifestSchema.safeParse(data, { reportInput: true });
    if (!result.success) {
      diagnostics.push(...diagnosticsFromIssues(source, ParserManifestSchema, data, result.error.issues));
      return undefined;
    }
    const problems = checkParserRules(source, result.data);
    diagnostics.push(...problems);
    return hasErrors(problems) || envProblems.length > 0 ? undefined : normaliseParser(result.data, origin);
  }
  const result = ProjectManifestSchema.safeParse(data, { reportInput: true });
  if (!result.success) {
    diagnostics.push(...diagnosticsFromIssues(source, ProjectManifestSchema, data, result.error.issues));
    return undefined;
  }
  const problems = checkProjectRules(source, result.data);
  const inputFile = problems.length === 0 ? readInputFile(source, result.data, problems) : undefined;
  diagnostics.push(...problems);
  return problems.length > 0 || envProblems.length > 0
    ? undefined
    : normaliseProject(result.data, origin, inputFile);
}

function readInputFile(
  source: SourceDocument,
  project: WrittenProject,
  problems: Diagnostic[],
): { file: string; entries: string[] } | undefined {
  const input = project.projectInput;
  if (input.type !== 'list' || input.file === undefined) return undefined;
  const resolved = path.resolve(path.dirname(source.file), input.file);
  try {
    const entries = parseInputFile(readFileSync(resolved, 'utf8'));
    if (entries.length === 0) {
      problems.push(
        at(
          source,
          ['projectInput', 'file'],
          'value',
          'manifest.project-input',
          `input file "${input.file}" holds no entries`,
          {
            hint: 'one URL, search term or identifier a line; blank lines and # comments are skipped',
          },
        ),
      );
      return undefined;
    }
    return { file: input.file, entries };
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    problems.push(
      at(
        source,
        ['projectInput', 'file'],
        'value',
        'manifest.project-input',
        `cannot read input file "${input.file}": ${reason}`,
        {
          hint: 'the path is relative to the folder of this manifest',
        },
      ),
    );
    return undefined;
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
        hint: 'every document needs kind: Parser or kind: Project',
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
    {
      ...(near !== undefined ? { hint: `did you mean "${near}"?` } : {}),
    },
  );
}

export function fileDiagnostic(file: string, code: string, message: string): Diagnostic {
  return { severity: 'error', code, file, line: 0, column: 0, path: '', message };
}
