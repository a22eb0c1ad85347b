import path from 'node:path';
import type { Diagnostic } from './diagnostic.js';
import { isWithin } from './discover-files.js';
import { givenToOtherEnvironment } from './environment-given.js';
import type { GivenSettings } from './environment-given.js';
import { sharedStates, stateLocation } from './environment-states.js';
import { enclosingProjects } from './enclosing-project.js';
import { environmentReach, inProject } from './environment-reach.js';
import { interpolateDocument } from './interpolate.js';
import { isFolder, PROJECT_FILE_NAMES, projectFileIn, projectFilesIn } from './project-file-names.js';
import type { Environment } from './interpolate.js';
import { readManifestFile } from './read-manifest-file.js';
import { documentSource } from './object-source.js';
import type { ObjectSource } from './object-source.js';
import { at } from './rules.js';
import { ConfigSchema } from './schemas.js';
import type { WrittenConfig, WrittenEnvironment } from './schemas.js';
import { suggestNearest } from './suggest.js';
import { readVarFiles, typeProblem, valueProblem } from './variable-values.js';
import type { VarFile } from './variable-values.js';
import { documentToData, inspectDocument } from './yaml-document.js';
import { diagnosticsFromIssues } from './zod-diagnostics.js';

/**
 * The project file: one `scrapeform.yaml` at the root of a project, read before any manifest because it decides
 * which paths are read. It declares typed variables and names environments (paths, variable values, state, the
 * variable holding the key, service URLs). Without it everything works as it did before environments.
 */

export interface ProjectFile {
  file: string;
  /** The folder holding the file: the paths it names are relative to it. */
  folder: string;
  /** Undefined when the file has errors (they are in `diagnostics`). */
  config: WrittenConfig | undefined;
  /** The file as its schema reads it, even when a later check found an error (validate reads each state in it). */
  parsed?: WrittenConfig;
  place: ObjectSource | undefined;
  diagnostics: Diagnostic[];
}

/** What an environment sets besides paths and variables; flags given on the command line win over these. */
export interface EnvironmentSettings {
  name: string;
  /** The other environments scrapeform.yaml declares: a state one of them last applied is not this run's. */
  others: string[];
  state?: string;
  workspace?: string;
  apiKeyEnv?: string;
  parserUrl?: string;
  pipelineUrl?: string;
}

/** Everything a run takes from the project file and the chosen environment. */
export interface SelectedEnvironment {
  project: ProjectFile | undefined;
  /** The chosen environment's settings; undefined without environments. */
  settings: EnvironmentSettings | undefined;
  /** The files and folders to read. */
  paths: string[];
  /** gitignore patterns of the environment, relative to the project folder. */
  exclude: { folder: string; patterns: string[] } | undefined;
  /**
   * With an environment, the paths named on the command line: `paths` stays the environment's whole set (its
   * templates are needed), and only the objects declared in files under these are planned.
   */
  narrowing?: string[];
  /** Every environment's `varFiles` and the `--var-file`s: values, never manifests, whichever environment runs. */
  varFiles: string[];
  /** Every declared variable with its value. */
  variables: Map<string, unknown>;
  diagnostics: Diagnostic[];
}

export interface SelectEnvironmentOptions {
  /** Files or folders named on the command line. */
  paths?: readonly string[];
  env: Environment;
  /** `--env NAME`. */
  environment?: string | undefined;
  /** `--var-file FILE`s, later ones winning. */
  varFiles?: readonly string[] | undefined;
  /** The project file; found (see findProjectFile) when left out; `false` reads none. */
  projectFile?: string | false | undefined;
  /** `--state`, `--workspace`, `--api-key-env`, which win over the environment's: refused when another's. */
  given?: GivenSettings | undefined;
}

/**
 * The project file in use: `scrapeform.yaml` (or `.yml`) in the current folder; else, when one folder is named,
 * in that folder (so `scrapeform validate examples/multi-env` reads that project). A run inside a project that finds
 * none is refused by selectEnvironment (enclosing-project.ts), never planned against another state.
 */
export function findProjectFile(paths: readonly string[]): string | undefined {
  const folders = paths.length === 1 && isFolder(paths[0] as string) ? ['', paths[0] as string] : [''];
  for (const folder of folders) {
    const file = projectFileIn(folder);
    if (file !== undefined) return file;
  }
  return undefined;
}

