import { statSync } from 'node:fs';
import { access, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import ignore from 'ignore';
import { ScrapeformError } from '../errors.js';
import { isWithin, walkSkips } from '../manifest/discover-files.js';
import { environmentsReading, otherEnvironments } from '../manifest/environment-reach.js';
import { loadManifests } from '../manifest/load-manifests.js';
import type { SelectedEnvironment } from '../manifest/project-file.js';
import { fileKey, giveDistinctFiles } from './distinct-files.js';
import { writeImported } from './import-writes.js';
import { withEnvironmentRecorded } from '../state/state-environment.js';
import { importParser, importProject } from './live-to-manifest.js';
import type { ImportedObject } from './live-to-manifest.js';
import { chosenEnvironment } from './open-workspace.js';
import type { Services } from './open-workspace.js';
import type { LiveProject } from '../api/live.js';
import { PROJECT_FIELDS } from '../model/project-fields.js';
import { managedIds } from '../plan/plan-context.js';
import { nullKeys } from '../plan/listed-nulls.js';
import { replaceFile, writeFailureReason } from '../replace-file.js';
import { whileHolding } from '../state/backend.js';

export interface ImportOptions {
  /**
   * The folder the manifests are written to; manifests already there are not imported again. With an
   * environment it must be a folder the environment reads (its first path when left out); `.` otherwise.
   */
  out?: string;
  /** Only objects whose name matches this glob (`*` and `?`). */
  filter?: string;
  env: Readonly<Record<string, string | undefined>>;
  /**
   * `--env NAME`: the environment of scrapeform.yaml imported into. An object any of its manifests declares is
   * not imported, and `out` must be one of its folders, so the next `plan --env NAME` reads what import wrote.
   */
  environment?: string | undefined;
  /** `--var-file FILE`s: values of the declared variables the manifests read. */
  varFiles?: readonly string[] | undefined;
  /**
   * `--allow-shared-out`: with an environment, write into a folder other environments of scrapeform.yaml read too
   * (refused otherwise: their next plans would create what was imported, a parser at 30,000 credits).
   */
  allowSharedOut?: boolean;
  /** The project file; `scrapeform.yaml` in the current folder when left out; false: none. */
  projectFile?: string | false | undefined;
  /** Import from this service only; the other one is never called (a key may have access to one service only). */
  only?: 'parsers' | 'projects';
  /** Objects passed over, with why (a latest version that is not FINISHED, an unknown project type). */
  onSkip?: (message: string) => void;
  /**
   * Called with the .gitignore that `.scrapeform/` was added to, when import created local state; with `problem`
   * when it could not be read or written (the import is done all the same).
   */
  onGitignore?: (file: string, problem?: string) => void;
}

/**
 * Writes manifests for live parsers and projects that are neither managed nor declared, and records them in state,
 * under the state lock. Nothing is written when a file would be overwritten or two objects would share an address.
 */
export async function importLive(services: Services, options: ImportOptions): Promise<ImportedObject[]> {
  // Read before the lock and before any call: a folder the environment does not read, or manifests that cannot
  // be read, are refused with nothing listed, written or locked.
  const target = await readImportTarget(options);
  const { out, declared } = target;
  const lock = await services.backend.lock('import');
  return whileHolding(lock, async () => {
    const state = await services.backend.read();
    const managed = managedIds(state);
    const matches = globMatcher(options.filter);
    const [parsers, projects] = await Promise.all([
      options.only !== 'projects' ? services.clients.parsers.list() : Promise.resolve([]),
      options.only !== 'parsers' ? services.clients.projects.list() : Promise.resolve([]),
    ]);
    const planned: ImportedObject[] = [];
    // An address state holds is another object of the same name (a duplicate made by hand, or an adoption's
    // leftover): importing over it would make the managed one unmanaged, and the next plan replace it.
    const heldBy = (address: string, object: string): boolean => {
      const held = state.resources[address];
      if (held === undefined) return false;
      options.onSkip?.(
        `skipped ${object}: state already manages ${address} as ${String(held.id)}, so this one is another of the same name; it is not imported over it (plan --show-unmanaged lists it)`,
      );
      return true;
    };
    for (const summary of parsers) {
      if (managed.parsers.has(summary.id) || !matches(summary.name) || declared.has(`parser.${summary.name}`))
        continue;
      if (heldBy(`parser.${summary.name}`, `parser "${summary.name}" (${summary.id})`)) continue;
      const notFinished = (status: string): boolean => {
        if (status === 'FINISHED') return false;
        options.onSkip?.(`skipped parser "${summary.name}" (${summary.id}): its latest version is ${status}`);
        return true;
      };
      if (notFinished(summary.status)) continue;
      const details = await services.clients.parsers.get(summary.id, undefined, undefined, {
        version: summary.version,
        name: summary.name,
        // Read as it is, then skipped below: one parser listing none must not fail the import of the others.
        fieldless: true,
      });
      // A list lagging behind a PATCH shows the version before it FINISHED while the details read are of the new one,
      // still generating (no fields or example pages yet, or those it was asked for): written and recorded as the
      // parser's finished version, its manifest would declare what the parser may never have.
      if (notFinished(details.status)) continue;
      if (details.fields.length === 0) {
        // A parser with no fields (scrapeform makes one from `fields: {}`) cannot be told from an answer that left
        // them out: imported as declaring none, a later answer listing them would plan removing every one.
        options.onSkip?.(
          `skipped parser "${summary.name}" (${summary.id}): its version ${details.version} is FINISHED with no fields, which cannot be told from an answer that left them out; declare it by hand (fields: {} and adopt: true) if it really has none`,
        );
        continue;
      }
      if (summary.keyRedacted === true || details.keyRedacted === true) {
        options.onSkip?.(keySkipped(`parser "${summary.name}" (${summary.id})`));
        continue;
      }
      const imported = importParser(out, details);
      if (typeof imported === 'string') options.onSkip?.(imported);
      else planned.push(imported);
    }
    for (const listed of projects) {
      const name = listed.name ?? `project-${listed.id}`;
      if (managed.projects.has(listed.id) || !matches(name) || declared.has(`project.${name}`)) continue;
      if (heldBy(`project.${name}`, `project "${name}" (${listed.id})`)) continue;
      // A list may leave fields out (API-NOTES), or say null for what it leaves out (listed-nulls.ts): a project is
      // read by id before a field is taken as not there, or as the service's default.
      const project = sparse(listed) ? await services.clients.projects.get(listed.id) : listed;
      if (project.keyRedacted === true) {
        options.onSkip?.(keySkipped(`project "${name}" (${project.id})`));
        continue;
      }
      const imported = importProject(out, project, name);
      if (typeof imported === 'string') options.onSkip?.(imported);
      else planned.push(imported);
    }
    const names = new Set<string>();
    for (const p of planned) {
      if (names.has(p.address))
        throw new ScrapeformError(
          'import.duplicate-name',
          `two live objects would both become ${p.address}; rename one in the service first, or import with --filter`,
        );
      names.add(p.address);
    }
    giveDistinctFiles(planned, target.files);
    for (const p of planned) {
      if (await exists(p.file))
        throw new ScrapeformError(
          'import.file-exists',
          `refusing to overwrite ${p.file}; nothing was written`,
          {
            hint: 'move it away, or import into another folder with --out',
          },
        );
    }
    for (const p of planned) target.checkRead(p.file, p.address);
    if (planned.length > 0) await mkdir(out, { recursive: true });
    const created = planned.length > 0 && !(await exists(services.backend.location));
    // The environment importing is recorded as an apply records it (state-environment.ts): another environment that
    // reaches this state by a spelling the config check cannot join is refused from its next read.
    await writeImported(services.backend, withEnvironmentRecorded(state, options.environment), planned);
    if (created) {
      const gitignore = await ignoreLocalState(services.backend.location);
      if (gitignore !== undefined) options.onGitignore?.(gitignore.file, gitignore.problem);
    }
    return planned;
  });
}

/** Fields a project's manifest is written from (see importProject). */
const IMPORTED_FIELDS = [
  'projectInput',
  'scrapingInterval',
  'schedulingEnabled',
  'webhookOutput',
  'output_format',
  'notificationConfig',
  'apiParams',
] as const;

/** A listed project that leaves out a field its manifest is written from, or says null for one. */
function sparse(project: LiveProject): boolean {
  if (nullKeys(project).length > 0) return true;
  return IMPORTED_FIELDS.some((key) => PROJECT_FIELDS[key].read(project) === undefined);
}

/** Why an object whose values hold the API key is not imported: a manifest may not hold it, nor may state. */
function keySkipped(object: string): string {
  return `skipped ${object}: a value it holds contains the API key, which scrapeform never writes to manifests or state; take the key out of it in the service, then import again`;
}

/**
 * When import creates a state file in a `.scrapeform` folder, that folder is local (state, lock, workspaces) and
 * must not be committed: `.scrapeform/` is added to the .gitignore beside it, unless a .gitignore between it and
 * the repository root already ignores it. Returns the file, with the problem when it could not be read or written
 * (the import is done and recorded: said, not a failure). A state elsewhere (--state PATH, PostgreSQL) is left alone.
 */
async function ignoreLocalState(stateFile: string): Promise<{ file: string; problem?: string } | undefined> {
  const folder = path.dirname(path.resolve(stateFile));
  if (path.basename(folder) !== '.scrapeform') return undefined;
  const home = path.dirname(folder);
  for (let at = home; ; at = path.dirname(at)) {
    const rules = await readFile(path.join(at, '.gitignore'), 'utf8').catch(() => undefined);
    const relative = path.relative(at, folder).split(path.sep).join('/');
    if (rules !== undefined && ignore().add(rules).ignores(`${relative}/`)) return undefined;
    if ((await exists(path.join(at, '.git'))) || path.dirname(at) === at) break;
  }
  const file = path.join(home, '.gitignore');
  try {
    // Only a missing file is empty: one that cannot be read is never replaced by the lines added alone.
    const before = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) =>
      error.code === 'ENOENT' ? '' : Promise.reject(error),
    );
    const separator = before === '' || before.endsWith('\n') ? '' : '\n';
    // Replaced whole (the old text and the lines added), not appended to: a write cut short keeps the user's rules.
    await replaceFile(
      file,
      `${before}${separator}# scrapeform's local state and lock (scrapeform import)\n.scrapeform/\n`,
    );
    return { file };
  } catch (error) {
    const failure = writeFailureReason(error);
    if (failure === undefined) throw error;
    return { file, problem: `${failure.reason} (${failure.code})` };
  }
}

