import { mapStrings, REDACTED, withoutSecrets } from '../secret-forms.js';

export { MIN_KEY_LENGTH_IN_DATA, REDACTED, secretsRemover } from '../secret-forms.js';

/**
 * Removes secrets from text: every occurrence of each secret in each form secretForms lists (a long one in any
 * case, and base64-encoded), and the value of any `api_key` parameter in a URL, query string or JSON body, even one
 * we were not told about.
 */
export function redact(text: string, secrets: readonly string[]): string {
  // The parameters first: a secret short enough to occur in the word `api_key` (a one-letter key on an emulator)
  // would otherwise be cut out of it, and the parameter's value, another key perhaps, then shown whole.
  return withoutSecrets(
    text
      // A URL quoted inside a message ends at these too, so the redaction does not swallow the text after it; a
      // backslash ends it as well, or the \" of a URL inside a JSON string would go with it and break that JSON.
      .replace(/([?&]api_key=)[^&#\s"'()<>[\],;\\]*/g, `$1${REDACTED}`)
      .replace(/("api_key"\s*:\s*")(?:[^"\\]|\\.)*(")/g, `$1${REDACTED}$2`),
    secrets,
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
 * A value the service answered with every string in it redacted, and the names of its keys too with `keys`; numbers
 * and shape untouched. Without `keys` for a value still to be read by name (a schema check): a name redacted would
 * read as a field missing. With it for a value shown or passed on as it came, where a name is quoted like any text.
 */
export function redactValue<T>(value: T, secrets: readonly string[], keys = false): T {
  return mapStrings(value, (text) => redact(text, secrets), keys);
}

/**
 * The keys this process has read (resolveApiKey), for what is printed away from the code that holds them: an
 * internal error's stack (cli/main.ts) is a bug's own text, and may quote a keyed URL or a value that held the key.
 */
const keysRead = new Set<string>();

export function rememberKey(key: string): void {
  if (key !== '') keysRead.add(key);
}

export function keysRemembered(): string[] {
  return [...keysRead];
}
