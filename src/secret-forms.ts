/** What replaces a secret wherever it would be shown. */
export const REDACTED = '***';

/**
 * A key shorter than this (an emulator's or a test's) is not looked for inside data the services answer or the
 * manifests declare, and is looked for in text only as written: in another case, or base64-encoded, it would be
 * found in ordinary words and numbers (a key `1` in every id, `k` in every `K`, base64 `aw` of `k` in `away`).
 * Real keys have 32.
 */
export const MIN_KEY_LENGTH_IN_DATA = 12;

/**
 * Every way a secret may be written where text quotes it: as it is, URL-encoded as a query value or by a URL
 * parser (which leaves `/`, `+` and `=` alone), form-encoded, and escaped inside a JSON string (jsonForms); for a
 * secret long enough, also base64-encoded (standard and URL-safe alphabets, with and without padding, alone or
 * anywhere in a longer encoded text: an error may quote it as a token or a Basic credential `user:KEY`), each of
 * those encoded the same ways. Matching ignores case for such a secret (see secretMatcher), so its upper- and
 * lower-cased forms are not listed.
 */
export function secretForms(secret: string): Set<string> {
  const written = secret.length >= MIN_KEY_LENGTH_IN_DATA ? [secret, ...base64Forms(secret)] : [secret];
  return new Set(written.flatMap(encodedForms));
}

function encodedForms(text: string): string[] {
  return [
    text,
    encodeURIComponent(text),
    encodeURI(text),
    new URLSearchParams({ k: text }).toString().slice(2),
    ...jsonForms(text),
  ];
}

/**
 * A text inside a JSON string as the services' languages may write it: as JSON.stringify does; with `/` as `\/`
 * (PHP); with every character outside printable ASCII, and `<`, `>`, `&`, `'`, as `\u` escapes (Python, PHP, Go);
 * and escaped twice, in JSON that is itself a string of the answer (an error that quotes another service's body).
 * An answer that parses is read back to its characters first, but one cut short or not JSON is quoted as it came.
 */
