import path from 'node:path';
import type { Diagnostic } from './diagnostic.js';
import { walkSkips } from './discover-files.js';
import { isFolder, projectFileIn } from './project-file-names.js';

/**
 * A run that found no project file of its own (in the current folder, or in the one folder named), from or naming
 * a folder inside a project: the nearest scrapeform.yaml above, for the current folder and for each path named,
 * when that project's walk reads the folder. Read from there, the project's environments would be ignored: another
 * state (an empty `.scrapeform/state.json` in the subfolder), the key of the process instead of the environment's,
 * so a plan that creates every object again (paid generations), perhaps in another account. It is an error, as
 * `docker compose` would have found the file and Terraform's `-chdir` moves to the root: the hint says how.
 */
export function enclosingProjects(paths: readonly string[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  for (const given of ['', ...paths]) {
    const full = path.resolve(given);
    // The folder itself holds none (or holds another project's, which the walk skips): its parents are looked at.
    const file = projectFileAbove(path.dirname(full));
    if (file === undefined || seen.has(file)) continue;
    // A folder the project never reads (hidden, node_modules, in its .scrapeformignore) is not part of it.
    const isDirectory = isFolder(full);
    if (walkSkips(full, path.dirname(file), { projectFile: file, isDirectory }) !== undefined) continue;
    seen.add(file);
    const shown = path.relative(process.cwd(), file);
    const root = path.dirname(shown);
    out.push({
      severity: 'error',
      code: 'config.parent-project',
      file: shown,
      line: 0,
      column: 0,
      path: '',
      message: `${given === '' ? 'the current folder' : given} is inside the project of ${shown}, which is read only from its own folder: its environments (state, key variable, service URLs), variables and paths would be ignored, and objects it manages planned again against another state`,
      hint: `run from ${root} (or --chdir ${root}), naming paths from there; or write a scrapeform.yaml in ${given === '' ? 'this folder' : isDirectory ? given : path.dirname(given)} to make it a project apart`,
    });
  }
  return out;
}

/** The nearest project file in `folder` or above it. */
function projectFileAbove(folder: string): string | undefined {
  for (let dir = folder; ; dir = path.dirname(dir)) {
    const file = projectFileIn(dir);
    if (file !== undefined) return path.resolve(file);
    if (path.dirname(dir) === dir) return undefined;
  }
}
