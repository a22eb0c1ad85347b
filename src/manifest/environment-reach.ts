import { statSync } from 'node:fs';
import path from 'node:path';
import { isWithin, walkSkips } from './discover-files.js';
import type { WrittenConfig, WrittenEnvironment } from './schemas.js';

/** What one environment of scrapeform.yaml reads: its paths (relative to the project folder) and its `exclude`. */
export interface EnvironmentReach {
  name: string;
  paths: string[];
  /** gitignore patterns of the environment, relative to the project folder. */
  exclude: { folder: string; patterns: string[] } | undefined;
}

/** A path scrapeform.yaml writes: relative to its folder, or absolute as written. */
export function inProject(folder: string, written: string): string {
  return path.isAbsolute(written) ? written : path.join(folder, written);
}

/** The paths and `exclude` of one environment, as its walk uses them (`.` when it names no paths). */
export function environmentReach(
  name: string,
  environment: WrittenEnvironment,
  folder: string,
): EnvironmentReach {
  return {
    name,
    paths: (environment.paths ?? ['.']).map((p) => inProject(folder, p)),
    exclude:
      environment.exclude !== undefined && environment.exclude.length > 0
        ? { folder, patterns: environment.exclude }
        : undefined,
  };
}

/** Every environment of scrapeform.yaml but `chosen`, in the order written; none without environments. */
export function otherEnvironments(
  config: WrittenConfig | undefined,
  folder: string,
  chosen: string | undefined,
): EnvironmentReach[] {
  return Object.entries(config?.environments ?? {})
    .filter(([name]) => name !== chosen)
    .map(([name, environment]) => environmentReach(name, environment, folder));
}

/**
 * The environments among `reaches` whose walk reads `target`: a manifest file, or (`isDirectory`) the files a
 * folder will hold, neither of which need exist yet. A path of an environment that is a file reads that file
 * alone; a folder (or one not made yet) reads what its walk enters (walkSkips: `exclude`, `.scrapeformignore`,
 * hidden folders, another project's folder). One document such an environment reads is shared with it: an edit
 * made for one environment changes the other's objects at its next plan.
 */
export function environmentsReading(
  target: string,
  reaches: readonly EnvironmentReach[],
  options: { projectFile?: string | undefined; isDirectory?: boolean } = {},
): string[] {
  const full = path.resolve(target);
  return reaches
    .filter((reach) =>
      reach.paths.some((root) => {
        if (isFile(root)) return options.isDirectory !== true && path.resolve(root) === full;
        return (
          isWithin(full, root) &&
          walkSkips(full, root, {
            exclude: reach.exclude,
            projectFile: options.projectFile,
            isDirectory: options.isDirectory === true,
          }) === undefined
        );
      }),
    )
    .map((reach) => reach.name);
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