function jsonForms(text: string): string[] {
  const quoted = JSON.stringify(text).slice(1, -1);
  const slashes = quoted.replace(/\//g, '\\/');
  const ascii = (json: string): string =>
    json.replace(/[^\x20-\x7e]|[<>&']/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return [quoted, slashes, ascii(quoted), ascii(slashes), JSON.stringify(quoted).slice(1, -1)];
}

function base64Forms(secret: string): string[] {
  const standard = Buffer.from(secret, 'utf8').toString('base64');
  const bare = standard.replace(/=+$/, '');
  const urlSafe = (text: string): string => text.replace(/\+/g, '-').replace(/\//g, '_');
  const cores = [0, 1, 2].map((offset) => base64Core(secret, offset));
  return [
    standard,
    bare,
    urlSafe(bare) + standard.slice(bare.length),
    urlSafe(bare),
    ...cores,
    ...cores.map(urlSafe),
  ];
}

/**
 * The base64 characters that hold only the secret's bits when it is encoded `offset` bytes into a longer text: a
 * Basic credential `user:KEY` or `KEY:`, a token of several parts. Base64 encodes three bytes at a time, so the
 * secret's own base64 is found there only when what comes before it is a multiple of three bytes long; at the
 * other two offsets its characters are others, and the ones at either end also hold bits of its neighbours.
 */
function base64Core(secret: string, offset: number): string {
  const bytes = Buffer.from(secret, 'utf8');
  const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
  const first = Math.ceil((8 * offset) / 6);
  const end = Math.floor((8 * (offset + bytes.length)) / 6);
  return encoded.slice(first, end);
}

/** Finds and replaces every form of some secrets, worked out once. */
interface SecretMatcher {
  found(text: string): boolean;
  remove(text: string): string;
}

/**
 * One regular expression per kind of secret: the forms of long ones case-insensitively (a service may echo a
 * hex-like key upper-cased; a base64 form matched so is still no ordinary text at 16 characters or more), of short
 * ones only as written. A regular expression reads a string once without copying it, where lower-casing each string
 * of each answer to compare would copy most of them. Longer forms come first, so a padded base64 form goes whole
 * rather than leaving its `=` behind.
 */
function secretMatcher(secrets: readonly string[]): SecretMatcher | undefined {
  const present = secrets.filter((s) => s.length > 0);
  const patterns = [
    compile(
      present.filter((s) => s.length >= MIN_KEY_LENGTH_IN_DATA),
      'i',
    ),
    compile(
      present.filter((s) => s.length < MIN_KEY_LENGTH_IN_DATA),
      '',
    ),
  ].filter((p) => p !== undefined);
  if (patterns.length === 0) return undefined;
  return {
    // Most strings of an answer (names, statuses, dates) are shorter than any form: no need to read them.
    found: (text) => patterns.some(({ one, shortest }) => text.length >= shortest && one.test(text)),
    remove: (text) => patterns.reduce((out, { all }) => out.replace(all, REDACTED), text),
  };
}

function compile(
  secrets: readonly string[],
  flags: string,
): { one: RegExp; all: RegExp; shortest: number } | undefined {
  const forms = [...new Set(secrets.flatMap((s) => [...secretForms(s)]))].sort((a, b) => b.length - a.length);
  if (forms.length === 0) return undefined;
  // To tell whether a text holds one, a form that holds a shorter one need not be looked for (a padded base64 form
  // holds the bare one): fewer alternatives to try at each place of every string of every answer.
  const fold = (text: string): string => (flags.includes('i') ? text.toLowerCase() : text);
  const least = forms.filter(
    (form, i) => !forms.some((other, j) => j > i && fold(form).includes(fold(other))),
  );
  // Only long secrets are matched in any case: their pieces are as unlike ordinary text as they are.
  const cut = flags.includes('i') ? cutPieces(secrets) : { all: [], least: [] };
  return {
    one: new RegExp([alternatives(least), ...cut.least].join('|'), flags),
    // After every whole form: where one starts, it goes whole rather than as a piece.
    all: new RegExp([alternatives(forms), ...cut.all].join('|'), `g${flags}`),
    shortest: Math.min(...least.map((form) => form.length), MIN_KEY_LENGTH_IN_DATA),
  };
}

/**
 * Patterns for the key cut short: its first or its last MIN_KEY_LENGTH_IN_DATA characters or more, plain or encoded
 * as text quotes it, wherever they are. A service may cut the key it echoes (`invalid key 3f9a1c2b7d4e…`) or quote
 * it from some place on, so the whole key is never there but most of it is; and it may glue other letters or
 * digits to either end of what it shows (`token=x3f9a1c2b7d4e…`, a cut key with its own text after it), so a piece
 * is matched inside a longer word too. Twelve characters of a key, one of 16^12 runs for a real one, are no
 * ordinary text. `least` has the shortest of each kind: any longer one holds it.
 */
function cutPieces(secrets: readonly string[]): { all: string[]; least: string[] } {
  const written = [...new Set(secrets.flatMap(encodedForms))];
  const pieces = new Set<string>();
  for (const form of written) {
    for (let length = form.length - 1; length >= MIN_KEY_LENGTH_IN_DATA; length--) {
      pieces.add(form.slice(0, length));
      pieces.add(form.slice(-length));
    }
  }
  const one = (some: readonly string[]): string[] =>
    some.length > 0 ? [alternatives([...some].sort((a, b) => b.length - a.length))] : [];
  return {
    all: one([...pieces]),
    least: one([...pieces].filter((p) => p.length === MIN_KEY_LENGTH_IN_DATA)),
  };
}

function alternatives(forms: readonly string[]): string {
  return forms.map((form) => form.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')).join('|');
}

/** Matchers by the secrets they take out: redact() is called with the same key for every message of a run. */
const matchers = new Map<string, SecretMatcher | undefined>();

/** The matcher of `secrets`, built once per set of secrets (the manifest check asks for one per object). */
function matcherFor(secrets: readonly string[]): SecretMatcher | undefined {
  const id = secrets.join('\0');
  let matcher = matchers.get(id);
  if (matcher === undefined && !matchers.has(id)) {
    if (matchers.size >= 16) matchers.clear();
    matcher = secretMatcher(secrets);
    matchers.set(id, matcher);
  }
  return matcher;
}

/** Text with every form of each secret replaced by REDACTED (api/redact.ts also takes out `api_key` values). */
export function withoutSecrets(text: string, secrets: readonly string[]): string {
  const matcher = matcherFor(secrets);
  return matcher === undefined || !matcher.found(text) ? text : matcher.remove(text);
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
  const matcher = matcherFor(secrets);
  return (value) => {
    if (matcher === undefined || !holds(value, matcher)) return { value, held: false };
    return { value: mapStrings(value, matcher.remove, true), held: true };
  };
}

function holds(value: unknown, matcher: SecretMatcher): boolean {
  if (typeof value === 'string') return matcher.found(value);
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    for (const item of value) if (holds(item, matcher)) return true;
    return false;
  }
  for (const key in value) {
    if (holds(key, matcher) || holds((value as Record<string, unknown>)[key], matcher)) return true;
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
