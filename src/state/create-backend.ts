import { ScrapeformError } from '../errors.js';
import { readStateLocation } from '../model/state-url.js';
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
    case 'other-url':
      throw new ScrapeformError(
        'cli.usage',
        `the state location ${where.shown} is a URL no state backend reads: state is kept in a file or in PostgreSQL (postgres:// or postgresql://)`,
        { hint: 'give a postgres:// URL, or the path of a state file' },
      );
    case 'postgres-not-url':
      throw new ScrapeformError(
        'cli.usage',
        'the state location starts with postgres: but is not a URL (not shown: it may hold a password): a PostgreSQL state is postgres://USER:PASSWORD@HOST:PORT/DATABASE',
        {
          hint: 'write // after postgres: (percent-encode a /, # or @ in the password), or ./ before the path of a state file of that name',
        },
      );
    case 'postgres-no-colon':
      throw new ScrapeformError(
        'cli.usage',
        `the state location ${where.shown} is not a URL: the : after ${where.scheme} is missing (a PostgreSQL state is postgres://USER:PASSWORD@HOST:PORT/DATABASE)`,
        {
          hint: `write ${where.scheme}:// (percent-encode a /, # or @ in the password), or ./ before the path of a state file in a folder named ${where.scheme}`,
        },
      );
    case 'password-in-path':
      throw new ScrapeformError(
        'cli.usage',
        `the state location ${where.shown} is a file path holding a user name and password (USER:PASSWORD@): a mistyped URL, whose password would become folder names`,
        {
          hint: 'a PostgreSQL state is postgres://USER:PASSWORD@HOST:PORT/DATABASE; a state file needs a path with no :…@ in it',
        },
      );
  }
}
