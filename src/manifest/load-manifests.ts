import path from 'node:path';
import { yaml } from './yaml-library.js';
import { hasErrors, sortDiagnostics } from './diagnostic.js';
import type { Diagnostic } from './diagnostic.js';
import { checkMoves } from './check-moves.js';
import {
  diagnosticsWithoutKeys,
  keyReferences,
  keysSet,
  keyValues,
  keyVariables,
} from './check-key-values.js';
import { discoverManifestFiles, narrowFiles } from './discover-files.js';
import type { Environment } from './interpolate.js';
import { loadObjectDocument, writtenKind } from './load-file.js';
import { parseManifestText, readManifestText } from './read-manifest-file.js';
import type { LoadedObject } from './load-file.js';
import { loadPlainFile } from './load-plain.js';
import { narrowedSelects } from '../model/desired.js';
import type { DesiredParser, DesiredProject, Narrowing } from '../model/desired.js';
import { environmentNames, selectEnvironment } from './project-file.js';
import { otherEnvironments } from './environment-reach.js';
import type { GivenSettings } from './environment-given.js';
import type { EnvironmentReach } from './environment-reach.js';
import type { EnvironmentSettings } from './project-file.js';
import { TEMPLATE_KINDS } from './schemas.js';
import type { ManifestKind, TemplateKind } from './schemas.js';
import { readPlainYaml } from './read-plain-yaml.js';
import { collectTemplates } from './templates.js';
import type { SourceDocument } from './yaml-document.js';

export interface LoadManifestsOptions {
  /** Files or folders; `.` when empty (or, with a project file, the chosen environment's paths). */
  paths?: readonly string[];
  /** Variables for `${NAME}`; the process environment in the CLI, a plain object in tests. */
  env: Environment;
  /** When validation runs, for the warning about a past `scheduledAt`; the clock when not given. */
  now?: Date;
  /** `--env NAME`: the environment of scrapeform.yaml to read. */
  environment?: string | undefined;
  /** `--var-file FILE`s: values of declared variables, later files winning over earlier ones and the project. */
  varFiles?: readonly string[] | undefined;
  /** The project file; `scrapeform.yaml` in the current folder (or the one folder given) when left out; false: none. */
  projectFile?: string | false | undefined;
  /** `--state`, `--workspace`, `--api-key-env`: refused when another environment's (environment-given.ts). */
  given?: GivenSettings | undefined;
  /**
   * How files are read. `fast` (the default): a file with no problem and none of the features that need YAML
   * nodes (references, templates, for_each, anchors, merge keys, tags) is read straight to data, and any other
   * file with positions. `positions`: every file with positions, the reference the fast way is tested against.
   */
  reading?: 'fast' | 'positions';
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
  /** The environment read, with what it sets for state, key and services; absent without environments. */
  environment?: EnvironmentSettings;
  /** The project file read, if any. */
  projectFile?: string;
  /**
   * The other environments of scrapeform.yaml (what each reads), when one was chosen and there are others:
   * `drift --accept` leaves alone a document one of them reads too.
   */
  otherEnvironments?: EnvironmentReach[];
  /**
   * Paths named with `--env`: every object of the environment is loaded (and checked), but only these, declared
   * in files under the paths, are planned; plan leaves every other object alone, as with `--target`.
   */
  narrowedTo?: Narrowing;
}

/**
 * Reads the project file and the chosen environment, then reads, expands (templates, for_each), interpolates,
 * validates and normalises every manifest under the paths, collecting all problems.
 */
