/** What replaces a secret wherever it would be shown. */
export const REDACTED = '***';

/**
 * Removes secrets from text: every occurrence of each secret itself (also URL-encoded), and the value of any
 * `api_key` parameter in a URL, query string or JSON body, even one we were not told about.
 */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length === 0) continue;
    for (const form of new Set([secret, encodeURIComponent(secret)])) out = out.split(form).join(REDACTED);
  }
  return (
    out
      // A URL quoted inside a message ends at these too, so the redaction does not swallow the text after it.
      .replace(/([?&]api_key=)[^&#\s"'()<>[\],;]*/g, `$1${REDACTED}`)
      .replace(/("api_key"\s*:\s*")[^"]*(")/g, `$1${REDACTED}$2`)
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
