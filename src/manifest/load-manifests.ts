import path from 'node:path';
import { hasErrors, sortDiagnostics } from './diagnostic.js';
import type { Diagnostic } from './diagnostic.js';
import { discoverManifestFiles } from './discover-files.js';
import type { Environment } from './interpolate.js';
import { loadManifestFile } from './load-file.js';
import type { LoadedObject } from './load-file.js';
import type { DesiredParser, DesiredProject } from '../model/desired.js';
import type { ManifestKind } from './schemas.js';

export interface LoadManifestsOptions {
  /** Files or folders; `.` when empty. */
  paths?: readonly string[];
  /** Variables for `${NAME}`; the process environment in the CLI, a plain object in tests. */
  env: Environment;
  /** When validation runs, for the warning about a past `scheduledAt`; the clock when not given. */
  now?: Date;
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

/** Reads, interpolates, validates and normalises every manifest under the paths, collecting all problems. */
export async function loadManifests(options: LoadManifestsOptions): Promise<LoadedManifests> {
  const { files, roots, diagnostics } = await discoverManifestFiles(options.paths ?? []);
  // The edge of the manifest layer: the clock is read here at most, and everything below is handed `now`.
  const now = options.now ?? new Date();
  // Files are read synchronously one after another: measured in bench/validate, awaiting fs/promises per file
  // doubled the time of 2,000 small files, and worker threads lost more to cold starts than they won.
  const results = files.map((file) =>
    loadManifestFile(file, { env: options.env, now, root: roots.get(file) ?? path.dirname(file) }),
  );
  const parsers = results.flatMap((r) => r.parsers);
  const projects = results.flatMap((r) => r.projects);
  diagnostics.push(...results.flatMap((r) => r.diagnostics));
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
    const places = group.map((g) => `${g.value.source.file}:${g.namePosition.line}:${g.namePosition.column}`);
    group.forEach((g, i) => {
      out.push({
        severity: 'error',
        code: 'manifest.duplicate-name',
        file: g.value.source.file,
        line: g.namePosition.line,
        column: g.namePosition.column,
        path: 'name',
        message: `duplicate ${kind} name "${name}": also declared at ${places.filter((_, j) => j !== i).join(', ')}`,
        hint: `${kind} names are unique; rename one of them`,
      });
    });
  }
  return out;
}
