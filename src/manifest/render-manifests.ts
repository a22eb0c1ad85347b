import { Document, Scalar, visit } from 'yaml';
import { INVISIBLE_CHARACTERS, printable, unicodeEscape } from '../invisible-characters.js';
import type {
  DesiredField,
  DesiredObject,
  DesiredParser,
  DesiredProject,
  ManifestSource,
} from '../model/desired.js';
import type { WrittenField, WrittenParser } from './parser-schema.js';
import type { WrittenProject } from './project-schema.js';

/** One environment's objects (or all of them, `name` undefined, without environments). */
export interface RenderedSet {
  environment?: string;
  objects: readonly DesiredObject[];
}

/**
 * The fully expanded manifests as a YAML stream, one document per object, each headed by a comment saying where
 * its values come from (its manifest, the for_each element, the templates it extends): exactly what plan and
 * apply reconcile, for a reviewer to read. Input files are shown as the list they hold.
 */
export function renderManifests(sets: readonly RenderedSet[]): string {
  const documents: string[] = [];
  for (const set of sets) {
    for (const object of set.objects) {
      const doc = new Document(object.kind === 'Parser' ? writtenParser(object) : writtenProject(object));
      const head = [
        ...(set.environment !== undefined ? [`environment: ${set.environment}`] : []),
        `${object.address} from ${describeSource(object.source)}`,
      ];
      doc.commentBefore = head.map((line) => ` ${printable(line)}`).join('\n');
      documents.push(withInvisibleEscaped(doc));
    }
  }
  return documents.join('---\n');
}

const INVISIBLE = new RegExp(`[${INVISIBLE_CHARACTERS}]`, 'gu');
const ANY_INVISIBLE = new RegExp(INVISIBLE.source, 'u');

/**
 * The document as YAML, each bidirectional override or zero-width character (which the manifest checks let through,
 * unlike control characters) written as an escape such as `\u202e`: printed raw it would show a reviewer the text
 * around it reordered or two different names alike ("Trojan Source"). A scalar holding one is written in double
 * quotes, where YAML reads the escape back as the character, so the output still parses to the same values; in the
 * heading comment the escape only shows. YAML's double quotes already escape C0 controls, and only there can
 * they be, a block scalar's line breaks and tabs aside. The heading is made `printable` first: a control character
 * in a file or folder name would split the comment or reach the terminal as the start of a sequence.
 */
function withInvisibleEscaped(doc: Document): string {
  visit(doc, {
    Scalar(_key, node: Scalar) {
      if (typeof node.value === 'string' && ANY_INVISIBLE.test(node.value)) {
        node.type = Scalar.QUOTE_DOUBLE;
      }
    },
  });
  return doc.toString({ lineWidth: 0 }).replace(INVISIBLE, unicodeEscape);
}

/**
 * `teams/a/books.yaml:1:1, for_each[2] at teams/a/books.yaml:9:5, ParserTemplate "product" at templates/p.yaml:1:1`.
 */
export function describeSource(source: ManifestSource): string {
  return [
    `${source.file}:${source.line}:${source.column}`,
    ...(source.origin ?? []).map((o) => `${o.label} at ${o.file}:${o.line}:${o.column}`),
  ].join(', ');
}

function writtenParser(parser: DesiredParser): WrittenParser {
  return {
    kind: 'Parser',
    name: parser.name,
    urls: parser.urls,
    ...(Object.keys(parser.scraperParams).length > 0 ? { scraper_params: parser.scraperParams } : {}),
    ...(parser.fields.length > 0 ? { fields: nestFields(parser) } : {}),
    ...(parser.preventDestroy ? { lifecycle: { prevent_destroy: true } } : {}),
    // Consent to adopt is part of what plan and apply reconcile: render shows it as they read it.
    ...(parser.adopt === true ? { adopt: true } : {}),
    ...(parser.expect.length > 0 ? { expect: parser.expect } : {}),
    ...movedOf(parser),
  };
}

/** Dot-notation fields back to the nested map a manifest writes, rename hints included. */
function nestFields(parser: DesiredParser): Record<string, WrittenField> {
  const top: Record<string, WrittenField> = {};
  const byName = new Map<string, WrittenField>();
  const renamedFrom = new Map(parser.renames.map((r) => [r.to, r.from.slice(r.from.lastIndexOf('.') + 1)]));
  for (const field of parser.fields) {
    const entry = writtenField(field, renamedFrom.get(field.name));
    byName.set(field.name, entry);
    const cut = field.name.lastIndexOf('.');
    const parent = cut < 0 ? undefined : byName.get(field.name.slice(0, cut));
    if (parent !== undefined) {
      parent.fields ??= {};
      parent.fields[field.name.slice(cut + 1)] = entry;
    } else top[field.name] = entry;
  }
  return top;
}

function writtenField(field: DesiredField, renamedFrom: string | undefined): WrittenField {
  return {
    description: field.description,
    ...(field.type !== undefined ? { type: field.type } : {}),
    ...(field.selector !== undefined ? { selector: field.selector } : {}),
    ...(renamedFrom !== undefined ? { renamed_from: renamedFrom } : {}),
  };
}

function writtenProject(project: DesiredProject): WrittenProject {
  const lifecycle = {
    ...(project.preventDestroy ? { prevent_destroy: true } : {}),
    ...(project.ignoreChanges.length > 0 ? { ignore_changes: project.ignoreChanges } : {}),
  };
  return {
    kind: 'Project',
    name: project.name,
    projectType: project.projectType,
    projectInput: project.projectInput,
    ...(project.scrapingInterval !== undefined ? { scrapingInterval: project.scrapingInterval } : {}),
    ...(project.scheduledAt !== undefined ? { scheduledAt: project.scheduledAt } : {}),
    ...(project.schedulingEnabled !== undefined ? { schedulingEnabled: project.schedulingEnabled } : {}),
    ...(project.output_format !== undefined ? { output_format: project.output_format } : {}),
    ...(project.webhookOutput !== undefined ? { webhookOutput: project.webhookOutput } : {}),
    ...(project.notificationConfig !== undefined ? { notificationConfig: project.notificationConfig } : {}),
    ...(project.apiParams !== undefined ? { apiParams: project.apiParams } : {}),
    ...(Object.keys(lifecycle).length > 0 ? { lifecycle } : {}),
    ...(project.adopt === true ? { adopt: true } : {}),
    ...movedOf(project),
  };
}

/** The moved hints as written (from, to), without their places. */
function movedOf(object: DesiredParser | DesiredProject): { moved?: { from: string; to: string }[] } {
  const moved = object.moved ?? [];
  return moved.length > 0 ? { moved: moved.map(({ from, to }) => ({ from, to })) } : {};
}