export async function loadManifests(options: LoadManifestsOptions): Promise<LoadedManifests> {
  const selected = selectEnvironment(options);
  const projectFile = selected.project?.file;
  // A key must never reach a declared value: a reference to a key variable is refused where it is written (by
  // the interpolation of each document kept as a manifest, and in the project file, whose values reach manifests
  // through variables), a key's value wherever it came from (as each object is read, and below); and no message
  // quotes a key, whatever value it is about.
  const keyNames = keyVariables(selected.project?.config);
  const keys = keysSet(keyNames, options.env);
  const finish = (found: Diagnostic[]): Diagnostic[] =>
    sortDiagnostics(
      diagnosticsWithoutKeys(
        withoutRepeats(found),
        keys.map((k) => k.value),
      ),
    );
  const { files, roots, diagnostics } = await discoverManifestFiles(selected.paths, {
    exclude: selected.exclude,
    projectFile,
    varFiles: selected.varFiles,
  });
  diagnostics.push(...selected.diagnostics);
  const narrowing =
    selected.narrowing !== undefined && !hasErrors(selected.diagnostics)
      ? await narrowFiles(files, selected.narrowing, {
          environment: selected.settings?.name ?? '',
          exclude: selected.exclude,
        })
      : undefined;
  diagnostics.push(...(narrowing?.diagnostics ?? []));
  const others =
    selected.settings !== undefined && selected.project !== undefined
      ? otherEnvironments(selected.project.config, selected.project.folder, selected.settings.name)
      : [];
  const base = {
    files,
    ...(selected.settings !== undefined ? { environment: selected.settings } : {}),
    ...(others.length > 0 ? { otherEnvironments: others } : {}),
    ...(projectFile !== undefined ? { projectFile } : {}),
  };
  // Without a usable project file or environment nothing is expanded: every reference would be a false alarm.
  if (hasErrors(selected.diagnostics)) {
    const sorted = finish(diagnostics);
    return { parsers: [], projects: [], diagnostics: sorted, valid: false, ...base };
  }
  // The edge of the manifest layer: the clock is read here at most, and everything below is handed `now`.
  const now = options.now ?? new Date();
  // Files are read synchronously one after another: measured in bench/validate, awaiting fs/promises per file
  // doubled the time of 2,000 small files, and worker threads lost more to cold starts than they won.
  const templateDocuments: { source: SourceDocument; kind: TemplateKind }[] = [];
  // An object that extends a template waits until every template is read; the others are expanded as their file
  // is read, so the YAML of 2,000 files is never held at once (bench/validate: peak memory).
  const deferred: { source: SourceDocument; root: string; order: number }[] = [];
  const loadedByOrder: { order: number; loaded: LoadedObject<DesiredParser | DesiredProject>[] }[] = [];
  const scope = {
    env: options.env,
    variables: selected.variables,
    keyVariables: keyNames,
    ...(projectFile === undefined
      ? { variablesHint: 'variables are declared in scrapeform.yaml at the root of the project (variables:)' }
      : {}),
  };
  const noTemplates = collectTemplates([], []);
  const references: Diagnostic[] = [];
  if (projectFile !== undefined) {
    const text = readManifestText(projectFile);
    if (!('diagnostic' in text)) references.push(...keyReferences(projectFile, text.text, keyNames));
  }
  let order = 0;
  for (const file of files) {
    const text = readManifestText(file);
    if ('diagnostic' in text) {
      diagnostics.push(text.diagnostic);
      continue;
    }
    const root = roots.get(file) ?? path.dirname(file);
    if (options.reading !== 'positions') {
      const plain = readPlainYaml(text.text);
      const loaded =
        plain !== undefined
          ? loadPlainFile(file, plain, { scope, now, root, keys, templates: noTemplates })
          : undefined;
      if (loaded !== undefined) {
        loadedByOrder.push({ order: order++, loaded });
        continue;
      }
    }
    const read = parseManifestText(file, text.text);
    diagnostics.push(...read.diagnostics);
    for (const source of read.documents) {
      const kind = writtenKind(source);
      if ((TEMPLATE_KINDS as readonly unknown[]).includes(kind)) {
        templateDocuments.push({ source, kind: kind as TemplateKind });
      } else if (mayExtend(source)) {
        deferred.push({ source, root, order: order++ });
      } else {
        const context = { scope, now, root, roots, keys, templates: noTemplates };
        loadedByOrder.push({ order: order++, loaded: loadObjectDocument(source, context, diagnostics) });
      }
    }
  }
  const templates = collectTemplates(templateDocuments, diagnostics);
  for (const { source, root, order: at } of deferred) {
    loadedByOrder.push({
      order: at,
      loaded: loadObjectDocument(source, { scope, now, root, roots, keys, templates }, diagnostics),
    });
  }
  const parsers: LoadedObject<DesiredParser>[] = [];
  const projects: LoadedObject<DesiredProject>[] = [];
  for (const { loaded } of loadedByOrder.sort((a, b) => a.order - b.order)) {
    for (const object of loaded) {
      if (object.value.kind === 'Parser') parsers.push(object as LoadedObject<DesiredParser>);
      else projects.push(object as LoadedObject<DesiredProject>);
    }
  }
  diagnostics.push(...duplicateNames('Parser', parsers), ...duplicateNames('Project', projects));
  diagnostics.push(...checkMoves([...parsers, ...projects].map((o) => o.value)));
  // A value is looked at only when no reference explains it: one problem, told once, at the reference (an
  // object with another problem was checked as it was read).
  diagnostics.push(...references);
  const referenced = diagnostics.some((d) => d.code === 'manifest.api-key-reference');
  if (!referenced)
    diagnostics.push(
      ...keyValues(
        [...parsers, ...projects].map((o) => o.value),
        keys,
      ),
    );
  const sorted = finish(
    referenced ? diagnostics.filter((d) => d.code !== 'manifest.api-key-in-value') : diagnostics,
  );
  return {
    parsers: parsers.map((p) => p.value),
    projects: projects.map((p) => p.value),
    diagnostics: sorted,
    valid: !hasErrors(sorted),
    ...base,
    ...(narrowing !== undefined && selected.narrowing !== undefined
      ? {
          narrowedTo: {
            paths: selected.narrowing,
            addresses: [...parsers, ...projects]
              .filter((o) => narrowing.files.has(path.resolve(o.value.source.file)))
              .map((o) => o.value.address),
          },
        }
      : {}),
  };
}

/** One environment's objects, as validate and render show them. */
export interface LoadedEnvironment {
  name: string;
  parsers: DesiredParser[];
  projects: DesiredProject[];
}

