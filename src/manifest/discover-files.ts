import { readFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
import type ignore from 'ignore';
import type { Ignore } from 'ignore';
import type { Diagnostic } from './diagnostic.js';
import { byCodeUnit } from '../code-unit-order.js';
import { isProjectFileName, projectFileIn } from './project-file-names.js';

const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml']);

/** The file, in any folder walked, that lists paths (gitignore syntax) discovery skips below that folder. */
export const IGNORE_FILE = '.scrapeformignore';

export interface DiscoverOptions {
  /** An environment's `exclude` patterns (gitignore syntax), relative to the project folder. */
  exclude?: { folder: string; patterns: readonly string[] } | undefined;
  /** The project file in use: never read as a manifest; a folder holding another one is another project. */
  projectFile?: string | undefined;
  /** Var files in use: values for variables, never read as manifests (an environment without `paths` walks them). */
  varFiles?: readonly string[] | undefined;
  /** Walk into other projects too (fmt formats every file, whichever project it belongs to). */
  enterProjects?: boolean;
}

export interface DiscoveredFiles {
  files: string[];
  /** For each file, the folder it was found under (a file given by name: its own folder). */
  roots: Map<string, string>;
  diagnostics: Diagnostic[];
}

/** The rules of one `.scrapeformignore`, matched against paths relative to its folder. */
interface IgnoreRules {
  folder: string;
  matcher: Ignore;
}

/**
 * Lists manifest files under the given paths: folders are walked recursively for `*.yaml`/`*.yml`, skipping
 * hidden folders, `node_modules` and whatever a `.scrapeformignore` in a walked folder lists (gitignore syntax,
 * relative to its folder, deeper files refining outer ones); a file named explicitly is read whatever its
 * extension and whatever the ignore files say.
 */
export async function discoverManifestFiles(
  paths: readonly string[],
  options: DiscoverOptions = {},
): Promise<DiscoveredFiles> {
  const roots = new Map<string, string>();
  const diagnostics: Diagnostic[] = [];
  const outer: IgnoreRules[] =
    options.exclude !== undefined
      ? [{ folder: options.exclude.folder, matcher: newMatcher().add(options.exclude.patterns) }]
      : [];
  const project = options.projectFile !== undefined ? path.resolve(options.projectFile) : undefined;
  for (const given of paths.length > 0 ? paths : ['.']) {
    let info;
    try {
      info = await stat(given);
    } catch {
      diagnostics.push({
        severity: 'error',
        code: 'manifest.path-not-found',
        file: given,
        line: 0,
        column: 0,
        path: '',
        message: 'no such file or folder',
      });
      continue;
    }
    if (info.isDirectory()) {
      await walk(given, given, outer, roots, diagnostics, options.enterProjects === true ? null : project);
    } else if (!roots.has(given)) roots.set(given, path.dirname(given));
  }
  for (const file of options.varFiles ?? []) {
    const full = path.resolve(file);
    for (const found of [...roots.keys()]) if (path.resolve(found) === full) roots.delete(found);
  }
  return { files: [...roots.keys()].sort(), roots, diagnostics };
}

/**
 * The files of an environment's walk that lie under the paths named on the command line (which narrow it). A
 * named path that does not exist, or a named file the walk does not read (the environment's `exclude`, a
 * `.scrapeformignore`, not `*.yaml`), is an error: reading it anyway would bypass the environment.
 */
export async function narrowFiles(
  files: readonly string[],
  narrowing: readonly string[],
  options: { environment: string; exclude?: DiscoverOptions['exclude'] },
): Promise<{ files: Set<string>; diagnostics: Diagnostic[] }> {
  const diagnostics: Diagnostic[] = [];
  const inside = new Set<string>();
  for (const given of narrowing) {
    let info;
    try {
      info = await stat(given);
    } catch {
      diagnostics.push(placeless(given, 'manifest.path-not-found', 'no such file or folder'));
      continue;
    }
    const root = path.resolve(given);
    const under = files.filter((f) => {
      const full = path.resolve(f);
      return full === root || full.startsWith(root + path.sep);
    });
    if (!info.isDirectory() && under.length === 0) {
      const relative = options.exclude !== undefined ? path.relative(options.exclude.folder, given) : '..';
      const excluded =
        options.exclude !== undefined &&
        !relative.startsWith('..') &&
        !path.isAbsolute(relative) &&
        newMatcher().add(options.exclude.patterns).ignores(relative.split(path.sep).join('/'));
      diagnostics.push({
        ...placeless(
          given,
          'environment.path-excluded',
          excluded
            ? `environment "${options.environment}" excludes this file (exclude: ${options.exclude?.patterns.join(', ')})`
            : `environment "${options.environment}" does not read this file (a .scrapeformignore, a hidden folder, or not *.yaml or *.yml)`,
        ),
        hint: 'paths on the command line narrow what the environment reads; they never add to it',
      });
    }
    for (const f of under) inside.add(path.resolve(f));
  }
  return { files: inside, diagnostics };
}

/**
 * Why a walk of `root` would not read `target`, a file or (`isDirectory`) the files of a folder, neither of which
 * need exist yet (import asks before it writes), or undefined when it would: the rules of the walk below, folder
 * by folder from `root` (a hidden folder or `node_modules`, another project's folder, a `.scrapeformignore`, not
 * `*.yaml`), `excluded` when it is the environment's `exclude` that leaves it out. `target` lies under `root`.
 */
export function walkSkips(
  target: string,
  root: string,
  options: Pick<DiscoverOptions, 'exclude' | 'projectFile'> & { isDirectory?: boolean } = {},
): 'excluded' | 'ignored' | undefined {
  const project = options.projectFile !== undefined ? path.resolve(options.projectFile) : undefined;
  const excludeRules: IgnoreRules[] =
    options.exclude !== undefined
      ? [{ folder: options.exclude.folder, matcher: newMatcher().add(options.exclude.patterns) }]
      : [];
  const full = path.resolve(target);
  const isDirectory = options.isDirectory === true;
  if (!isDirectory && !MANIFEST_EXTENSIONS.has(path.extname(full).toLowerCase())) return 'ignored';
  const folder = isDirectory ? full : path.dirname(full);
  const steps = path.relative(path.resolve(root), folder).split(path.sep).filter(Boolean);
  const rules = [...excludeRules];
  let dir = path.resolve(root);
  for (let i = 0; ; i++) {
    if (!isProjectFolder(dir, project) && projectFileIn(dir) !== undefined) return 'ignored';
    const own = readIgnoreFile(dir, []);
    if (own !== undefined) rules.push(own);
    const step = steps[i];
    if (step === undefined) break;
    dir = path.join(dir, step);
    if (step.startsWith('.') || step === 'node_modules') return 'ignored';
    if (isIgnored(rules, dir, true)) return isIgnored(excludeRules, dir, true) ? 'excluded' : 'ignored';
  }
  if (isDirectory || !isIgnored(rules, full, false)) return undefined;
  return isIgnored(excludeRules, full, false) ? 'excluded' : 'ignored';
}

/** Whether `dir` is the folder of the project file in use. */
function isProjectFolder(dir: string, project: string | undefined): boolean {
  return project !== undefined && path.resolve(dir) === path.dirname(project);
}

function placeless(file: string, code: string, message: string): Diagnostic {
  return { severity: 'error', code, file, line: 0, column: 0, path: '', message };
}

async function walk(
  dir: string,
  root: string,
  outer: readonly IgnoreRules[],
  roots: Map<string, string>,
  diagnostics: Diagnostic[],
  /** The project file in use; null: project files are skipped but other projects' folders entered. */
  project: string | undefined | null,
): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  // By code unit, as the file list is sorted in the end: localeCompare cost more than the walk in a folder of 1,000.
  entries.sort((a, b) => byCodeUnit(a.name, b.name));
  // A folder with a project file of its own is another project, read with its own variables and environments.
  // (The project's own folder is never another project, whatever else it holds: a second project file beside the
  // one in use is refused as that file is read, project-file.ts.)
  const inProject = project !== null && isProjectFolder(dir, project);
  const other =
    project === null || inProject
      ? undefined
      : entries.find((e) => e.isFile() && isProjectFileName(e.name) && path.resolve(dir, e.name) !== project);
  if (other !== undefined) {
    diagnostics.push({
      severity: 'warning',
      code: 'manifest.nested-project',
      file: path.join(dir, other.name),
      line: 0,
      column: 0,
      path: '',
      message: `skipped ${dir}: it holds its own ${other.name}, so it is another project`,
      hint: `read it on its own: scrapeform validate ${dir} (or --chdir ${dir})`,
    });
    return;
  }
  const rules = [...outer];
  const own = readIgnoreFile(dir, diagnostics);
  if (own !== undefined) rules.push(own);
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules' || isIgnored(rules, full, true))
        continue;
      await walk(full, root, rules, roots, diagnostics, project);
    } else if (
      entry.isFile() &&
      MANIFEST_EXTENSIONS.has(path.extname(entry.name).toLowerCase()) &&
      !isIgnored(rules, full, false) &&
      !roots.has(full) &&
      path.resolve(full) !== project &&
      !(inProject && isProjectFileName(entry.name))
    ) {
      roots.set(full, root);
    }
  }
}

