import { statSync } from 'node:fs';
import path from 'node:path';

/*
 * The names of the project file, apart from project-file.ts so that discovery (which skips another project's
 * folder) needs nothing of the manifests.
 */

/** `scrapeform.yaml`, or `scrapeform.yml`: one of them at the root of a project. */
export const PROJECT_FILE_NAMES = ['scrapeform.yaml', 'scrapeform.yml'] as const;

/** The names the project file may give its environments (its schema, and what `--env <TAB>` offers). */
export const ENVIRONMENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** The project files a folder holds ('' is the current folder), in the order of PROJECT_FILE_NAMES. */
export function projectFilesIn(folder: string): string[] {
  return PROJECT_FILE_NAMES.map((name) => path.join(folder, name)).filter(isFile);
}

/** The first project file a folder holds, looking no further once one is found (every command looks for it). */
export function projectFileIn(folder: string): string | undefined {
  return PROJECT_FILE_NAMES.map((name) => path.join(folder, name)).find(isFile);
}

/** Whether `name` is one of the project file's names. */
export function isProjectFileName(name: string): boolean {
  return (PROJECT_FILE_NAMES as readonly string[]).includes(name);
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Whether `file` is a folder (false when it does not exist or cannot be read). */
export function isFolder(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}
