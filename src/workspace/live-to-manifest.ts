import { existsSync } from 'node:fs';
import path from 'node:path';
import type { LiveParserDetails, LiveProject } from '../api/live.js';
import { literalValue } from '../manifest/interpolate.js';
import { normaliseParser, normaliseProject } from '../manifest/normalise.js';
import type { WrittenField, WrittenParser } from '../manifest/parser-schema.js';
import { ParserManifestSchema, RESERVED_FIELD_NAMES } from '../manifest/parser-schema.js';
import { ProjectManifestSchema } from '../manifest/project-schema.js';
import type { WrittenProject } from '../manifest/project-schema.js';
import { PROJECT_FIELDS } from '../model/project-fields.js';
import { PACKAGE_ROOT } from '../package-root.js';
import {
  NOTIFY_ON_FAILURE,
  NOTIFY_ON_SUCCESS,
  OUTPUT_FORMATS,
  PLACEHOLDER_DESCRIPTION,
  PROJECT_TYPES,
} from '../model/vocabulary.js';
import { sameWord } from '../model/same-value.js';
import { projectPayload } from '../plan/build-plan.js';
import type { ResourceState } from '../state/model.js';
import { manifestYaml, readBackProblem, tooDeepProblem } from './read-back.js';

const SCHEMA_FILE = path.join(PACKAGE_ROOT, 'schemas', 'scrapeform.schema.json');
/**
 * Where the schema is in a repository that has scrapeform as a dependency (the file `scrapeform/schema.json` exports).
 */
const INSTALLED_SCHEMA = ['node_modules', 'scrapeform', 'schemas', 'scrapeform.schema.json'];

/**
 * The `$schema` of a manifest written into `out`, as a path relative to the manifest that works in every clone of
 * the repository: the schema of this scrapeform when it is inside the repository (a dependency in its
 * node_modules, or scrapeform's own checkout), otherwise where `npm install --save-dev scrapeform` puts it. Never
 * a path into a global install or an npx cache: those exist only on the machine that ran import.
 */
export function schemaReference(out: string): { path: string; installed: boolean } {
  const dir = path.resolve(out);
  const root = repositoryRoot(dir);
  const fromRoot = path.relative(root, SCHEMA_FILE);
  const inside = !fromRoot.startsWith('..') && !path.isAbsolute(fromRoot);
  const target = inside ? SCHEMA_FILE : path.join(root, ...INSTALLED_SCHEMA);
  return {
    path: path.relative(dir, target).split(path.sep).join('/'),
    installed: inside || existsSync(target),
  };
}

/** The nearest folder above `dir` (or itself) holding `.git` or `package.json`; `dir` when there is none. */
function repositoryRoot(dir: string): string {
  for (let at = dir; ; at = path.dirname(at)) {
    if (existsSync(path.join(at, '.git')) || existsSync(path.join(at, 'package.json'))) return at;
    if (path.dirname(at) === at) return dir;
  }
}

/** One live object as import writes it: the manifest file and its text, and what state records for it. */
export interface ImportedObject {
  file: string;
  text: string;
  address: string;
  resource: ResourceState;
}