/** The project file read and checked; environment variables (`${NAME}`) are expanded, variables are not. */
export function readProjectFile(file: string, env: Environment): ProjectFile {
  const folder = path.dirname(file);
  const read = readManifestFile(file);
  const out: ProjectFile = {
    file,
    folder,
    config: undefined,
    place: undefined,
    diagnostics: read.diagnostics,
  };
  // Which of two holds the project's environments is in doubt: neither is taken (nor, as before, the folder
  // taken for another project's and skipped, every object of the environment then planned for deletion).
  for (const other of projectFilesIn(folder).filter((f) => path.resolve(f) !== path.resolve(file))) {
    out.diagnostics.push({
      severity: 'error',
      code: 'config.project-files',
      file: other,
      line: 0,
      column: 0,
      path: '',
      message: `a second project file beside ${path.basename(file)}: a project has one, and which of the two holds its variables and environments is in doubt`,
      hint: 'keep one of them, with what the other holds that it lacks; nothing is read or sent until then',
    });
  }
  const [source, extra] = read.documents;
  if (extra !== undefined) {
    out.diagnostics.push(
      at(documentSource(extra), [], 'value', 'config.documents', 'scrapeform.yaml holds one document', {
        hint: 'keep Parser and Project manifests in other files',
      }),
    );
  }
  if (source === undefined) {
    if (out.diagnostics.length === 0) {
      out.diagnostics.push({
        severity: 'error',
        code: 'config.empty',
        file,
        line: 1,
        column: 1,
        path: '',
        message: 'scrapeform.yaml is empty',
        hint: 'write kind: Config with variables: and environments:, or remove the file',
      });
    }
    return out;
  }
  const structural = inspectDocument(source);
  out.diagnostics.push(...structural);
  if (structural.length > 0) return out;
  const interpolation = interpolateDocument(source, {
    env,
    variablesHint: 'scrapeform.yaml reads environment variables (${NAME}) only; variables are for manifests',
  });
  out.diagnostics.push(...interpolation);
  const converted = documentToData(source);
  if ('diagnostic' in converted) {
    out.diagnostics.push(converted.diagnostic);
    return out;
  }
  const place = documentSource(source);
  out.place = place;
  const result = ConfigSchema.safeParse(converted.data, { reportInput: true });
  if (!result.success) {
    out.diagnostics.push(...diagnosticsFromIssues(place, ConfigSchema, converted.data, result.error.issues));
    return out;
  }
  out.parsed = result.data;
  for (const [name, variable] of Object.entries(result.data.variables ?? {})) {
    if (variable.default === undefined) continue;
    const problem = typeProblem(variable.type, variable.default);
    if (problem !== undefined) {
      out.diagnostics.push(
        at(
          place,
          ['variables', name, 'default'],
          'value',
          'config.variable-type',
          `default of variable "${name}" ${problem}`,
        ),
      );
    }
  }
  out.diagnostics.push(...sharedStates(result.data, place, folder, env));
  if (interpolation.length === 0 && !out.diagnostics.some((d) => d.severity === 'error'))
    out.config = result.data;
  return out;
}

/**
 * Reads the project file (when there is one) and the environment chosen, and resolves the variables: a
 * declaration's default, then the environment's `varFiles` in order, then its `variables`, then each
 * `--var-file` in order, the later winning. Every value is checked against its declared type at its place.
 */
