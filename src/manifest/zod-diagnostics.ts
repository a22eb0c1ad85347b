import * as z from 'zod';
import type { core } from 'zod';
import { formatKeyPath } from './diagnostic.js';
import type { Diagnostic } from './diagnostic.js';
import { suggestNearest } from './suggest.js';
import type { ObjectSource, Place } from './object-source.js';

/** What to do about a missing required key, where the fix is known. */
const MISSING_KEY_HINTS: Record<string, string> = {
  name: 'give the object its name in the service',
  urls: 'list 1 to 3 example pages of one page type',
  description: 'say what the field holds; the more specific, the better the extraction',
  projectType: 'urls for plain pages, or one of the structured types such as amazon_product',
  projectInput: 'for example { type: list, list: [https://…] }',
  type: 'list or webhook_input',
  url: 'an absolute http(s) URL',
  result: 'the keys you expect, such as { title: A Light in the Attic }',
};

/** Turns zod issues for one document into diagnostics that point at the offending key or value. */
export function diagnosticsFromIssues(
  source: ObjectSource,
  schema: z.ZodType,
  data: unknown,
  issues: readonly core.$ZodIssue[],
): Diagnostic[] {
  const out: Diagnostic[] = [];
  // A value of the wrong type gets that one message: zod also runs the checks after it (`urls: "https://…"` is
  // a string longer than 3), whose messages would only confuse.
  const wrongTypes = issues
    .filter(
      (issue) => issue.code === 'invalid_type' && valueAt(data, issue.path as PropertyKey[]) !== undefined,
    )
    .map((issue) => issue.path as PropertyKey[]);
  for (const issue of issues) {
    const path = issue.path as PropertyKey[];
    if (issue.code !== 'invalid_type' && wrongTypes.some((wrong) => isWithin(path, wrong))) continue;
    const base = { severity: 'error' as const };
    switch (issue.code) {
      case 'unrecognized_keys': {
        const known = knownKeysAt(schema, path, data);
        for (const key of issue.keys) {
          const keyPath = [...path, key];
          const near = suggestNearest(key, known);
          const pos = source.place(keyPath, 'key');
          out.push({
            ...base,
            code: 'manifest.unknown-key',
            ...place(pos),
            path: formatKeyPath(keyPath),
            message: `unknown key "${key}"`,
            hint: near !== undefined ? `did you mean "${near}"?` : `allowed keys: ${known.join(', ')}`,
          });
        }
        break;
      }
      case 'invalid_type': {
        const input = valueAt(data, path);
        if (input === undefined) {
          const key = String(path[path.length - 1] ?? '');
          const hint = MISSING_KEY_HINTS[key];
          out.push({
            ...base,
            code: 'manifest.missing-key',
            ...place(source.place(path)),
            path: formatKeyPath(path),
            message: `missing required key "${key}"`,
            ...(hint !== undefined ? { hint } : {}),
          });
        } else {
          out.push({
            ...base,
            code: 'manifest.wrong-type',
            ...place(source.place(path)),
            path: formatKeyPath(path),
            message: `expected ${describeExpected(issue.expected)}, got ${describeValue(input)}`,
          });
        }
        break;
      }
      case 'invalid_value':
        out.push(invalidValue(source, data, path, issue.values.map(String)));
        break;
      case 'invalid_union': {
        if (issue.errors.length === 0 && issue.discriminator !== undefined && 'options' in issue) {
          out.push(invalidValue(source, data, path, (issue.options ?? []).map(String)));
          break;
        }
        out.push({
          ...base,
          code: 'manifest.invalid-value',
          ...place(source.place(path)),
          path: formatKeyPath(path),
          message: issue.message,
        });
        break;
      }
      default: {
        const code =
          issue.code === 'custom' ? (issue.params as { code?: unknown } | undefined)?.code : undefined;
        out.push({
          ...base,
          code: typeof code === 'string' ? code : 'manifest.invalid-value',
          ...place(source.place(path)),
          path: formatKeyPath(path),
          message: issue.message,
        });
      }
    }
  }
  return out;
}

function invalidValue(
  source: ObjectSource,
  data: unknown,
  path: PropertyKey[],
  values: string[],
): Diagnostic {
  const input = valueAt(data, path);
  if (input === undefined) {
    // A literal left out (`kind: Config` in scrapeform.yaml) is missing, as any required key is.
    const key = String(path[path.length - 1] ?? '');
    return {
      severity: 'error',
      code: 'manifest.missing-key',
      ...place(source.place(path)),
      path: formatKeyPath(path),
      message: `missing required key "${key}"`,
      hint: values.length === 1 ? `write ${key}: ${values[0]}` : `one of ${values.join(', ')}`,
    };
  }
  const near = typeof input === 'string' ? suggestNearest(input, values) : undefined;
  return {
    severity: 'error',
    code: 'manifest.invalid-value',
    ...place(source.place(path)),
    path: formatKeyPath(path),
    message:
      values.length === 1
        ? `must be "${values[0]}", got ${describeValue(input)}`
        : `must be one of ${values.join(', ')}; got ${describeValue(input)}`,
    ...(near !== undefined ? { hint: `did you mean "${near}"?` } : {}),
  };
}

function isWithin(path: readonly PropertyKey[], ancestor: readonly PropertyKey[]): boolean {
  return ancestor.length <= path.length && ancestor.every((segment, i) => segment === path[i]);
}

function place(pos: Place): Place {
  return { file: pos.file, line: pos.line, column: pos.column };
}

function describeExpected(expected: string): string {
  if (expected === 'int') return 'an integer';
  if (expected === 'array') return 'a list';
  if (expected === 'object' || expected === 'record') return 'a map';
  return `a ${expected}`;
}

/**
 * A value as a message quotes it. A long text is cut before the word that crosses its end: a key inside a value
 * (a token in a URL) is taken out of messages only whole (loadManifests), and a cut one would stay half shown.
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string')
    return `"${value.length > 60 ? `${value.slice(0, 57).replace(/[\p{L}\p{N}_%-]+$/u, '')}...` : value}"`;
  return `${typeof value} ${String(value)}`;
}

export function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = data;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

/** The keys the schema allows at a path, for "did you mean" hints; follows the data through unions. */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[], data: unknown): string[] {
  let current: z.ZodType | undefined = schema;
  for (const [i, segment] of [...path, undefined].entries()) {
    current = unwrap(current, valueAt(data, path.slice(0, i)));
    if (current === undefined) return [];
    if (segment === undefined) break;
    if (current instanceof z.ZodObject)
      current = (current.shape as Record<string, z.ZodType>)[String(segment)];
    else if (current instanceof z.ZodArray) current = current.element as z.ZodType;
    else if (current instanceof z.ZodRecord) current = current.valueType as z.ZodType;
    else return [];
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}

function unwrap(schema: z.ZodType | undefined, value: unknown): z.ZodType | undefined {
  let current = schema;
  for (;;) {
    if (
      current instanceof z.ZodOptional ||
      current instanceof z.ZodNullable ||
      current instanceof z.ZodDefault
    ) {
      current = current.unwrap() as z.ZodType;
    } else if (current instanceof z.ZodUnion) {
      const options = current.options as z.ZodType[];
      const objects = options.filter((o): o is z.ZodObject => o instanceof z.ZodObject);
      current = objects.find((o) => matchesLiterals(o, value)) ?? objects[0];
    } else {
      return current;
    }
  }
}

function matchesLiterals(schema: z.ZodObject, value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(schema.shape).every(([key, field]) => {
    if (!(field instanceof z.ZodLiteral)) return true;
    return field.values.has((value as Record<string, unknown>)[key] as never);
  });
}