function globMatcher(glob: string | undefined): (name: string) => boolean {
  if (glob === undefined) return () => true;
  const pattern = new RegExp(
    `^${glob
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );
  return (name) => pattern.test(name);
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

/** Where import writes, what the manifests declare (objects it must not import again), and the check of a file. */
interface ImportTarget {
  out: string;
  /** The addresses the manifests declare: with an environment, every manifest of it; otherwise those under `out`. */
  declared: Set<string>;
  /** The files (by fileKey) that hold those manifests: another object's file, never one import writes to. */
  files: Set<string>;
  /** Throws when the next plan would not read this file (an environment's `exclude`, a `.scrapeformignore`). */
  checkRead(file: string, address: string): void;
}

/**
 * Reads scrapeform.yaml and the manifests as `plan` would read them (the environment, its variables and var
 * files), so that what they declare is known. Any problem is an error: read as "nothing declared", each
 * declared object would be imported again under a second manifest of the same name.
 */
async function readImportTarget(options: ImportOptions): Promise<ImportTarget> {
  const selected = chosenEnvironment(
    {
      env: options.env,
      environment: options.environment,
      varFiles: options.varFiles,
      projectFile: options.projectFile,
    },
    'nothing was imported',
  );
  const name = selected.settings?.name;
  const reads =
    name !== undefined
      ? environmentReads(selected, name, options.out, options.allowSharedOut === true)
      : undefined;
  const out = reads?.out ?? options.out ?? '.';
  const reading = name !== undefined || (await exists(out));
  const manifests = reading
    ? await loadManifests({
        paths: name !== undefined ? [] : [out],
        env: options.env,
        environment: options.environment,
        varFiles: options.varFiles,
        projectFile: options.projectFile,
      })
    : undefined;
  if (manifests !== undefined && !manifests.valid) {
    const which = name !== undefined ? `of environment "${name}"` : `under ${out}`;
    throw new ScrapeformError(
      'manifest.invalid',
      `the manifests ${which} have errors, so import cannot tell what they declare; nothing was imported`,
      {
        details: { diagnostics: manifests.diagnostics },
        hint: `fix the problems above (scrapeform validate${name !== undefined ? ` --env ${name}` : ` ${out}`} checks offline)`,
      },
    );
  }
  const objects = [...(manifests?.parsers ?? []), ...(manifests?.projects ?? [])];
  return {
    out,
    declared: new Set(objects.map((o) => o.address)),
    files: new Set(objects.map((o) => fileKey(o.source.file))),
    checkRead: reads?.checkRead ?? (() => undefined),
  };
}

/**
 * With an environment, import writes only where `plan --env NAME` reads: a manifest written elsewhere is not read
 * by the next plan, which then plans deleting the object import just recorded in state. `--out` must lie under
 * one of the environment's paths (the rule behind `environment.path-outside`) and be a folder its walk enters, and
 * each file written one the walk reads (`environment.path-excluded`); without `--out`, the first of its paths.
 */
function environmentReads(
  selected: SelectedEnvironment,
  name: string,
  given: string | undefined,
  allowShared: boolean,
): Pick<ImportTarget, 'out' | 'checkRead'> {
  const written = selected.project?.config?.environments?.[name]?.paths ?? ['.'];
  // A path of the environment may be a file: the folder written into is the first path that is a folder (or is
  // not there yet, and will be made), and an --out that is a file is refused below.
  const folder = selected.paths.find(isFolderOrMissing);
  const out = given ?? folder ?? '.';
  const walk = { exclude: selected.exclude, projectFile: selected.project?.file };
  const lost = `the next plan --env ${name} would not see the manifests imported there and would plan deleting their objects; nothing was imported`;
  const hint =
    folder !== undefined
      ? `import into one of its paths, or leave --out out to write into the first folder (${folder})`
      : `give the environment a folder among its paths to import into (its paths are files: ${written.join(', ')})`;
  const excluded = `environment "${name}" excludes it (exclude: ${selected.exclude?.patterns.join(', ') ?? ''})`;
  const ignored = `environment "${name}" does not read it (a .scrapeformignore, a hidden folder, node_modules or another project's folder)`;
  const refuse = (why: string): ScrapeformError =>
    new ScrapeformError('import.out-not-read', `--out ${out}: ${why}; ${lost}`, { hint });
  if (!isFolderOrMissing(out)) throw refuse('a file, not a folder to write manifests into');
  const root = selected.paths.find((p) => isWithin(out, p));
  if (root === undefined)
    throw refuse(`environment "${name}" does not read it (its paths: ${written.join(', ')})`);
  const skipped = walkSkips(out, root, { ...walk, isDirectory: true });
  if (skipped !== undefined) throw refuse(skipped === 'excluded' ? excluded : ignored);
  if (!allowShared) refuseShared(selected, name, out);
  return {
    out,
    checkRead: (file, address) => {
      const skip = walkSkips(file, root, walk);
      if (skip === undefined) return;
      throw new ScrapeformError(
        'import.out-not-read',
        `${file}: ${skip === 'excluded' ? excluded : ignored}; the next plan --env ${name} would not read it and would plan deleting ${address}; nothing was imported`,
        { hint: `import into another of its folders with --out, or change what the environment reads` },
      );
    },
  };
}

/**
 * A folder another environment of scrapeform.yaml reads too: what import writes there for one environment (from
 * its account) the others' next plans read as theirs, and plan creating, each in its own account (a parser at
 * 30,000 credits, with placeholder descriptions). Refused unless `--allow-shared-out` says that is meant.
 */
function refuseShared(selected: SelectedEnvironment, name: string, out: string): void {
  const project = selected.project;
  if (project === undefined) return;
  const readers = environmentsReading(out, otherEnvironments(project.config, project.folder, name), {
    projectFile: project.file,
    isDirectory: true,
  });
  if (readers.length === 0) return;
  const named = `${readers.length === 1 ? 'environment' : 'environments'} ${readers.map((r) => `"${r}"`).join(', ')}`;
  throw new ScrapeformError(
    'import.out-shared',
    `--out ${out}: ${named} ${readers.length === 1 ? 'reads' : 'read'} it too, whose next plan would create what is imported there for "${name}"; nothing was imported`,
    {
      hint: `import into a folder only "${name}" reads (--out, or a path of its own in scrapeform.yaml), or pass --allow-shared-out if the other environments should declare these objects too`,
      details: { environments: readers },
    },
  );
}

/** Whether a path is a folder, or is not there yet and import can make it (nothing above it is a file). */
function isFolderOrMissing(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch (error) {
    // ENOTDIR: a file stands where a folder above it would be.
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}
