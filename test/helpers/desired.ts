import type { DesiredField, DesiredParser, DesiredProject, ManifestSource } from '../../src/model/desired.js';

/** Where a unit test's desired objects say they were written; only a plan that shows origins reads it. */
export const source: ManifestSource = { file: 'm.yaml', line: 1, column: 1 };

/** The example page a parser of this name is given unless a test says otherwise. */
export const exampleUrl = (name: string): string => `https://books.example/${name}/a.html`;

export function desiredField(
  name: string,
  description: string,
  extra: Partial<DesiredField> = {},
): DesiredField {
  return { name, description, ...extra };
}

/**
 * A parser as normalisation makes it from a manifest that writes only its name and fields: one example URL of
 * its own, no scraper params, renames or expect checks, not protected, no consent to adopt. A test passes only
 * what its scenario changes.
 */
export function desiredParser(
  name: string,
  fields: DesiredField[] = [],
  overrides: Partial<DesiredParser> = {},
): DesiredParser {
  return {
    kind: 'Parser',
    address: `parser.${name}`,
    name,
    urls: [exampleUrl(name)],
    scraperParams: {},
    fields,
    renames: [],
    preventDestroy: false,
    adopt: false,
    expect: [],
    source,
    ...overrides,
  };
}

/**
 * A project as normalisation makes it from a manifest that writes only its name and one URL: the keys a manifest
 * leaves out (schedule, output, webhook, notifications) stay absent, as they do in DesiredProject.
 */
export function desiredProject(name: string, overrides: Partial<DesiredProject> = {}): DesiredProject {
  return {
    kind: 'Project',
    address: `project.${name}`,
    name,
    projectType: 'urls',
    projectInput: { type: 'list', list: ['https://books.example/'] },
    preventDestroy: false,
    adopt: false,
    ignoreChanges: [],
    source,
    ...overrides,
  };
}
