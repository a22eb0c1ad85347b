import path from 'node:path';

/*
 * Where state lives, as the state backends find it and as scrapeform.yaml's environments are checked against one
 * another (no two may share one): one reading for both.
 */

/** The state file when nothing names one (`--state`, SCRAPEFORM_STATE, an environment's `state:`). */
export const DEFAULT_STATE_PATH = path.join('.scrapeform', 'state.json');

/** The workspace that keeps today's locations: `.scrapeform/state.json`, table `scrapeform_state_default`. */
export const DEFAULT_WORKSPACE = 'default';

/**
 * The state file of a workspace: the path itself for `default` (where state always was), else a folder named
 * after the workspace beside it, as Terraform keeps terraform.tfstate.d/NAME: `.scrapeform/state.json` becomes
 * `.scrapeform/NAME/state.json`. The name is checked by the caller that opens it (state/workspace-name.ts).
 */
export function workspaceStatePath(file: string, workspace: string): string {
  if (workspace === DEFAULT_WORKSPACE) return file;
  return path.join(path.dirname(file), workspace, path.basename(file));
}

/**
 * Whether two state locations (StateIdentity) are one state: a file's relative path (as plan records it) is read
 * against the working directory, so `.scrapeform/state.json` and its absolute path are the same file; a database
 * (`postgres://HOST:PORT/DATABASE`) is compared as it is.
 */
export function sameStateLocation(a: string, b: string): boolean {
  const resolved = (location: string): string =>
    /^[a-z][a-z0-9+.-]*:\/\//i.test(location) ? location : path.resolve(location);
  return resolved(a) === resolved(b);
}