function readIgnoreFile(dir: string, diagnostics: Diagnostic[]): IgnoreRules | undefined {
  const file = path.join(dir, IGNORE_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      diagnostics.push({
        severity: 'error',
        code: 'manifest.unreadable',
        file,
        line: 0,
        column: 0,
        path: '',
        message: `cannot read file: ${(error as Error).message}`,
      });
    }
    return undefined;
  }
  return { folder: dir, matcher: newMatcher().add(text) };
}

/** Outer files first, as git does: a later (deeper) match, ignoring or re-including, decides. */
function isIgnored(rules: readonly IgnoreRules[], full: string, isDirectory: boolean): boolean {
  let ignored = false;
  for (const { folder, matcher } of rules) {
    const from = path.relative(folder, full);
    // Rules speak for what lies under their folder only: an environment may read a folder outside the project's
    // (an absolute path, or `../shared`), which its exclude patterns, relative to scrapeform.yaml, cannot name.
    if (from === '' || !isWithin(full, folder)) continue;
    const relative = from.split(path.sep).join('/') + (isDirectory ? '/' : '');
    const result = matcher.test(relative);
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}

let loadedIgnore: typeof ignore | undefined;

/** A gitignore matcher; `ignore` is loaded when the first exclude list or ignore file is met, not at start. */
function newMatcher(): Ignore {
  loadedIgnore ??= createRequire(import.meta.url)('ignore') as typeof ignore;
  return loadedIgnore();
}

/** Whether `given` is `root` or lies below it. */
export function isWithin(given: string, root: string): boolean {
  const relative = path.relative(path.resolve(root), path.resolve(given));
  return (
    relative === '' ||
    (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
  );
}