export interface LoadedEnvironments extends Omit<LoadedManifests, 'environment'> {
  /** Each environment read, in the order scrapeform.yaml declares them; empty without environments. */
  environments: LoadedEnvironment[];
}

/**
 * What `validate` and `render` read without `--env`: every environment of the project in turn (or the manifests
 * alone when there are none). A problem found in some environments only says which.
 */
export async function loadAllEnvironments(
  options: Omit<LoadManifestsOptions, 'environment'>,
): Promise<LoadedEnvironments> {
  const probe = selectEnvironment({ ...options, environment: undefined });
  const declared = environmentNames(probe.project);
  if (declared.length === 0) return { ...(await loadManifests(options)), environments: [] };
  const all = await Promise.all(
    declared.map(async (name) => ({ name, run: await loadManifests({ ...options, environment: name }) })),
  );
  // Paths named on the command line: the environments that read them (`validate legacy` checks prod alone), or
  // every one, each saying why not, when none does.
  const reading = all.filter((e) => !e.run.diagnostics.some((d) => NOT_READ.includes(d.code)));
  const chosen = reading.length > 0 ? reading : all;
  const names = chosen.map((e) => e.name);
  const runs = chosen.map((e) => narrowedRun(e.run));
  const counts = new Map<string, number>();
  for (const run of runs) {
    for (const d of new Set(run.diagnostics.map((x) => JSON.stringify(x))))
      counts.set(d, (counts.get(d) ?? 0) + 1);
  }
  const seen = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  runs.forEach((run, i) => {
    for (const d of run.diagnostics) {
      const key = JSON.stringify(d);
      if (seen.has(key)) continue;
      seen.add(key);
      diagnostics.push(
        (counts.get(key) ?? 0) < runs.length
          ? { ...d, message: `${d.message} [environment ${names[i]}]` }
          : d,
      );
    }
  });
  const sorted = sortDiagnostics(diagnostics);
  const first = runs[0] as LoadedManifests;
  return {
    parsers: runs.flatMap((r) => r.parsers),
    projects: runs.flatMap((r) => r.projects),
    diagnostics: sorted,
    files: [...new Set(runs.flatMap((r) => r.files))].sort(),
    valid: !hasErrors(sorted),
    ...(first.projectFile !== undefined ? { projectFile: first.projectFile } : {}),
    environments: runs.map((run, i) => ({
      name: names[i] as string,
      parsers: run.parsers,
      projects: run.projects,
    })),
  };
}

/** The problems that say an environment does not read a path named on the command line. */
const NOT_READ = ['environment.path-outside', 'environment.path-excluded'];

/** A run with only the objects of the paths named (validate and render show those). */
function narrowedRun(run: LoadedManifests): LoadedManifests {
  if (run.narrowedTo === undefined) return run;
  const kept = narrowedSelects(run.narrowedTo);
  return {
    ...run,
    parsers: run.parsers.filter((p) => kept(p.address)),
    projects: run.projects.filter((p) => kept(p.address)),
  };
}

/** Whether a document may extend a template: it writes `extends`, or a merge key could bring one in. */
function mayExtend(source: SourceDocument): boolean {
  const root = source.doc.contents;
  return (
    yaml().isMap(root) &&
    root.items.some((pair) => {
      const key: unknown = yaml().isScalar(pair.key) ? pair.key.value : pair.key;
      return key === 'extends' || typeof key === 'symbol';
    })
  );
}

/** The same problem found again (a for_each document read once per element) is reported once. */
function withoutRepeats(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((d) => {
    const key = JSON.stringify(d);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function duplicateNames(
  kind: ManifestKind,
  objects: readonly LoadedObject<DesiredParser | DesiredProject>[],
): Diagnostic[] {
  const byName = new Map<string, LoadedObject<DesiredParser | DesiredProject>[]>();
  for (const object of objects)
    byName.set(object.value.name, [...(byName.get(object.value.name) ?? []), object]);
  const out: Diagnostic[] = [];
  for (const [name, group] of byName) {
    if (group.length < 2) continue;
    // A generated object is named by the element that made it: several may share the line of `name:`.
    const placeOf = (g: LoadedObject<DesiredParser | DesiredProject>): string =>
      `${g.namePosition.file}:${g.namePosition.line}:${g.namePosition.column}` +
      (g.element !== undefined
        ? ` (${g.element.label} at ${g.element.place.file}:${g.element.place.line}:${g.element.place.column})`
        : '');
    const places = group.map(placeOf);
    group.forEach((g, i) => {
      const where = g.element?.place ?? g.namePosition;
      out.push({
        severity: 'error',
        code: 'manifest.duplicate-name',
        file: where.file,
        line: where.line,
        column: where.column,
        path: g.element !== undefined ? g.element.label : 'name',
        message: `duplicate ${kind} name "${name}": also declared at ${places.filter((_, j) => j !== i).join(', ')}`,
        hint:
          g.element !== undefined
            ? `every element of for_each must give the object its own name (${kind.toLowerCase()}.${name} is its address); make the values differ, or use \${each.KEY} in name`
            : `${kind} names are unique; rename one of them`,
      });
    });
  }
  return out;
}
