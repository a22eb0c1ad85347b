import type { StateBackend } from './backend.js';
import { DEFAULT_STATE_PATH, workspaceStatePath } from '../model/state-location.js';
import { FileStateBackend } from './file-backend.js';
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
