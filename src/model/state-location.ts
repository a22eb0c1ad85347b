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
