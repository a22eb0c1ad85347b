import { formatKeyPath } from './diagnostic.js';
import type { Diagnostic } from './diagnostic.js';
import { PLACEHOLDER_DESCRIPTION } from '../model/vocabulary.js';
import type { WrittenField, WrittenParser, WrittenProject } from './schemas.js';
import { locate } from './yaml-document.js';
import type { SourceDocument } from './yaml-document.js';

/**
 * Rules that span keys, checked after the schema passed so they can trust the shape: field names, parents,
 * rename hints, and a list input's `list` or `file`.
 */
export function checkParserRules(source: SourceDocument, parser: WrittenParser): Diagnostic[] {
  const out: Diagnostic[] = [];
  if (parser.fields !== undefined) checkFieldLevel(source, parser.fields, ['fields'], out);
  return out;
}

function checkFieldLevel(
  source: SourceDocument,
  fields: Record<string, WrittenField>,
  path: PropertyKey[],
  out: Diagnostic[],
): void {
  const renamedFrom = new Map<string, string[]>();
  for (const [name, field] of Object.entries(fields)) {
    const fieldPath = [...path, name];
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
    if (field.description === PLACEHOLDER_DESCRIPTION || field.description.startsWith('TODO:')) {
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
    if (field.fields !== undefined) {
      if (field.type !== undefined && field.type !== 'array') {
        out.push(
          at(
            source,
            [...fieldPath, 'type'],
            'value',
            'manifest.parent-type',
            `a field with child fields is an array parent; type must be array or left out, not ${field.type}`,
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
    if (from !== undefined) {
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
      } else if (Object.hasOwn(fields, from) && fields[from]?.renamed_from === undefined) {
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

export function checkProjectRules(source: SourceDocument, project: WrittenProject): Diagnostic[] {
  const out: Diagnostic[] = [];
  if (project.schedulingEnabled === true && project.scrapingInterval === undefined) {
    // Without an interval scrapeform turns scheduling off: the service's default would be a weekly run.
    out.push(
      at(source, ['schedulingEnabled'], 'value', 'manifest.schedule', 'true needs a scrapingInterval', {
        hint: 'add scrapingInterval (hourly, daily, weekly, monthly or a cron expression), or remove schedulingEnabled to scrape once',
      }),
    );
  }
  const input = project.projectInput;
  if (input.type === 'list') {
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
    } else if (input.list !== undefined && input.list.length === 0) {
      out.push(
        at(
          source,
          ['projectInput', 'list'],
          'value',
          'manifest.project-input',
          'list must hold at least one entry',
        ),
      );
    }
  }
  return out;
}

export function at(
  source: SourceDocument,
  path: PropertyKey[],
  where: 'key' | 'value',
  code: string,
  message: string,
  extra: { hint?: string; severity?: 'error' | 'warning' } = {},
): Diagnostic {
  const pos = locate(source, path, where);
  return {
    severity: extra.severity ?? 'error',
    code,
    file: source.file,
    line: pos.line,
    column: pos.column,
    path: formatKeyPath(path),
    message,
    ...(extra.hint !== undefined ? { hint: extra.hint } : {}),
  };
}
