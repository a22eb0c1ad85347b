import { formatKeyPath } from './diagnostic.js';
import type { Diagnostic } from './diagnostic.js';
import { normaliseExampleUrl } from '../model/example-url.js';
import { FIELD_TYPES, isPlaceholderDescription } from '../model/vocabulary.js';
import { compileExpectedPattern, isExpectedPattern } from './expected-pattern.js';
import { RESERVED_FIELD_NAMES } from './parser-schema.js';
import { ScheduledAtSchema } from './project-schema.js';
import type { ObjectSource } from './object-source.js';
import { isRecord } from '../is-record.js';

export { isRecord };

/**
 * Rules that span keys or that JSON Schema cannot say well: field names, parents, rename hints, a list input's
 * `list` or `file`, expect patterns, schedules. They run on every document that parsed, whatever the schema
 * said, so all problems come at once; so they take the data as it is and check its shape as they go.
 */
export function checkParserRules(source: ObjectSource, parser: unknown): Diagnostic[] {
  const out: Diagnostic[] = [];
  if (!isRecord(parser)) return out;
  if (Array.isArray(parser.urls)) checkRepeatedUrls(source, parser.urls, out);
  if (isRecord(parser.fields)) checkFieldLevel(source, parser.fields, ['fields'], out);
  if (Array.isArray(parser.expect)) {
    parser.expect.forEach((check: unknown, i) => {
      if (isRecord(check)) checkExpectedPatterns(source, check.result, ['expect', i, 'result'], out);
    });
  }
  return out;
}

/**
 * A page written twice in `urls` (`[A, A]`, or `[A, A/]`, the same page as the service may spell it back): plan reads
 * the list as its pages, by the form it compares them in (model/example-url.ts), so the copy does nothing there, and
 * dropping it later plans no change. Only a warning: the manifest is valid.
 */
function checkRepeatedUrls(source: ObjectSource, urls: readonly unknown[], out: Diagnostic[]): void {
  const first = new Map<string, number>();
  urls.forEach((url, i) => {
    if (typeof url !== 'string') return;
    const page = normaliseExampleUrl(url);
    const earlier = first.get(page);
    if (earlier === undefined) {
      first.set(page, i);
      return;
    }
    const place = source.place(['urls', earlier]);
    out.push(
      at(
        source,
        ['urls', i],
        'value',
        'manifest.repeated-url',
        `the same example page as urls[${earlier}] at ${place.file}:${place.line}:${place.column}${url === urls[earlier] ? '' : ` (${String(urls[earlier])})`}: plan counts them as one page`,
        {
          severity: 'warning',
          hint: 'remove the repeated entry: plan reads the same pages without it, so removing it changes nothing live',
        },
      ),
    );
  });
}

function checkFieldLevel(
  source: ObjectSource,
  fields: Record<string, unknown>,
  path: PropertyKey[],
  out: Diagnostic[],
): void {
  const renamedFrom = new Map<string, string[]>();
  for (const [name, field] of Object.entries(fields)) {
    const fieldPath = [...path, name];
    checkFieldName(source, name, fieldPath, out);
    if (!isRecord(field)) continue;
    if (typeof field.description === 'string' && isPlaceholderDescription(field.description)) {
      out.push(
        at(
          source,
          [...fieldPath, 'description'],
          'value',
          'manifest.placeholder-description',
          'the description is a placeholder written by import',
          {
            severity: 'warning',
            hint: 'say what the field holds; the next apply sends it as modify_fields (one regeneration)',
          },
        ),
      );
    }
    if (isRecord(field.fields)) {
      const type = field.type;
      if (typeof type === 'string' && type !== 'array' && (FIELD_TYPES as readonly string[]).includes(type)) {
        out.push(
          at(
            source,
            [...fieldPath, 'type'],
            'value',
            'manifest.parent-type',
            `a field with child fields is an array parent; type must be array or left out, not ${type}`,
          ),
        );
      }
      if (Object.keys(field.fields).length === 0) {
        out.push(
          at(
            source,
            [...fieldPath, 'fields'],
            'value',
            'manifest.empty-parent',
            'fields must list at least one child',
            {
              hint: 'remove `fields:` to make this a plain field',
            },
          ),
        );
      }
      checkFieldLevel(source, field.fields, [...fieldPath, 'fields'], out);
    }
    const from = field.renamed_from;
    if (typeof from === 'string' && from !== '') {
      const hintPath = [...fieldPath, 'renamed_from'];
      if (from === name) {
        out.push(
          at(source, hintPath, 'value', 'manifest.rename', `renamed_from names the field itself ("${name}")`),
        );
      } else if (from.includes('.')) {
        out.push(
          at(source, hintPath, 'value', 'manifest.rename', `renamed_from "${from}" contains a dot`, {
            hint: 'renamed_from takes the old name of this field among its siblings, without its parent',
          }),
        );
      } else if (Object.hasOwn(fields, from) && !hasRename(fields[from])) {
        // Naming a declared sibling is fine when that sibling is itself renamed (a chain or a swap).
        out.push(
          at(
            source,
            hintPath,
            'value',
            'manifest.rename',
            `renamed_from names "${from}", which is also declared here`,
            {
              hint: `a field cannot be renamed and kept: remove "${from}" or the renamed_from line`,
            },
          ),
        );
      }
      renamedFrom.set(from, [...(renamedFrom.get(from) ?? []), name]);
    }
  }
  for (const [from, names] of renamedFrom) {
    if (names.length < 2) continue;
    for (const name of names) {
      const others = names.filter((n) => n !== name).map((n) => `"${n}"`);
      out.push(
        at(
          source,
          [...path, name, 'renamed_from'],
          'value',
          'manifest.rename',
          `"${from}" is renamed to more than one field (also ${others.join(', ')})`,
          { hint: 'one old field can become one new field; give the others no renamed_from' },
        ),
      );
    }
  }
}