export function selectEnvironment(options: SelectEnvironmentOptions): SelectedEnvironment {
  const given = options.paths ?? [];
  const file = options.projectFile === false ? undefined : (options.projectFile ?? findProjectFile(given));
  const project = file !== undefined ? readProjectFile(file, options.env) : undefined;
  const diagnostics = [...(project?.diagnostics ?? [])];
  const selected: SelectedEnvironment = {
    project,
    settings: undefined,
    paths: [...given],
    exclude: undefined,
    variables: new Map(),
    diagnostics,
    varFiles: [...(options.varFiles ?? [])],
  };
  const config = project?.config;
  const names = Object.keys(config?.environments ?? {});
  const name = options.environment;
  if (project === undefined) {
    // Inside a project whose file this run would not read: refused before its state or key is taken for another.
    const enclosing = options.projectFile === false ? [] : enclosingProjects(given);
    diagnostics.push(...enclosing);
    if (name !== undefined && enclosing.length === 0) diagnostics.push(noProject(`--env ${name}`));
    readVarFiles(givenVarFiles(options), new Map(), selected.variables, diagnostics, undefined);
    return selected;
  }
  if (config === undefined || project.place === undefined) return selected;
  selected.varFiles = [
    ...Object.values(config.environments ?? {}).flatMap((e) =>
      (e.varFiles ?? []).map((f) => inProject(project.folder, f)),
    ),
    ...(options.varFiles ?? []),
  ];
  // Paths named on the command line narrow what is read; the project's own folder is no narrowing.
  const narrowed = given.filter((p) => path.resolve(p) !== path.resolve(project.folder));
  let environment: WrittenEnvironment | undefined;
  if (name !== undefined) {
    // Its own keys only: `--env constructor` (or toString, __proto__) found what every object has, and ran on the
    // default state, with the default key, over the whole folder.
    environment = Object.hasOwn(config.environments ?? {}, name) ? config.environments?.[name] : undefined;
    if (environment === undefined) {
      const near = suggestNearest(name, names);
      diagnostics.push(
        at(
          project.place,
          ['environments'],
          names.length > 0 ? 'key' : 'value',
          'environment.unknown',
          names.length > 0
            ? `--env ${name}: no environment "${name}" in ${project.file}`
            : `--env ${name}: ${project.file} declares no environments`,
          {
            hint:
              near !== undefined
                ? `did you mean "${near}"?`
                : names.length > 0
                  ? `its environments: ${names.join(', ')}`
                  : 'add environments: to scrapeform.yaml, or leave --env out',
          },
        ),
      );
      return selected;
    }
  } else if (names.length > 0) {
    diagnostics.push(
      at(
        project.place,
        ['environments'],
        'key',
        'environment.required',
        `choose an environment with --env: ${names.join(', ')}`,
        {
          hint: 'validate and render without --env go over every environment; other commands act on one',
        },
      ),
    );
    return selected;
  }
  if (name !== undefined && environment !== undefined) {
    diagnostics.push(
      ...givenToOtherEnvironment(
        config,
        project.place,
        project.folder,
        options.env,
        { name, environment },
        options.given ?? {},
        options.varFiles,
      ),
    );
    selected.settings = {
      name,
      others: names.filter((other) => other !== name),
      ...(environment.state !== undefined ? { state: stateLocation(environment.state, project.folder) } : {}),
      ...(environment.workspace !== undefined ? { workspace: environment.workspace } : {}),
      ...(environment.apiKeyEnv !== undefined ? { apiKeyEnv: environment.apiKeyEnv } : {}),
      ...(environment.parserUrl !== undefined ? { parserUrl: environment.parserUrl } : {}),
      ...(environment.pipelineUrl !== undefined ? { pipelineUrl: environment.pipelineUrl } : {}),
    };
  }
  const reach =
    environment !== undefined ? environmentReach(name as string, environment, project.folder) : undefined;
  const own = reach?.paths ?? [inProject(project.folder, '.')];
  if (environment !== undefined && narrowed.length > 0) {
    // Paths narrow the environment, never replace it: a folder only prod reads stays prod's, a file the
    // environment excludes stays excluded (load-manifests.ts), and templates elsewhere are still read.
    for (const given of narrowed) {
      if (own.some((root) => isWithin(given, root))) continue;
      diagnostics.push({
        severity: 'error',
        code: 'environment.path-outside',
        file: given,
        line: 0,
        column: 0,
        path: '',
        message: `not among the paths of environment "${name as string}" (${(environment.paths ?? ['.']).join(', ')})`,
        hint: `paths on the command line narrow the environment's paths: name a file or folder under them, or the environment that reads this one`,
      });
    }
    selected.paths = own;
    selected.narrowing = narrowed;
  } else selected.paths = narrowed.length > 0 ? narrowed : own;
  selected.exclude = reach?.exclude;
  const declared = new Map(Object.entries(config.variables ?? {}).map(([n, v]) => [n, v.type] as const));
  for (const [variable, declaration] of Object.entries(config.variables ?? {})) {
    if (declaration.default !== undefined) selected.variables.set(variable, declaration.default);
  }
  const place = project.place;
  readVarFiles(
    (environment?.varFiles ?? []).map((written, i) => ({
      file: inProject(project.folder, written),
      entry: { place, path: ['environments', name as string, 'varFiles', i], written },
    })),
    declared,
    selected.variables,
    diagnostics,
    name,
  );
  for (const [variable, value] of Object.entries(environment?.variables ?? {})) {
    const problem = valueProblem(declared, variable, value);
    if (problem !== undefined) {
      diagnostics.push(
        at(
          project.place,
          ['environments', name as string, 'variables', variable],
          problem.at,
          problem.code,
          problem.message,
          problem.extra,
        ),
      );
    } else selected.variables.set(variable, value);
  }
  readVarFiles(givenVarFiles(options), declared, selected.variables, diagnostics, name);
  for (const variable of declared.keys()) {
    if (selected.variables.has(variable)) continue;
    diagnostics.push(
      at(
        project.place,
        ['variables', variable],
        'key',
        'config.variable-unset',
        `variable "${variable}" has no value${name !== undefined ? ` in environment "${name}"` : ''}`,
        {
          hint:
            name !== undefined
              ? `give it a default, a value under environments.${name}.variables, or one in a var file`
              : 'give it a default, or a value in a --var-file',
        },
      ),
    );
  }
  return selected;
}

/** The `--var-file`s: named on the command line, so a file that cannot be read is reported as itself. */
function givenVarFiles(options: SelectEnvironmentOptions): VarFile[] {
  return (options.varFiles ?? []).map((file) => ({ file }));
}

/** The environments a project file declares, in the order written. */
export function environmentNames(project: ProjectFile | undefined): string[] {
  return Object.keys(project?.config?.environments ?? {});
}

function noProject(what: string): Diagnostic {
  return {
    severity: 'error',
    code: 'environment.no-project',
    file: PROJECT_FILE_NAMES[0],
    line: 0,
    column: 0,
    path: '',
    message: `${what}: there is no scrapeform.yaml in the current folder`,
    hint: 'environments are declared in scrapeform.yaml at the root of the project; run from there or use --chdir',
  };
}