export function importParser(out: string, details: LiveParserDetails): ImportedObject | string {
  // A name every JavaScript object has: the loader refuses it (parser-schema.ts), and `__proto__` was lost on the
  // way into the manifest, declaring a parser without that field.
  const reserved = details.fields
    .map((f) => f.name.slice(f.name.lastIndexOf('.') + 1))
    .find((name) => (RESERVED_FIELD_NAMES as readonly string[]).includes(name));
  if (reserved !== undefined)
    return `skipped parser "${details.name}" (${details.id}): its field "${reserved}" has a name a manifest cannot hold (every JavaScript object has a property of this name)`;
  const fields: Record<string, WrittenField> = {};
  const byName = new Map<string, WrittenField>();
  for (const field of details.fields) {
    const entry: WrittenField = { description: PLACEHOLDER_DESCRIPTION };
    byName.set(field.name, entry);
    const cut = field.name.lastIndexOf('.');
    const parent = cut < 0 ? undefined : byName.get(field.name.slice(0, cut));
    if (parent !== undefined) {
      parent.fields ??= {};
      parent.fields[field.name.slice(cut + 1)] = entry;
    } else {
      fields[field.name] = entry;
    }
  }
  const expect = expectedResults(details.exampleResult ?? []);
  const written: WrittenParser = {
    kind: 'Parser',
    name: details.name,
    urls: (details.exampleResult ?? []).map((e) => e.url),
    ...(Object.keys(fields).length > 0 ? { fields } : {}),
    ...(expect.length > 0 ? { expect } : {}),
  };
  // Before anything else walks it: fields nested a few hundred levels blew the YAML writer's call stack.
  const deep = tooDeepProblem(written);
  if (deep !== undefined) return `skipped parser "${details.name}" (${details.id}): ${cannotHoldText(deep)}`;
  const key = referenceKey(written);
  if (key !== undefined)
    return `skipped parser "${details.name}" (${details.id}): its field "${key}" has \${ in its name, which a manifest key cannot hold`;
  // As for a project: the service allows what a manifest does not (a name holding a control character), and such a
  // manifest, written and recorded, made every later plan fail.
  const checked = ParserManifestSchema.safeParse(written);
  if (!checked.success)
    return `skipped parser "${details.name}" (${details.id}): ${cannotHold(checked.error.issues)}`;
  const file = path.join(out, `parser-${slug(details.name)}.yaml`);
  const desired = normaliseParser(written, { file, line: 1, column: 1 });
  const names = desired.fields.map((f) => f.name);
  const address = desired.address;
  const text = document(file, written, [
    'The service returns no scraper_params, descriptions, selectors or input types: state records them as',
    'unknown. Describe each field; declare the scraper_params, selectors and types the parser has; then',
    `\`scrapeform plan --accept-unknown ${address}\` records them with no call (without it, descriptions and`,
    'selectors are sent with modify_fields, one regeneration; scraper_params are never a reason to replace).',
    'The expect checks below are what the parser extracted when imported.',
  ]);
  const unread = readBackProblem(file, text, 'Parser', manifestData(written));
  if (unread !== undefined)
    return `skipped parser "${details.name}" (${details.id}): ${cannotHoldText(unread)}`;
  return {
    file,
    text,
    address,
    resource: {
      kind: 'Parser',
      id: details.id,
      name: details.name,
      version: details.version,
      definition: { urls: desired.urls, scraperParams: {}, fields: desired.fields },
      descriptionsKnown: false,
      // Everything the service does not return, so the empty values recorded are never read as "none".
      unknown: {
        scraperParams: true,
        ...(names.length > 0 ? { descriptions: names, selectors: names } : {}),
        ...(desired.fields.some((f) => f.type === undefined)
          ? { types: desired.fields.filter((f) => f.type === undefined).map((f) => f.name) }
          : {}),
      },
    },
  };
}

/** Field names whose values are likely to move between two parses of the same page (prices, stock, times). */
const VOLATILE_NAME =
  /price|cost|amount|total|discount|date|time|stamp|updated|modified|published|stock|availab|count|views|visits|rank/i;
/** Values that look like a date, a time or an amount of money. */
const VOLATILE_VALUE = /\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}|[$€£¥₹]\s?\d|\d\s?[$€£¥₹]|\b(USD|EUR|GBP|JPY)\b/;
/** An expect pattern that matches any text holding something other than white space. */
const PRESENT = '~\\S';
/** At most this many checks per example page: enough to notice a field lost, few enough to stay stable. */
const CHECKS_PER_PAGE = 3;

/**
 * `expect` checks from the example results the service holds, so the first regeneration after import is checked
 * against what the parser extracted before: per example page, up to three top-level text fields that held a value
 * and do not look volatile, each as the pattern `~\S` (present and not blank) rather than the exact text, and
 * booleans as they were. Numbers are left out: exact numbers are prices and counts more often than not, and an
 * expect block cannot say "a number".
 */
export function expectedResults(
  examples: readonly { url: string; result: Record<string, unknown> }[],
): { url: string; result: Record<string, unknown> }[] {
  return examples.flatMap(({ url, result }) => {
    const checks = Object.entries(result)
      .filter(([name, value]) => {
        if (VOLATILE_NAME.test(name)) return false;
        if (typeof value === 'boolean') return true;
        return typeof value === 'string' && value.trim() !== '' && !VOLATILE_VALUE.test(value);
      })
      .slice(0, CHECKS_PER_PAGE)
      .map(([name, value]) => [name, typeof value === 'string' ? PRESENT : value] as const);
    return checks.length > 0 ? [{ url, result: Object.fromEntries(checks) }] : [];
  });
}

/**
 * A live project as a manifest, each field read the way plan reads it (PROJECT_FIELDS): a field the answer leaves
 * out is unknown, never a default. A project whose input or schedule the answer does not give (import-live.ts
 * reads it by id first), or that a manifest cannot declare, is passed over with why: written with a guess, its
 * manifest would make the next apply change it (a weekly project written as scrape-once turned off).
 */
