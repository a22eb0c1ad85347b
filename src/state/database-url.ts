import { ScrapeformError } from '../errors.js';

/*
 * A PostgreSQL state's connection URL: read as the driver reads it (or refused when it cannot be read as meant),
 * and shown everywhere without its password.
 */

/** Query parameters of a connection URL that carry a secret (libpq's password and sslpassword, and the like). */
const SECRET_PARAMETER = /pass|secret|token|key/i;

/**
 * Hides the password of a connection URL wherever it is shown: the one after the user name, and any query
 * parameter such as `?password=`. A URL that cannot be parsed (a `/` or `@` in the password not percent-encoded)
 * keeps only its scheme, user name and what follows the last `@`.
 */
export function redactUrl(url: string): string {
  const parsed = readableUrl(url);
  if (parsed === undefined) return redactUnparsed(url);
  if (parsed.password !== '') parsed.password = '***';
  for (const name of [...parsed.searchParams.keys()]) {
    if (SECRET_PARAMETER.test(name)) parsed.searchParams.set(name, '***');
  }
  return parsed.toString();
}

/**
 * The URL as the driver reads it, or undefined when it cannot be read as meant. A password holding an unencoded
 * `#`, `/` or `?` after digits still parses, wrongly: `postgres://sf:2024#Secret@host/db` is user-less host `sf`,
 * port 2024 and a fragment holding the rest. An `@` past the authority with no user name found is that case.
 */
function readableUrl(url: string): URL | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.hostname === '') return undefined;
  if (parsed.username === '' && `${parsed.pathname}${parsed.search}${parsed.hash}`.includes('@'))
    return undefined;
  return parsed;
}

function redactUnparsed(url: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0] ?? '';
  const rest = url.slice(scheme.length);
  const at = rest.lastIndexOf('@');
  const afterAt = at >= 0 ? rest.slice(at + 1) : rest;
  const userinfo = at >= 0 ? rest.slice(0, at) : '';
  const colon = userinfo.indexOf(':');
  const user = colon >= 0 ? `${userinfo.slice(0, colon)}:***@` : userinfo !== '' ? `${userinfo}@` : '';
  const hostAndPath = afterAt.replace(
    /([?&][^=&#]*(?:pass|secret|token|key)[^=&#]*=)[^&#]*/gi,
    (_match, name: string) => `${name}***`,
  );
  return `${scheme}${user}${hostAndPath}`;
}

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
