/** What replaces a secret wherever it would be shown. */
export const REDACTED = '***';

/**
 * A key shorter than this (an emulator's or a test's) is not looked for inside data the services answer or the
 * manifests declare: it would be found in ordinary words and numbers (a key `1` in every id). Real keys have 32.
 */
export const MIN_KEY_LENGTH_IN_DATA = 12;

/**
 * Removes secrets from text: every occurrence of each secret itself (also URL-encoded), and the value of any
 * `api_key` parameter in a URL, query string or JSON body, even one we were not told about.
 */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length === 0) continue;
    for (const form of formsOf(secret)) out = out.split(form).join(REDACTED);
  }
  return (
    out
      // A URL quoted inside a message ends at these too, so the redaction does not swallow the text after it; a
      // backslash ends it as well, or the \" of a URL inside a JSON string would go with it and break that JSON.
      .replace(/([?&]api_key=)[^&#\s"'()<>[\],;\\]*/g, `$1${REDACTED}`)
      .replace(/("api_key"\s*:\s*")(?:[^"\\]|\\.)*(")/g, `$1${REDACTED}$2`)
  );
}

/** A copy of an error with its message, stack and cause chain redacted; the original may hold a keyed URL. */
export function redactError(error: unknown, secrets: readonly string[], depth = 0): unknown {
  if (!(error instanceof Error)) return typeof error === 'string' ? redact(error, secrets) : error;
  const copy = new Error(redact(error.message, secrets));
  copy.name = error.name;
  copy.stack = error.stack !== undefined ? redact(error.stack, secrets) : undefined;
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined) (copy as NodeJS.ErrnoException).code = code;
  if (error.cause !== undefined && depth < 5) copy.cause = redactError(error.cause, secrets, depth + 1);
  return copy;
}

/**
 * Every way the key may be written where text quotes it: as it is, URL-encoded as a query value or by a URL
 * parser (which leaves `/`, `+` and `=` alone), form-encoded, and escaped inside a JSON string.
 */
function formsOf(secret: string): Set<string> {
  return new Set([
    secret,
    encodeURIComponent(secret),
    encodeURI(secret),
    new URLSearchParams({ k: secret }).toString().slice(2),
    JSON.stringify(secret).slice(1, -1),
  ]);
}

/**
 * For the values the services answer (a project, a parser): a copy of one with every form of the secrets in its
 * strings and object keys replaced by REDACTED, and `held` true when there was one; the value itself, uncopied,
 * when there was none. Unlike `redact`, an `api_key` parameter that is not one of the secrets stays: it may be a
 * value a manifest declares (a webhook's own key), compared as it is, or every plan would see it changed. The
 * forms are worked out once (a client checks every answer, thousands in a large apply or plan).
 */
export function secretsRemover(secrets: readonly string[]): <T>(value: T) => { value: T; held: boolean } {
  const forms = [...new Set(secrets.filter((s) => s.length > 0).flatMap((s) => [...formsOf(s)]))];
  const remove = (text: string): string => forms.reduce((out, form) => out.split(form).join(REDACTED), text);
  return (value) => {
    if (forms.length === 0 || !holds(value, forms)) return { value, held: false };
    return { value: mapStrings(value, remove, true), held: true };
  };
}

function holds(value: unknown, forms: readonly string[]): boolean {
  if (typeof value === 'string') {
    for (const form of forms) if (value.includes(form)) return true;
    return false;
  }
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    for (const item of value) if (holds(item, forms)) return true;
    return false;
  }
  for (const key in value) {
    if (holds(key, forms) || holds((value as Record<string, unknown>)[key], forms)) return true;
  }
  return false;
}

/** A value the service answered with every string in it redacted; numbers, names of keys and shape untouched. */
export function redactValue<T>(value: T, secrets: readonly string[]): T {
  return mapStrings(value, (text) => redact(text, secrets), false);
}

/** A copy of a JSON-like value with `map` applied to every string in it, and to the keys of objects with `keys`. */
function mapStrings<T>(value: T, map: (text: string) => string, keys: boolean): T {
  if (typeof value === 'string') return map(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => mapStrings(item, map, keys)) as T;
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [keys ? map(k) : k, mapStrings(v, map, keys)]),
    ) as T;
  return value;
}
