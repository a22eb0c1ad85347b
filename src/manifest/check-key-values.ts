import { DEFAULT_API_KEY_ENV } from '../model/vocabulary.js';
import { MIN_KEY_LENGTH_IN_DATA, secretsRemover, withoutSecrets } from '../secret-forms.js';
import type { Diagnostic } from './diagnostic.js';
import { yaml } from './yaml-library.js';
import type { WrittenConfig } from './schemas.js';

/**
 * A key shorter than this (an emulator's or a test's) is not looked for in declared values: it would be found in
 * ordinary words. The same bound as for what the services answer (secret-forms.ts).
 */
export const MIN_KEY_LENGTH_IN_VALUES = MIN_KEY_LENGTH_IN_DATA;

/** `${NAME}` and `${NAME:-…}` in raw text; a `$${` before it is a literal, matched here to be passed over. */
const REFERENCE = /(\$?)\$\{([A-Za-z_][A-Za-z0-9_]*)(?=\}|:-)/g;

/** How a reference to a key variable is refused, wherever it is found (here, and as references expand). */
export function keyReferenceProblem(name: string): { code: string; message: string; hint: string } {
  return {
    code: 'manifest.api-key-reference',
    message: `\${${name}} holds an API key: scrapeform writes declared values to state, saved plans and its output, where a key never goes`,
    hint: 'remove the reference (a webhook that needs a secret should read it from its own service, never from the variable of a ScraperAPI key)',
  };
}

/**
 * The variables that hold an API key: SCRAPERAPI_API_KEY and every environment's `apiKeyEnv`, whichever
 * environment is chosen: prod reading staging's key would carry it into prod's state and plans all the same.
 */
export function keyVariables(config: WrittenConfig | undefined): Set<string> {
  const names = new Set([DEFAULT_API_KEY_ENV]);
  for (const environment of Object.values(config?.environments ?? {})) {
    if (environment.apiKeyEnv !== undefined) names.add(environment.apiKeyEnv);
  }
  return names;
}

/**
 * A `${NAME}` reference to a key variable in scrapeform.yaml (whose values reach manifests through `${var.…}`), at
 * its place: found in the source text of each scalar (keys, values, block scalars), before the file says which
 * variables hold keys, so whether or not the variable is set; comments are no scalars. Manifests are checked as
 * their references are expanded (interpolate.ts), so a file that is not a manifest never counts.
 */
export function keyReferences(file: string, text: string, names: ReadonlySet<string>): Diagnostic[] {
  const out: Diagnostic[] = [];
  if (!text.includes('${')) return out;
  const starts = lineStarts(text);
  for (const doc of yaml().parseAllDocuments(text)) {
    if (!('contents' in doc)) continue;
    yaml().visit(doc, {
      Scalar(_key, node) {
        const [from, to] = node.range ?? [0, 0];
        const source = text.slice(from, to);
        for (const match of source.matchAll(REFERENCE)) {
          const name = match[2] as string;
          if (match[1] === '$' || !names.has(name)) continue;
          const at = from + match.index;
          const line = lineOf(starts, at);
          out.push({
            severity: 'error',
            ...keyReferenceProblem(name),
            file,
            line: line + 1,
            column: at - (starts[line] ?? 0) + 1,
            path: '',
          });
        }
      },
    });
  }
  return out;
}

/** Where each line of a text starts. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  return starts;
}

/** The line (from 0) an offset is on. */
function lineOf(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((starts[mid] ?? 0) <= offset) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** A key variable that is set, and its value (trimmed). */
export interface KeyValue {
  name: string;
  value: string;
}

/**
 * The values of the key variables that are set, long enough to be told from ordinary text: what no declared value
 * may hold, and what no message may quote.
 */
export function keysSet(
  names: ReadonlySet<string>,
  env: Readonly<Record<string, string | undefined>>,
): KeyValue[] {
  return (
    [...names]
      // Trimmed as the CLI trims a key it reads (api/config.ts): a key with a newline after it is still the key.
      .map((name) => ({ name, value: (env[name] ?? '').trim() }))
      .filter(({ value }) => value.length >= MIN_KEY_LENGTH_IN_VALUES)
  );
}

/**
 * Which of these keys a value holds, in any form a text may quote it (in any case; plain, URL-encoded, JSON-escaped
 * or base64-encoded: secretForms), in a string or the name of a key: one reading of the value when it holds none.
 */
export function keysHeld<K extends { value: string }>(value: unknown, keys: readonly K[]): K[] {
  if (keys.length === 0 || !secretsRemover(keys.map((k) => k.value))(value).held) return [];
  return keys.length === 1 ? [...keys] : keys.filter((k) => secretsRemover([k.value])(value).held);
}

/**
 * Diagnostics whose texts (message, hint, path) quote no key: a value that fails a check is quoted by its message,
 * and such a value may be a key (a var file's, a variable's); the messages reach the terminal, CI logs and the
 * comment the GitHub Action posts.
 */
export function diagnosticsWithoutKeys(
  diagnostics: readonly Diagnostic[],
  keys: readonly string[],
): Diagnostic[] {
  if (keys.length === 0) return [...diagnostics];
  const clean = (text: string): string => withoutSecrets(text, keys);
  return diagnostics.map((d) => ({
    ...d,
    message: clean(d.message),
    path: clean(d.path),
    ...(d.hint !== undefined ? { hint: clean(d.hint) } : {}),
  }));
}

/** Which of these keys an object's declared values hold (its place left out). */
export function valuesDeclared<K extends { value: string }>(object: DeclaredObject, keys: readonly K[]): K[] {
  const { source: _source, ...declared } = object;
  return keysHeld(declared, keys);
}

/** An object as loaded, with the place it is declared. */
export interface DeclaredObject {
  address: string;
  source: { file: string; line: number; column: number };
}

/** How a declared value holding the value of a key variable is refused, at the object's place. */
export function keyInValue(
  address: string,
  found: readonly KeyValue[],
  place: { file: string; line: number; column: number },
): Diagnostic {
  return {
    severity: 'error',
    code: 'manifest.api-key-in-value',
    file: place.file,
    line: place.line,
    column: place.column,
    path: '',
    message: `${address} holds the value of ${found.map((k) => k.name).join(', ')} (an API key) in a declared value: scrapeform writes declared values to state, saved plans and its output, where a key never goes`,
    hint: 'take the key out of the manifests, the variables and the var files (a webhook that needs a secret should read it from its own service)',
  };
}

/**
 * A declared value holding the value of a key variable that is set (reached through a variable, a var file or a
 * default), at the object's place: the same refusal as a reference, for a key that arrives some other way. An
 * object with other problems is refused as it is read (load-file.ts), never reaching here.
 */
export function keyValues(objects: readonly DeclaredObject[], keys: readonly KeyValue[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const object of objects) {
    const found = valuesDeclared(object, keys);
    if (found.length > 0) out.push(keyInValue(object.address, found, object.source));
  }
  return out;
}
