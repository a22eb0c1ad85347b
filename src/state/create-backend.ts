import path from 'node:path';
import type { StateBackend } from './backend.js';
import { DEFAULT_STATE_PATH, FileStateBackend } from './file-backend.js';
import { PostgresStateBackend } from './postgres-backend.js';
import { DEFAULT_WORKSPACE, checkWorkspaceName } from './workspace-name.js';

/**
 * The backend a `--state` value names: a `postgres://` (or `postgresql://`) URL is a shared database, anything
 * else a file path. `SCRAPEFORM_STATE` gives the default.
 */
export function createStateBackend(
  location: string | undefined,
  workspace = DEFAULT_WORKSPACE,
  options: { databaseTimeoutMs?: number } = {},
): StateBackend {
  const where = location ?? DEFAULT_STATE_PATH;
  checkWorkspaceName(workspace);
  if (/^postgres(ql)?:\/\//.test(where))
    return new PostgresStateBackend(where, workspace, options.databaseTimeoutMs);
  return new FileStateBackend(workspaceStatePath(where, workspace), workspace);
}

/**
 * The state file of a workspace: the path itself for `default` (where state always was), else a folder named
 * after the workspace beside it, as Terraform keeps terraform.tfstate.d/NAME: `.scrapeform/state.json` becomes
 * `.scrapeform/NAME/state.json`.
 */
export function workspaceStatePath(file: string, workspace: string): string {
  if (workspace === DEFAULT_WORKSPACE) return file;
  return path.join(path.dirname(file), checkWorkspaceName(workspace), path.basename(file));
}
