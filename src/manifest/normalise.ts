import type {
  DesiredField,
  DesiredParser,
  DesiredProject,
  DesiredProjectInput,
  DesiredRename,
  ManifestSource,
} from '../model/desired.js';
import { NOTIFICATION_DEFAULTS } from '../model/vocabulary.js';
import type { WrittenField, WrittenParser } from './parser-schema.js';
import type { WrittenProject } from './project-schema.js';
import { byCodeUnit } from '../code-unit-order.js';

export function normaliseParser(written: WrittenParser, source: ManifestSource): DesiredParser {
  const fields: DesiredField[] = [];
  const renames: DesiredRename[] = [];
  flattenFields(written.fields ?? {}, '', '', fields, renames);
  return {
    kind: 'Parser',
    address: `parser.${written.name}`,
    name: written.name,
    urls: [...written.urls],
    scraperParams: sortKeys(written.scraper_params ?? {}),
    fields,
    renames,
    preventDestroy: written.lifecycle?.prevent_destroy ?? false,
    adopt: written.adopt ?? false,
    expect: (written.expect ?? []).map((check) => ({ url: check.url, result: check.result })),
    source,
  };
}

/**
 * Flattens nested fields to the service's dot notation. A rename hint is recorded with both names under the
 * parent's old name, since that is how the last-applied fields are named; children of a renamed parent follow it.
 */
function flattenFields(
  fields: Record<string, WrittenField>,
  prefix: string,
  oldPrefix: string,
  out: DesiredField[],
  renames: DesiredRename[],
): void {
  for (const [name, field] of Object.entries(fields)) {
    const fullName = prefix + name;
    const oldName = oldPrefix + (field.renamed_from ?? name);
    const isParent = field.fields !== undefined;
    const type = isParent ? 'array' : field.type;
    out.push({
      name: fullName,
      description: field.description.trim(),
      ...(type !== undefined ? { type } : {}),
      ...(field.selector !== undefined ? { selector: field.selector } : {}),
    });
    if (field.renamed_from !== undefined) renames.push({ from: oldName, to: fullName });
    if (isParent) flattenFields(field.fields ?? {}, `${fullName}.`, `${oldName}.`, out, renames);
  }
}

export function normaliseProject(
  written: WrittenProject,
  source: ManifestSource,
  inputFromFile?: { file: string; entries: string[] },
): DesiredProject {
  const writtenInput = written.projectInput;
  const projectInput: DesiredProjectInput =
    writtenInput.type === 'webhook_input'
      ? { type: 'webhook_input', url: writtenInput.url }
      : { type: 'list', list: inputFromFile?.entries ?? writtenInput.list ?? [] };
  const project: DesiredProject = {
    kind: 'Project',
    address: `project.${written.name}`,
    name: written.name,
    projectType: written.projectType,
    projectInput,
    preventDestroy: written.lifecycle?.prevent_destroy ?? false,
    adopt: written.adopt ?? false,
    ignoreChanges: [...new Set(written.lifecycle?.ignore_changes ?? [])],
    source,
  };
  if (inputFromFile !== undefined) project.inputFile = inputFromFile.file;
  if (written.scrapingInterval !== undefined) project.scrapingInterval = written.scrapingInterval;
  if (written.scheduledAt !== undefined) project.scheduledAt = written.scheduledAt;
  if (written.schedulingEnabled !== undefined) project.schedulingEnabled = written.schedulingEnabled;
  if (written.output_format !== undefined) project.output_format = written.output_format;
  if (written.webhookOutput !== undefined) {
    project.webhookOutput = written.webhookOutput === null ? null : sortKeys(written.webhookOutput);
  }
  if (written.notificationConfig !== undefined) {
    project.notificationConfig = { ...NOTIFICATION_DEFAULTS, ...written.notificationConfig };
  }
  if (written.apiParams !== undefined) project.apiParams = sortKeys(written.apiParams);
  return project;
}

/** Splits an input file into entries: one a line, blank lines and `#` comments skipped. */
export function parseInputFile(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

function sortKeys<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => byCodeUnit(a, b))) as T;
}
