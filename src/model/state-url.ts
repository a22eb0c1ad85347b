/*
 * A state location as written (`--state`, SCRAPEFORM_STATE, an environment's `state:`): a PostgreSQL URL or a file
 * path, read one way by the state backends and by the check that no two environments share a state; and a
 * connection URL shown everywhere without its password.
 */

/** What a state location names. */
export type StateLocationKind =
  | { kind: 'postgres'; url: string }
  | { kind: 'file'; path: string }
  /** A URL of another scheme: no backend keeps state there, and it must not become a file named after it. */
  | { kind: 'other-url'; shown: string }
  /**
   * `postgres:` or `postgresql:` without `//` (`postgres:sf:pw@host/db`): a URL mistyped, never shown (its password
   * cannot be told apart) nor made a file named after it.
   */
  | { kind: 'postgres-not-url' }
  /**
   * `postgres//` or `postgresql//` (the colon left out): a URL mistyped, which as a path would make folders named
   * after its password; shown with the password hidden.
   */
  | { kind: 'postgres-no-colon'; scheme: string; shown: string }
  /** A path holding `USER:PASSWORD@` (a URL mistyped some other way): refused for the same reason, shown hidden. */
  | { kind: 'password-in-path'; shown: string };

/** A state location no backend opens: a URL of another scheme, or a PostgreSQL URL mistyped. */
export type MistypedStateLocation = Exclude<StateLocationKind, { kind: 'postgres' } | { kind: 'file' }>;

/**
 * Why such a location is refused, and how to write it: one text for the commands that open state (a usage error,
 * state/create-backend.ts) and for validate (a diagnostic at the location as written). A password is never in it.
 */
export function mistypedStateLocation(where: MistypedStateLocation): { message: string; hint: string } {
  switch (where.kind) {
    case 'other-url':
      return {
        message: `the state location ${where.shown} is a URL no state backend reads: state is kept in a file or in PostgreSQL (postgres:// or postgresql://)`,
        hint: 'give a postgres:// URL, or the path of a state file',
      };
    case 'postgres-not-url':
      return {
        message:
          'the state location starts with postgres: but is not a URL (not shown: it may hold a password): a PostgreSQL state is postgres://USER:PASSWORD@HOST:PORT/DATABASE',
        hint: 'write // after postgres: (percent-encode a /, # or @ in the password), or ./ before the path of a state file of that name',
      };
    case 'postgres-no-colon':
      return {
        message: `the state location ${where.shown} is not a URL: the : after ${where.scheme} is missing (a PostgreSQL state is postgres://USER:PASSWORD@HOST:PORT/DATABASE)`,
        hint: `write ${where.scheme}:// (percent-encode a /, # or @ in the password), or ./ before the path of a state file in a folder named ${where.scheme}`,
      };
    case 'password-in-path':
      return {
        message: `the state location ${where.shown} is a file path holding a user name and password (USER:PASSWORD@): a mistyped URL, whose password would become folder names`,
        hint: 'a PostgreSQL state is postgres://USER:PASSWORD@HOST:PORT/DATABASE; a state file needs a path with no :…@ in it',
      };
  }
}

/**
 * `USER:PASSWORD@` in a path: a part (from the start or a `/` or `\`) with a `:` and, later, an `@`. The password
 * runs to the last `@` (one may hold an `@` not percent-encoded, or a `/`); it cannot start with `/` or `\`, so a
 * Windows drive (`C:\Users\me@corp\state.json`) stays a path.
 */
const PASSWORD_IN_PATH = /((?:^|[/\\])[^/\\:@\s]*:)[^/\\@].*@/s;

/**
 * A `postgres://` or `postgresql://` URL (the scheme in any case, around it spaces a pasted secret brings) is a
 * database; any other `scheme://` is a URL no backend keeps state in (refused, rather than written to a file whose
 * name holds the password), and so are `postgres:` without `//`, `postgres//` without `:` and a path holding
 * `USER:PASSWORD@`; anything else is a file path, as written (`./` before a file whose name starts with
 * `postgres:`).
 */
export function readStateLocation(location: string): StateLocationKind {
  const trimmed = location.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(trimmed);
  if (scheme === null) return notUrl(location, trimmed);
  const name = (scheme[1] ?? '').toLowerCase();
  if (name === 'postgres' || name === 'postgresql')
    return { kind: 'postgres', url: `${name}${trimmed.slice(name.length)}` };
  return { kind: 'other-url', shown: redactUrl(trimmed) };
}

/** A location with no `scheme://`: a file path, unless it is a URL mistyped that would put its password on disk. */
function notUrl(location: string, trimmed: string): StateLocationKind {
  if (/^postgres(ql)?:/i.test(trimmed)) return { kind: 'postgres-not-url' };
  const noColon = /^(postgres(?:ql)?)\/\//i.exec(trimmed);
  if (noColon !== null)
    return { kind: 'postgres-no-colon', scheme: noColon[1] ?? '', shown: passwordInPathHidden(trimmed) };
  if (PASSWORD_IN_PATH.test(trimmed))
    return { kind: 'password-in-path', shown: passwordInPathHidden(trimmed) };
  return { kind: 'file', path: location };
}

/** A path as shown: the password of a `USER:PASSWORD@` in it, and query parameters named like a secret, as ***. */
function passwordInPathHidden(text: string): string {
  return secretParametersHidden(text.replace(PASSWORD_IN_PATH, '$1***@'));
}

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
  hideSecretParameters(parsed);
  return parsed.toString();
}

/** Query parameters named like a secret (`?password=`, `?token=`, `?api_key=`) set to ***; whether any was. */
function hideSecretParameters(url: URL): boolean {
  let hidden = false;
  for (const name of [...url.searchParams.keys()]) {
    if (!SECRET_PARAMETER.test(name)) continue;
    url.searchParams.set(name, '***');
    hidden = true;
  }
  return hidden;
}

/**
 * The URL as the driver reads it, or undefined when it cannot be read as meant. A password holding an unencoded
 * `#`, `/` or `?` after digits still parses, wrongly: `postgres://sf:2024#Secret@host/db` is user-less host `sf`,
 * port 2024 and a fragment holding the rest. An `@` past the authority with no user name found is that case.
 */
export function readableUrl(url: string): URL | undefined {
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
  return `${scheme}${user}${secretParametersHidden(afterAt)}`;
}

/** In text that could not be read as a URL: the values of query parameters named like a secret, as ***. */
function secretParametersHidden(text: string): string {
  return text.replace(
    /([?&][^=&#]*(?:pass|secret|token|key)[^=&#]*=)[^&#]*/gi,
    (_match, name: string) => `${name}***`,
  );
}

/**
 * A URL given for a proxy or a service endpoint as scrapeform shows it (doctor, errors): its user name and password
 * replaced by *** (a proxy's user name may be a key), and query parameters named like a secret, as redactUrl hides
 * them; one that cannot be read (a `/` or a space in a password not percent-encoded) keeps only what follows its
 * last `@` (and its scheme, when it has one).
 */
export function credentialsHidden(written: string): string {
  const url = readableUrl(written);
  if (url !== undefined) {
    const signedIn = url.username !== '' || url.password !== '';
    if (signedIn) {
      url.username = '***';
      url.password = '';
    }
    // As written when there is nothing to hide: the reader finds the text they gave.
    return hideSecretParameters(url) || signedIn ? url.toString() : written;
  }
  const at = written.lastIndexOf('@');
  if (at < 0) return secretParametersHidden(written);
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(written)?.[0] ?? '';
  return `${scheme}***@${secretParametersHidden(written.slice(at + 1))}`;
}
