import { ScrapeformError } from '../errors.js';
import { redactUrl } from '../model/state-url.js';
import { redactText } from './database-url.js';
import { INSUFFICIENT_PRIVILEGE, isConnectionError, isTimeout } from './postgres-session.js';

/**
 * What a failed query of the state database `url` means to the user, as `state.unreachable` naming the database
 * (without its password): a query that got no answer within `timeoutMs` or a connection that broke says so; an
 * answer that is an error says what PostgreSQL said, and what the role may lack.
 */
export function stateQueryError(url: string, timeoutMs: number, error: unknown): ScrapeformError {
  if (isConnectionError(error) || isTimeout(error))
    return new ScrapeformError(
      'state.unreachable',
      `the state database ${redactUrl(url)} did not answer: ${redactText((error as Error).message)}`,
      {
        hint: `check that it runs and accepts queries; each query may take ${Math.round(timeoutMs / 1000)} s (SCRAPEFORM_STATE_TIMEOUT)`,
        cause: error,
      },
    );
  // It answered, with an error: what it said is what to act on (a missing privilege above all).
  const sqlstate = (error as { code: string }).code;
  return new ScrapeformError(
    'state.unreachable',
    `the state database ${redactUrl(url)} refused a query: ${redactText((error as Error).message)} (SQLSTATE ${sqlstate})`,
    {
      hint:
        sqlstate === INSUFFICIENT_PRIVILEGE
          ? 'grant the role in the URL what docs/ci.md lists under "Privileges"'
          : 'PostgreSQL says what failed; docs/ci.md lists what the role in the URL needs under "Privileges"',
      details: { sqlstate },
      cause: error,
    },
  );
}
