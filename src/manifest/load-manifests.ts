import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { DesiredParser, DesiredProject, ManifestSource } from '../model/desired.js';
import { hasErrors, sortDiagnostics } from './diagnostic.js';
import type { Diagnostic } from './diagnostic.js';
import { discoverManifestFiles } from './discover-files.js';
import { interpolateDocument } from './interpolate.js';
import type { Environment } from './interpolate.js';
import { normaliseParser, normaliseProject, parseInputFile } from './normalise.js';
import { at, checkParserRules, checkProjectRules } from './rules.js';
import { MANIFEST_KINDS, ParserManifestSchema, ProjectManifestSchema } from './schemas.js';
import type { ManifestKind, WrittenProject } from './schemas.js';
import { suggestNearest } from './suggest.js';
import { documentToData, locate, parseYamlFile } from './yaml-document.js';
import type { SourceDocument } from './yaml-document.js';
import { describeValue, diagnosticsFromIssues } from './zod-diagnostics.js';

export interface LoadManifestsOptions {
  /** Files or folders; `.` when empty. */
  paths?: readonly string[];
  /** Variables for `${NAME}`; the process environment in the CLI, a plain object in tests. */
  env: Environment;
}

export interface LoadedManifests {
  parsers: DesiredParser[];
  projects: DesiredProject[];
  /** Every problem of every file, errors and warnings, sorted by place. */
  diagnostics: Diagnostic[];
  /** The manifest files read. */
  files: string[];
  /** True when no diagnostic is an error: only then may anything be sent to an API. */
  valid: boolean;
}

interface Located<T> {
  value: T;
  source: SourceDocument;
}

/** Reads, interpolates, validates and normalises every manifest under the paths, collecting all problems. */
export async function loadManifests(options: LoadManifestsOptions): Promise<LoadedManifests> {
  const { files, diagnostics } = await discoverManifestFiles(options.paths ?? []);
  const parsers: Located<DesiredParser>[] = [];
  const projects: Located<DesiredProject>[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      diagnostics.push(
        fileDiagnostic(file, 'manifest.unreadable', `cannot read file: ${(error as Error).message}`),
      );
      continue;
    }
    const parsed = parseYamlFile(file, text);
    diagnostics.push(...parsed.diagnostics);
    for (const source of parsed.documents) {
      const loaded = await loadDocument(source, options.env, diagnostics);
      if (loaded?.kind === 'Parser') parsers.push({ value: loaded, source });
      if (loaded?.kind === 'Project') projects.push({ value: loaded, source });
    }
  }
  diagnostics.push(...duplicateNames('Parser', parsers), ...duplicateNames('Project', projects));
  const sorted = sortDiagnostics(diagnostics);
  return {
    parsers: parsers.map((p) => p.value),
    projects: projects.map((p) => p.value),
    diagnostics: sorted,
    files,
    valid: !hasErrors(sorted),
  };
}

async function loadDocument(
  source: SourceDocument,
  env: Environment,
  diagnostics: Diagnostic[],
): Promise<DesiredParser | DesiredProject | undefined> {
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
    return problems.length > 0 || envProblems.length > 0 ? undefined : normaliseParser(result.data, origin);
  }
  const result = ProjectManifestSchema.safeParse(data, { reportInput: true });
  if (!result.success) {
    diagnostics.push(...diagnosticsFromIssues(source, ProjectManifestSchema, data, result.error.issues));
    return undefined;
  }
  const problems = checkProjectRules(source, result.data);
  const inputFile = problems.length === 0 ? await readInputFile(source, result.data, problems) : undefined;
  diagnostics.push(...problems);
  return problems.length > 0 || envProblems.length > 0
    ? undefined
    : normaliseProject(result.data, origin, inputFile);
}

async function readInputFile(
  source: SourceDocument,
  project: WrittenProject,
  problems: Diagnostic[],
): Promise<{ file: string; entries: string[] } | undefined> {
  const input = project.projectInput;
  if (input.type !== 'list' || input.file === undefined) return undefined;
  const resolved = path.resolve(path.dirname(source.file), input.file);
  try {
    const entries = parseInputFile(await readFile(resolved, 'utf8'));
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

function duplicateNames(kind: ManifestKind, objects: readonly Located<{ name: string }>[]): Diagnostic[] {
  const byName = new Map<string, Located<{ name: string }>[]>();
  for (const object of objects)
    byName.set(object.value.name, [...(byName.get(object.value.name) ?? []), object]);
  const out: Diagnostic[] = [];
  for (const [name, group] of byName) {
    if (group.length < 2) continue;
    const places = group.map((g) => {
      const pos = locate(g.source, ['name']);
      return `${g.source.file}:${pos.line}:${pos.column}`;
    });
    group.forEach((g, i) => {
      const others = places.filter((_, j) => j !== i);
      out.push(
        at(
          g.source,
          ['name'],
          'value',
          'manifest.duplicate-name',
          `duplicate ${kind} name "${name}": also declared at ${others.join(', ')}`,
          {
            hint: `${kind} names are unique; rename one of them`,
          },
        ),
      );
    });
  }
  return out;
}

function fileDiagnostic(file: string, code: string, message: string): Diagnostic {
  return { severity: 'error', code, file, line: 0, column: 0, path: '', message };
}
