import type { StateBackend } from './backend.js';
import { DEFAULT_STATE_PATH, FileStateBackend } from './file-backend.js';
import { PostgresStateBackend } from './postgres-backend.js';

/**
 * The backend a `--state` value names: a `postgres://` (or `postgresql://`) URL is a shared database, anything
 * else a file path. `SCRAPEFORM_STATE` gives the default.
 */
export function createStateBackend(location: string | undefined, workspace = 'default'): StateBackend {
  const where = location ?? DEFAULT_STATE_PATH;
  if (/^postgres(ql)?:\/\//.test(where)) return new PostgresStateBackend(where, workspace);
  return new FileStateBackend(where);
}
