import { ScrapeformError } from '../errors.js';
import { mistypedStateLocation, readStateLocation } from '../model/state-url.js';
import type { StateBackend } from './backend.js';
import { DEFAULT_STATE_PATH, workspaceStatePath } from '../model/state-location.js';
import { FileStateBackend } from './file-backend.js';
import { PostgresStateBackend } from './postgres-backend.js';
import { DEFAULT_WORKSPACE, checkWorkspaceName } from './workspace-name.js';

/**
 * The backend a `--state` value names: a `postgres://` (or `postgresql://`) URL is a shared database, anything
 * else a file path (model/state-url.ts), save a URL mistyped (refused before anything is made, its password
 * hidden). `SCRAPEFORM_STATE` gives the default.
 */
export function createStateBackend(
  location: string | undefined,
  workspace = DEFAULT_WORKSPACE,
  options: { databaseTimeoutMs?: number } = {},
): StateBackend {
  checkWorkspaceName(workspace);
  const where = readStateLocation(location ?? DEFAULT_STATE_PATH);
  switch (where.kind) {
    case 'postgres':
      return new PostgresStateBackend(where.url, workspace, options.databaseTimeoutMs);
    case 'file':
      return new FileStateBackend(workspaceStatePath(where.path, workspace), workspace);
    default: {
      const { message, hint } = mistypedStateLocation(where);
      throw new ScrapeformError('cli.usage', message, { hint });
    }
  }
}
