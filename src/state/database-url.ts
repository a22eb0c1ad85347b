import { ScrapeformError } from '../errors.js';
import { readableUrl, redactUrl } from '../model/state-url.js';

/*
 * A PostgreSQL state's connection URL: read as the driver reads it (or refused when it cannot be read as meant),
 * and shown everywhere without its password (model/state-url.ts).
 */

/**
 * The database a URL names, as a saved plan records it: `postgres://HOST:PORT/DATABASE`, with no user name,
 * password or parameter (which may hold a password), so nothing secret is ever written, and a password rotated or
 * given in PGPASSWORD instead names the same state. The workspace, recorded beside it, names the table. For a URL
 * checkDatabaseUrl accepted.
 */
export function databaseIdentity(url: string): string {
  const parsed = readableUrl(url);
  if (parsed === undefined) throw new Error(`databaseIdentity: ${redactUrl(url)} is not a readable URL`);
  const port = parsed.port === '' ? '5432' : parsed.port;
  return `postgres://${parsed.hostname.toLowerCase()}:${port}${parsed.pathname === '' ? '/' : parsed.pathname}`;
}

/** A driver's message with every URL in it redacted (the driver may quote the connection string). */
export function redactText(text: string): string {
  return text.replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, (url) => redactUrl(url));
}

/**
 * A `postgres://` URL the driver cannot read is a mistake in --state, said as such before any connection, not as
 * a database that "did not answer". The usual cause is a password with `/`, `@`, `#` or `?` not percent-encoded.
 */
export function checkDatabaseUrl(url: string): void {
  if (readableUrl(url) !== undefined) return;
  throw new ScrapeformError('cli.usage', `the state URL ${redactUrl(url)} cannot be read as a URL`, {
    hint: 'percent-encode special characters of the user name and password (/ as %2F, @ as %40, # as %23, ? as %3F), or give the password in PGPASSWORD or ~/.pgpass',
  });
}
