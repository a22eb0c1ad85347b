/** What replaces a secret wherever it would be shown. */
export const REDACTED = '***';

/**
 * Every way a secret may be written where text quotes it: as it is, URL-encoded as a query value or by a URL
 * parser (which leaves `/`, `+` and `=` alone), form-encoded, and escaped inside a JSON string.
 */
export function secretForms(secret: string): Set<string> {
  return new Set([
    secret,
    encodeURIComponent(secret),
    encodeURI(secret),
    new URLSearchParams({ k: secret }).toString().slice(2),
    JSON.stringify(secret).slice(1, -1),
  ]);
}

/** Text with every form of each secret replaced by REDACTED (api/redact.ts also takes out `api_key` values). */
export function withoutSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length === 0) continue;
    for (const form of secretForms(secret)) out = out.split(form).join(REDACTED);
  }
  return out;
}

/**
 * For values read from elsewhere (what the services answer, what the manifests declare): a copy of one with every
 * form of the secrets in its strings and object keys replaced by REDACTED, and `held` true when there was one;
 * the value itself, uncopied, when there was none. Unlike api/redact.ts's `redact`, an `api_key` parameter that is
 * not one of the secrets stays: it may be a value a manifest declares (a webhook's own key), compared as it is, or
 * every plan would see it changed. The forms are worked out once (a client checks every answer, thousands in a
 * large apply or plan).
 */
export function secretsRemover(secrets: readonly string[]): <T>(value: T) => { value: T; held: boolean } {
  const forms = [...new Set(secrets.filter((s) => s.length > 0).flatMap((s) => [...secretForms(s)]))];
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

/** A copy of a JSON-like value with `map` applied to every string in it, and to the keys of objects with `keys`. */
export function mapStrings<T>(value: T, map: (text: string) => string, keys: boolean): T {
  if (typeof value === 'string') return map(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => mapStrings(item, map, keys)) as T;
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [keys ? map(k) : k, mapStrings(v, map, keys)]),
    ) as T;
  return value;
}