export function importProject(out: string, live: LiveProject, name: string): ImportedObject | string {
  const skip = (why: string): string => `skipped project "${name}" (${live.id}): ${why}`;
  if (!(PROJECT_TYPES as readonly string[]).includes(live.projectType ?? ''))
    return skip(`unknown projectType ${String(live.projectType)}`);
  const input = PROJECT_FIELDS.projectInput.read(live) as WrittenProject['projectInput'] | undefined;
  if (input === undefined)
    return skip(
      'its answer does not give its input (a list, or a webhook_input URL), so it cannot be written',
    );
  const interval = PROJECT_FIELDS.scrapingInterval.read(live);
  const enabled = PROJECT_FIELDS.schedulingEnabled.read(live);
  if (interval === undefined || enabled === undefined)
    return skip(
      'its answer does not give its schedule (scrapingInterval and schedulingEnabled), so it cannot be written',
    );
  const once = interval === null || interval === 'once';
  if (once && enabled !== false)
    return skip(
      'it scrapes once with scheduling on, which a manifest cannot declare (a manifest without scrapingInterval turns scheduling off)',
    );
  const apiParams = (PROJECT_FIELDS.apiParams.read(live) ?? {}) as Record<string, unknown>;
  if (Object.values(apiParams).some((v) => v !== null && typeof v === 'object'))
    return skip('apiParams hold nested values a manifest cannot express');
  const webhook = PROJECT_FIELDS.webhookOutput.read(live);
  // Written as the manifest's vocabulary spells it: a service that answers `csv` holds CSV (same-value.ts).
  const format = OUTPUT_FORMATS.find((f) => sameWord(f, live.output_format));
  const written: WrittenProject = {
    kind: 'Project',
    name,
    projectType: live.projectType as WrittenProject['projectType'],
    projectInput: input,
    ...(once ? {} : { scrapingInterval: interval as string, schedulingEnabled: enabled as boolean }),
    ...(format !== undefined ? { output_format: format } : {}),
    ...(webhook !== null && webhook !== undefined
      ? { webhookOutput: webhook as WrittenProject['webhookOutput'] }
      : {}),
    ...(live.notificationConfig
      ? { notificationConfig: inVocabulary(live.notificationConfig) as WrittenProject['notificationConfig'] }
      : {}),
    ...(Object.keys(apiParams).length > 0
      ? { apiParams: apiParams as Record<string, string | number | boolean> }
      : {}),
  };
  const deep = tooDeepProblem(written);
  if (deep !== undefined) return skip(cannotHoldText(deep));
  const key = referenceKey(written);
  if (key !== undefined) return skip(`the key "${key}" has \${ in it, which a manifest key cannot hold`);
  const checked = ProjectManifestSchema.safeParse(written);
  if (!checked.success) return skip(cannotHold(checked.error.issues));
  const file = path.join(out, `project-${slug(name)}.yaml`);
  const desired = normaliseProject(written, { file, line: 1, column: 1 });
  const text = document(file, written);
  const unread = readBackProblem(file, text, 'Project', manifestData(written));
  if (unread !== undefined) return skip(cannotHoldText(unread));
  return {
    file,
    text,
    address: desired.address,
    resource: { kind: 'Project', id: live.id, name, definition: projectPayload(desired) },
  };
}

/** notificationConfig with each value the service wrote in another case (`DAILY`) as the manifest spells it. */
function inVocabulary(config: Record<string, unknown>): Record<string, unknown> {
  const words = [...NOTIFY_ON_SUCCESS, ...NOTIFY_ON_FAILURE];
  return Object.fromEntries(
    Object.entries(config).map(([key, value]) => [key, words.find((w) => sameWord(w, value)) ?? value]),
  );
}

/** A manifest as a person would write it: the schema line, then the document, no line wrapping. */
function document(file: string, value: WrittenParser | WrittenProject, notes: string[] = []): string {
  const schema = schemaReference(path.dirname(file));
  const hint = schema.installed
    ? ''
    : '# The schema above resolves once scrapeform is a dev dependency: npm install --save-dev scrapeform\n';
  const comments = notes.map((line) => `# ${line}\n`).join('');
  return `# yaml-language-server: $schema=${schema.path}\n${hint}# Imported by scrapeform import.\n${comments}${manifestYaml(manifestData(value))}`;
}

/** The document as written: every live string literal, so the next load reads back the live text. */
function manifestData(value: WrittenParser | WrittenProject): unknown {
  return literalValue({ apiVersion: 'scrapeform/v1', ...value });
}

/**
 * A key holding `${` (a field or parameter name), which no manifest can hold: keys are never interpolated, so a
 * loader refuses `${` and `$${` in one rather than guess (interpolate.ts). Its object is passed over with why.
 */
function referenceKey(value: unknown): string | undefined {
  if (Array.isArray(value)) return value.map(referenceKey).find((k) => k !== undefined);
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, inner] of Object.entries(value)) {
    if (key.includes('${')) return key;
    const found = referenceKey(inner);
    if (found !== undefined) return found;
  }
  return undefined;
}

function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'unnamed'
  );
}

/** Why a manifest cannot declare an object as the service holds it: the first problem its schema finds. */
function cannotHold(issues: readonly { path: PropertyKey[]; message: string }[]): string {
  const [issue] = issues;
  return cannotHoldText(
    issue !== undefined ? `${issue.path.map(String).join('.')}: ${issue.message}` : 'invalid',
  );
}

function cannotHoldText(why: string): string {
  return `a value a manifest cannot hold (${why})`;
}