function checkFieldName(
  source: ObjectSource,
  name: string,
  fieldPath: PropertyKey[],
  out: Diagnostic[],
): void {
  // `__proto__` is reported for every map by inspectDocument (manifest.reserved-key).
  if (name === '__proto__') return;
  if (name.trim() === '') {
    out.push(at(source, fieldPath, 'key', 'manifest.field-name', 'field name must not be empty'));
  }
  if (name.includes('.')) {
    out.push(
      at(source, fieldPath, 'key', 'manifest.field-name', `field name "${name}" contains a dot`, {
        hint: 'nest child fields under `fields:` instead; scrapeform joins the names with dots when it sends them',
      }),
    );
  }
  const control = CONTROL_CHARACTER.exec(name)?.[0];
  if (control !== undefined) {
    const code = control.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0') ?? '';
    out.push(
      at(
        source,
        fieldPath,
        'key',
        'manifest.field-name',
        `field name ${JSON.stringify(name)} holds the control character U+${code}`,
      ),
    );
  }
  if ((RESERVED_FIELD_NAMES as readonly string[]).includes(name)) {
    out.push(
      at(source, fieldPath, 'key', 'manifest.field-name', `field name "${name}" is reserved`, {
        hint: 'every JavaScript object has a property of this name, so a field cannot; choose another name',
      }),
    );
  }
}

// eslint-disable-next-line no-control-regex -- this pattern exists to find control characters
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

function hasRename(field: unknown): boolean {
  return isRecord(field) && field.renamed_from !== undefined;
}

/** Every `~pattern` of an expect result must compile as apply will compile it. */
function checkExpectedPatterns(
  source: ObjectSource,
  expected: unknown,
  path: PropertyKey[],
  out: Diagnostic[],
): void {
  if (isExpectedPattern(expected)) {
    try {
      compileExpectedPattern(expected);
    } catch (error) {
      const reason = (error as Error).message.split(': ').pop() ?? (error as Error).message;
      out.push(
        at(
          source,
          path,
          'value',
          'manifest.expect-pattern',
          `${JSON.stringify(expected)} is not a valid regular expression: ${reason}`,
          {
            hint: 'after the ~ comes a JavaScript regular expression with the u flag; escape ( ) [ ] { } * + ? . ^ $ | \\ / with a backslash, and nothing else (a - needs none outside [...])',
          },
        ),
      );
    }
  } else if (Array.isArray(expected)) {
    expected.forEach((item: unknown, i) => checkExpectedPatterns(source, item, [...path, i], out));
  } else if (isRecord(expected)) {
    for (const [key, value] of Object.entries(expected)) {
      checkExpectedPatterns(source, value, [...path, key], out);
    }
  }
}

/** `now` is when validation runs, handed in by the caller; a past `scheduledAt` only warns. */
export function checkProjectRules(source: ObjectSource, project: unknown, now: Date): Diagnostic[] {
  const out: Diagnostic[] = [];
  if (!isRecord(project)) return out;
  if (project.schedulingEnabled === true && project.scrapingInterval === undefined) {
    // Without an interval scrapeform turns scheduling off: the service's default would be a weekly run.
    out.push(
      at(source, ['schedulingEnabled'], 'value', 'manifest.schedule', 'true needs a scrapingInterval', {
        hint: 'add scrapingInterval (hourly, daily, weekly, monthly or a cron expression), or remove schedulingEnabled to scrape once',
      }),
    );
  }
  const scheduledAt = project.scheduledAt;
  if (
    typeof scheduledAt === 'string' &&
    scheduledAt !== 'now' &&
    // The cheap test first: most scheduledAt values are in the future, and zod's check of 1,000 took about 4 ms.
    Date.parse(scheduledAt) < now.getTime() &&
    ScheduledAtSchema.safeParse(scheduledAt).success
  ) {
    out.push(
      at(source, ['scheduledAt'], 'value', 'manifest.scheduled-at-past', `${scheduledAt} is in the past`, {
        severity: 'warning',
        hint: 'write now to run at once, or a future time; scheduledAt is sent only when the project is created',
      }),
    );
  }
  const input = project.projectInput;
  if (isRecord(input) && input.type === 'list') {
    if (input.list !== undefined && input.file !== undefined) {
      out.push(
        at(
          source,
          ['projectInput', 'file'],
          'key',
          'manifest.project-input',
          'give either list or file, not both',
        ),
      );
    } else if (input.list === undefined && input.file === undefined) {
      out.push(
        at(source, ['projectInput'], 'value', 'manifest.project-input', 'a list input needs list or file', {
          hint: 'list: [https://…], or file: inputs.txt (one entry a line)',
        }),
      );
    }
  }
  return out;
}

export function at(
  source: ObjectSource,
  path: PropertyKey[],
  where: 'key' | 'value',
  code: string,
  message: string,
  extra: { hint?: string; severity?: 'error' | 'warning' } = {},
): Diagnostic {
  const pos = source.place(path, where);
  return {
    severity: extra.severity ?? 'error',
    code,
    file: pos.file,
    line: pos.line,
    column: pos.column,
    path: formatKeyPath(path),
    message,
    ...(extra.hint !== undefined ? { hint: extra.hint } : {}),
  };
}
