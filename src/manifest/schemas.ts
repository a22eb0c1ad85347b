import { createRequire } from 'node:module';
import type { Cron } from 'croner';
import * as z from 'zod';
import {
  DEVICE_TYPES,
  FIELD_TYPES,
  NAMED_INTERVALS,
  NOTIFY_ON_FAILURE,
  NOTIFY_ON_SUCCESS,
  OUTPUT_FORMATS,
  PROJECT_DIFFABLE_KEYS,
  PROJECT_TYPES,
  WEBHOOK_ENCODINGS,
} from '../model/vocabulary.js';
import type { FieldType } from '../model/vocabulary.js';

/**
 * The manifest format (DESIGN section 1), as the user writes it. Every user-facing key carries `.describe()`,
 * which becomes hover text in editors through the generated JSON Schema.
 *
 * Refinements are dropped by `z.toJSONSchema`, so they are kept to the few checks JSON Schema cannot say:
 * a cron expression that croner accepts and that can fire, and a URL without credentials. Where a rule lives in
 * `rules.ts` (so it can point at the exact key) but JSON Schema can still say it, `.meta()` carries the JSON
 * Schema form for editors (`propertyNames`, `if`/`then`, `oneOf`); docs/manifests.md lists what stays unsaid.
 */

export const API_VERSION = 'scrapeform/v1';

/** A URL with a user name or password in it; such URLs are refused so no secret reaches a plan, log or state. */
export function hasCredentials(value: string): boolean {
  // User info ends with '@': without one there is nothing to find, and no URL to parse (most entries of a list).
  if (!value.includes('@') || !URL.canParse(value)) return false;
  const url = new URL(value);
  return url.username !== '' || url.password !== '';
}

export const URL_CREDENTIALS_MESSAGE =
  'must not hold a user name or password (user:secret@): they would be shown in plans and stored in state';

const HttpUrlSchema = z
  .url({
    protocol: /^https?$/,
    hostname: z.regexes.hostname,
    error: 'must be an absolute http:// or https:// URL',
  })
  .refine((value) => !hasCredentials(value), {
    error: URL_CREDENTIALS_MESSAGE,
    params: { code: 'manifest.url-credentials' },
  })
  .meta({ pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#@]+([/?#].*)?$' });

/* eslint-disable no-control-regex -- these patterns exist to refuse control characters */
/** Names hold no control characters at all. */
const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f-\u009f]*$/;
/** Descriptions may span lines and hold tabs, but no other control character (NUL included). */
const TEXT_CONTROL_CHARACTERS = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]*$/;
/** JSON Schema form of the field-name rule in rules.ts: not blank, no dot, no control characters. */
const FIELD_NAME_PATTERN = '^(?=.*\\S)[^.\\u0000-\\u001f\\u007f-\\u009f]+$';
/* eslint-enable no-control-regex */

/**
 * Names every JavaScript object inherits (`__proto__`, `constructor`, `toString`…). A field so named would be
 * dropped or shadowed by a plain object somewhere between the manifest and the request, so it is refused.
 */
export const RESERVED_FIELD_NAMES = [
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
  '__proto__',
  'constructor',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  'toString',
  'valueOf',
] as const;

const FIELD_NAMES_JSON_SCHEMA = {
  propertyNames: { pattern: FIELD_NAME_PATTERN, not: { enum: [...RESERVED_FIELD_NAMES] } },
};

const ResourceNameSchema = z
  .string()
  .min(1, { error: 'must not be empty' })
  .max(200, { error: 'must be at most 200 characters' })
  .regex(NO_CONTROL_CHARACTERS, { error: 'must not hold control characters (NUL, escape, …)' });

export const FieldTypeSchema = z
  .enum(FIELD_TYPES)
  .describe('Input type of the field: string, number or array (a parent with `fields` is always array).');

export interface WrittenField {
  description: string;
  type?: FieldType | undefined;
  selector?: string | undefined;
  renamed_from?: string | undefined;
  fields?: Record<string, WrittenField> | undefined;
}

export const FieldSchema: z.ZodType<WrittenField> = z
  .strictObject({
    description: z
      .string({ error: 'description is required: say what the field holds; the more specific, the better' })
      .trim()
      .min(1, { error: 'description must not be empty' })
      .regex(TEXT_CONTROL_CHARACTERS, {
        error: 'description must not hold control characters other than tab and line breaks (NUL, escape, …)',
      })
      // zod trims before `min(1)`; JSON Schema cannot trim, so it refuses a blank description this way.
      .meta({ not: { pattern: '^\\s*$' } })
      .describe('What the field holds; the more specific, the better the extraction.'),
    type: FieldTypeSchema.optional(),
    selector: z
      .string()
      .min(1, { error: 'selector must not be empty' })
      .optional()
      .describe(
        'CSS or XPath selector; optional, often gives more reliable results. `img@src` reads an attribute.',
      ),
    renamed_from: z
      .string()
      .min(1, { error: 'renamed_from must not be empty' })
      .meta({ pattern: '^[^.]+$' })
      .optional()
      .describe(
        'The name this field had before (a sibling name). Sent as rename_fields, never as remove + add; ignored once applied.',
      ),
    get fields() {
      return z
        .record(z.string(), FieldSchema)
        .meta({ ...FIELD_NAMES_JSON_SCHEMA, minProperties: 1 })
        .optional()
        .describe('Child fields: makes this field an array parent; sent as `<parent>.<child>`.');
    },
  })
  .describe('One field the parser extracts.')
  .meta({
    id: 'Field',
    // rules.ts reports this with its place (manifest.parent-type); the schema says it for editors.
    if: { required: ['fields'] },
    then: { properties: { type: { const: 'array' } } },
  });

export const ScraperParamsSchema = z
  .strictObject({
    render: z.boolean().optional().describe('Enables JavaScript rendering.'),
    country_code: z
      .string()
      .regex(/^[A-Za-z]{2}$/, { error: 'must be a two-letter country code, such as us or de' })
      .optional()
      .describe('Two-letter country code.'),
    premium: z.boolean().optional().describe('Use residential proxies.'),
    session_number: z
      .int()
      .min(1, { error: 'must be at least 1 (sessions are numbered from 1)' })
      .optional()
      .describe('Keep the same IP across requests; a session number from 1.'),
    keep_headers: z.boolean().optional().describe('Preserve custom headers sent.'),
    device_type: z.enum(DEVICE_TYPES).optional().describe('desktop or mobile.'),
    ultra_premium: z.boolean().optional().describe('Use advanced unblocking mechanisms.'),
    follow_redirect: z.boolean().optional().describe('Follow HTTP redirects; the service default is true.'),
    retry_404: z.boolean().optional().describe('Retry 404 responses.'),
  })
  .describe('Scraping parameters used to fetch the example pages (seed 1, "Scraping parameters").');

export const ExpectSchema = z
  .strictObject({
    url: HttpUrlSchema.describe('Page to parse.'),
    result: z
      .record(z.string(), z.unknown())
      .describe(
        'Partial expected result: listed keys must match; a string starting with ~ is a regular expression.',
      ),
  })
  .describe('A check of extracted output, run by `scrapeform test` and after apply.');

/** An object's address as state knows it: `parser.NAME` or `project.NAME`. */
const AddressSchema = z
  .string()
  .regex(/^(parser|project)\.\S/, { error: 'must be an address: parser.NAME or project.NAME' });

/** `moved:` hints (Terraform's moved blocks): the state entry at `from` is moved to `to` instead of delete + create. */
export const MovedSchema = z
  .array(
    z
      .strictObject({
        from: AddressSchema.describe('The address state knows the object by (its former name).'),
        to: AddressSchema.describe('Its address now: an object a manifest declares.'),
      })
      .describe('One move: state at `from` becomes state at `to`; ignored once applied.'),
  )
  .describe(
    'Renames of objects, as Terraform moved blocks: the object state knows at `from` is the one declared at `to`, so it is kept (its state moves) instead of deleted and created again. ${each.KEY} may be used in a for_each manifest.',
  );

export const ParserManifestSchema = z
  .strictObject({
    apiVersion: z
      .literal(API_VERSION)
      .optional()
      .describe('Manifest format version; scrapeform/v1 when omitted.'),
    kind: z.literal('Parser').describe('Parser: an AI parser of the parser service.'),
    name: ResourceNameSchema.describe("The parser's name in the service; unique among Parser manifests."),
    urls: z
      .array(HttpUrlSchema, { error: 'must be a list of 1 to 3 example URLs' })
      .min(1, { error: 'needs at least 1 example URL' })
      .max(3, { error: 'takes at most 3 example URLs (the service accepts 1 to 3)' })
      .describe('1 to 3 example pages of one page type.'),
    scraper_params: ScraperParamsSchema.optional(),
    fields: z
      .record(z.string(), FieldSchema)
      .meta(FIELD_NAMES_JSON_SCHEMA)
      .optional()
      .describe('The fields to extract, as a map: order does not matter, names cannot repeat.'),
    lifecycle: z
      .strictObject({
        prevent_destroy: z
          .boolean()
          .optional()
          .describe('Plan fails rather than delete or replace this parser.'),
      })
      .optional()
      .describe('Safety settings.'),
    adopt: z
      .boolean()
      .optional()
      .describe(
        'Allow apply to take over a live parser of this name that no state manages (otherwise apply needs --allow-adopt).',
      ),
    expect: z.array(ExpectSchema).optional().describe('Checks of extracted output.'),
    moved: MovedSchema.optional(),
  })
  .describe('A ScraperAPI AI parser.');

/** An input entry: any text, but a URL in it carries no credentials. */
const ListEntrySchema = z
  .string()
  .min(1)
  .refine((value) => !hasCredentials(value), {
    error: URL_CREDENTIALS_MESSAGE,
    params: { code: 'manifest.url-credentials' },
  })
  .meta({ not: { pattern: '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#@]*@' } });

const ListInputSchema = z
  .strictObject({
    type: z.literal('list').describe('An inline list, or a file of one entry a line.'),
    list: z
      .array(ListEntrySchema)
      .min(1, { error: 'list must hold at least one entry' })
      .optional()
      .describe('URLs, search terms or identifiers.'),
    file: z
      .string()
      .min(1)
      .optional()
      .describe(
        'A file of one entry a line, relative to this manifest (blank lines and # comments skipped).',
      ),
  })
  .describe('Inputs given inline (`list`) or in a file (`file`); exactly one of the two.')
  // rules.ts reports this with its place (manifest.project-input); the schema says it for editors.
  .meta({ oneOf: [{ required: ['list'] }, { required: ['file'] }] });

const WebhookInputSchema = z
  .strictObject({
    type: z.literal('webhook_input'),
    url: HttpUrlSchema.describe('Address that returns a newline-delimited list of inputs.'),
  })
  .describe('Inputs fetched from an address when each job starts.');

export const ProjectInputSchema = z
  .discriminatedUnion('type', [ListInputSchema, WebhookInputSchema])
  .describe('Source of the inputs.');

/** A fixed date to ask croner from: a five-field expression that fires at all fires within years of any date. */
const CRON_REFERENCE_DATE = new Date(Date.UTC(2000, 0, 1));

let loadedCron: typeof Cron | undefined;

/** croner, loaded when a cron expression is first checked: most runs have none, and start-up pays per module. */
function cronClass(): typeof Cron {
  loadedCron ??= (createRequire(import.meta.url)('croner') as { Cron: typeof Cron }).Cron;
  return loadedCron;
}

/**
 * What is wrong with a scrapingInterval, if anything: five cron fields (minute hour day month weekday) that
 * croner accepts and that match some date. A refinement because JSON Schema cannot check the last two.
 */
function intervalProblem(value: string): string | undefined {
  if ((NAMED_INTERVALS as readonly string[]).includes(value)) return undefined;
  const count = value.trim() === '' ? 0 : value.trim().split(/\s+/).length;
  const generic = 'must be hourly, daily, weekly, monthly or a valid cron expression';
  if (count !== 5) {
    return count > 2
      ? `must be hourly, daily, weekly, monthly or a cron expression of 5 fields (minute hour day month weekday), got ${count} fields`
      : generic;
  }
  // Many objects share a few schedules (a for_each over minutes): croner's parse and search run once for each.
  const known = cronProblems.get(value);
  if (known !== undefined) return known === '' ? undefined : known;
  let problem = '';
  try {
    const cron = new (cronClass())(value, { paused: true });
    if (cron.nextRun(CRON_REFERENCE_DATE) === null) {
      problem = 'the cron expression never fires: no date matches it (such as February 30)';
    }
  } catch {
    problem = generic;
  }
  if (cronProblems.size >= MAX_CRON_MEMO) cronProblems.clear();
  cronProblems.set(value, problem);
  return problem === '' ? undefined : problem;
}

/** Cron expressions checked so far and their problem ('' for none); bounded, so a long watch cannot grow it. */
const cronProblems = new Map<string, string>();
const MAX_CRON_MEMO = 10_000;

export const ScrapingIntervalSchema = z
  .string()
  .superRefine((value, ctx) => {
    const problem = intervalProblem(value);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({ anyOf: [{ enum: [...NAMED_INTERVALS] }, { pattern: '^\\s*\\S+(\\s+\\S+){4}\\s*$' }] })
  .describe('hourly | daily | weekly | monthly | a cron expression; omitted = scrape once.');

export const ScheduledAtSchema = z
  .union([
    z.literal('now'),
    z.iso.datetime({
      offset: true,
      error: 'must be an ISO 8601 date-time with a time zone (2026-01-31T06:00:00Z) or the word now',
    }),
  ])
  .describe('Next run time, ISO 8601 or now; a one-shot trigger, sent on create, never diffed afterwards.');

export const WebhookOutputSchema = z
  .strictObject({
    url: HttpUrlSchema.describe('Address called with the results of jobs.'),
    webhookEncoding: z
      .enum(WEBHOOK_ENCODINGS)
      .optional()
      .describe('Encode the results as multipart form data.'),
  })
  .describe('Result callback; null removes it.');

export const NotificationConfigSchema = z
  .strictObject({
    notifyOnSuccess: z.enum(NOTIFY_ON_SUCCESS).optional().describe('never | with_every_run | daily | weekly'),
    notifyOnFailure: z.enum(NOTIFY_ON_FAILURE).optional().describe('with_every_run | daily | weekly'),
  })
  .describe('Email notification settings; sent whole, missing keys filled with the service defaults.');

const SCHEDULE_JSON_SCHEMA = {
  if: { properties: { schedulingEnabled: { const: true } }, required: ['schedulingEnabled'] },
  then: { required: ['scrapingInterval'] },
};

export const ProjectManifestSchema = z
  .strictObject({
    apiVersion: z
      .literal(API_VERSION)
      .optional()
      .describe('Manifest format version; scrapeform/v1 when omitted.'),
    kind: z.literal('Project').describe('Project: a DataPipeline project.'),
    name: ResourceNameSchema.describe(
      "The project's name (a label in the service); unique among Project manifests.",
    ),
    projectType: z
      .enum(PROJECT_TYPES)
      .describe('What the project scrapes; exactly one of the service values.'),
    projectInput: ProjectInputSchema,
    scrapingInterval: ScrapingIntervalSchema.optional(),
    scheduledAt: ScheduledAtSchema.optional(),
    schedulingEnabled: z
      .boolean()
      .optional()
      .describe('When false the project is not rescheduled after its next run.'),
    output_format: z.enum(OUTPUT_FORMATS).optional().describe('JSON or CSV.'),
    webhookOutput: WebhookOutputSchema.nullable().optional(),
    notificationConfig: NotificationConfigSchema.optional(),
    apiParams: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
      .optional()
      .describe('Parameters of the asynchronous scraping interface, sent whole.'),
    lifecycle: z
      .strictObject({
        prevent_destroy: z.boolean().optional().describe('Plan fails rather than archive this project.'),
        ignore_changes: z
          .array(z.enum(PROJECT_DIFFABLE_KEYS))
          .optional()
          .describe('Top-level fields never diffed after create.'),
      })
      .optional()
      .describe('Safety and diff settings.'),
    adopt: z
      .boolean()
      .optional()
      .describe(
        'Allow apply to take over a live project of this name that no state manages (otherwise apply needs --allow-adopt).',
      ),
    moved: MovedSchema.optional(),
  })
  .describe('A ScraperAPI DataPipeline project.')
  // rules.ts reports this with its place (manifest.schedule); the schema says it for editors.
  .meta(SCHEDULE_JSON_SCHEMA);

export type WrittenParser = z.infer<typeof ParserManifestSchema>;
export type WrittenProject = z.infer<typeof ProjectManifestSchema>;

/** A name of a template, a variable or an environment: what `${var.NAME}` and `extends:` can spell. */
export const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

const ExtendsSchema = z
  .string()
  .min(1, { error: 'must not be empty' })
  .describe(
    'The name of a template (ParserTemplate for a Parser, ProjectTemplate for a Project) this manifest starts from: its own keys override, fields merge by name, a key set to null drops an inherited one.',
  );

const ForEachElementSchema = z
  .record(z.string().regex(IDENTIFIER), z.unknown())
  .meta({ propertyNames: { pattern: IDENTIFIER.source } })
  .describe('One instance: its keys are read as ${each.KEY}.');

export const ForEachSchema = z
  .union([
    z.array(ForEachElementSchema),
    z
      .strictObject({
        matrix: z
          .record(
            z.string().regex(IDENTIFIER),
            z.array(z.union([z.string(), z.number(), z.boolean()])).min(1),
          )
          .meta({ propertyNames: { pattern: IDENTIFIER.source }, minProperties: 1 })
          .describe('Lists of values: one instance per combination, ${each.AXIS} naming its value.'),
      })
      .describe('Every combination of the lists (as a matrix generator does).'),
    z
      .string()
      .regex(/^\$\{var\.[A-Za-z_][A-Za-z0-9_]*\}$/)
      .describe('${var.NAME}: a list variable of maps, or a map variable holding a matrix.'),
  ])
  .describe(
    'Makes one object per element of a list of maps, or per combination of a matrix; ${each.KEY} in names, urls, parameters and descriptions reads the element. `for_each: ${var.NAME}` takes the list from a variable.',
  );

/** The keys a manifest has only as written, gone once it is expanded (extends, for_each, x- fragments). */
export const EXPANSION_KEYS = ['extends', 'for_each'] as const;

/** Top-level keys starting with `x-` hold shared fragments (anchors) and are otherwise ignored, as in compose. */
export function isExtensionKey(key: string): boolean {
  return key.startsWith('x-');
}

/** What a ParserTemplate may hold besides its name: the keys a Parser inherits. */
export const PARSER_TEMPLATE_KEYS = ['urls', 'scraper_params', 'fields', 'lifecycle', 'expect'] as const;
export const PROJECT_TEMPLATE_KEYS = Object.keys(ProjectManifestSchema.shape).filter(
  (key) => !['apiVersion', 'kind', 'name', 'moved'].includes(key),
);

/** A field of a template or an extending manifest: null drops the field it would inherit. */
const InheritedFieldsSchema = z
  .record(z.string(), FieldSchema.nullable())
  .meta(FIELD_NAMES_JSON_SCHEMA)
  .optional()
  .describe('Fields to add or override by name; a field set to null drops an inherited one.');

const TemplateHead = {
  apiVersion: z
    .literal(API_VERSION)
    .optional()
    .describe('Manifest format version; scrapeform/v1 when omitted.'),
  name: ResourceNameSchema.describe(
    "The template's name, named by `extends:`; unique among templates of its kind.",
  ),
  extends: ExtendsSchema.optional(),
};

export const ParserTemplateSchema = z
  .strictObject({
    ...TemplateHead,
    kind: z
      .literal('ParserTemplate')
      .describe('ParserTemplate: keys that Parser manifests inherit with extends.'),
    urls: ParserManifestSchema.shape.urls.optional(),
    scraper_params: ScraperParamsSchema.optional(),
    fields: InheritedFieldsSchema,
    lifecycle: ParserManifestSchema.shape.lifecycle,
    expect: ParserManifestSchema.shape.expect,
  })
  .describe('A reusable base for parsers; not an object of the service.');

export const ProjectTemplateSchema = z
  .strictObject({
    ...ProjectManifestSchema.omit({ moved: true }).partial().shape,
    ...TemplateHead,
    kind: z
      .literal('ProjectTemplate')
      .describe('ProjectTemplate: keys that Project manifests inherit with extends.'),
  })
  .describe('A reusable base for projects; not an object of the service.');

/**
 * The manifests as written, for the JSON Schema: `extends` and `for_each` may appear, and a manifest with
 * `extends` needs none of the keys its template may give (json-schema.ts relaxes `required` for it).
 */
export const WrittenParserSchema = ParserManifestSchema.extend({
  extends: ExtendsSchema.optional(),
  for_each: ForEachSchema.optional(),
  fields: InheritedFieldsSchema,
});
export const WrittenProjectSchema = ProjectManifestSchema.extend({
  extends: ExtendsSchema.optional(),
  for_each: ForEachSchema.optional(),
}).meta(SCHEDULE_JSON_SCHEMA);

export const VARIABLE_TYPES = ['string', 'number', 'boolean', 'list', 'map'] as const;
export type VariableType = (typeof VARIABLE_TYPES)[number];

export const VariableSchema = z
  .strictObject({
    type: z
      .enum(VARIABLE_TYPES)
      .describe('string, number, boolean, list or map; values are checked against it.'),
    default: z.unknown().optional().describe('The value when an environment gives none.'),
    description: z.string().optional().describe('What the variable is for.'),
  })
  .describe('A typed variable, read as ${var.NAME} in manifests.');

const ENV_VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ENVIRONMENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

export const EnvironmentSchema = z
  .strictObject({
    paths: z
      .array(z.string().min(1))
      .min(1, { error: 'paths must list at least one file or folder' })
      .optional()
      .describe(
        'Files or folders read in this environment, relative to scrapeform.yaml; its folder when omitted.',
      ),
    exclude: z
      .array(z.string().min(1))
      .optional()
      .describe('Paths left out, in gitignore syntax relative to scrapeform.yaml (as a .scrapeformignore).'),
    variables: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Values of the declared variables in this environment.'),
    varFiles: z
      .array(z.string().min(1))
      .optional()
      .describe('YAML files of variable values (NAME: value), relative to scrapeform.yaml; later ones win.'),
    state: z
      .string()
      .min(1)
      .optional()
      .describe('State file, or a postgres:// URL (write ${VARIABLE} for one holding a password).'),
    workspace: z.string().min(1).optional().describe('Workspace in a database state backend.'),
    apiKeyEnv: z
      .string()
      .regex(ENV_VARIABLE_NAME, {
        error: 'must be the name of an environment variable, such as SCRAPERAPI_PROD_KEY',
      })
      .optional()
      .describe("The environment variable that holds this environment's API key (never the key itself)."),
    parserUrl: HttpUrlSchema.optional().describe('Parser service origin in this environment.'),
    pipelineUrl: HttpUrlSchema.optional().describe('DataPipeline origin in this environment.'),
  })
  .describe('One environment: what is read, with which variables, against which state, key and services.');

export const ConfigSchema = z
  .strictObject({
    apiVersion: z
      .literal(API_VERSION)
      .optional()
      .describe('Manifest format version; scrapeform/v1 when omitted.'),
    kind: z.literal('Config').describe('Config: the project file, scrapeform.yaml at the root.'),
    variables: z
      .record(
        z.string().regex(IDENTIFIER, { error: 'a variable name is letters, digits and _' }),
        VariableSchema,
      )
      .meta({ propertyNames: { pattern: IDENTIFIER.source } })
      .optional()
      .describe('Typed variables that manifests read as ${var.NAME}.'),
    environments: z
      .record(
        z.string().regex(ENVIRONMENT_NAME, { error: 'an environment name is letters, digits, _, . and -' }),
        EnvironmentSchema,
      )
      .meta({ propertyNames: { pattern: ENVIRONMENT_NAME.source } })
      .optional()
      .describe('Named environments, chosen with --env NAME.'),
  })
  .describe('scrapeform.yaml: variables and environments of the project whose root holds it.');

export type WrittenConfig = z.infer<typeof ConfigSchema>;
export type WrittenEnvironment = z.infer<typeof EnvironmentSchema>;

export const ManifestSchema = z
  .discriminatedUnion('kind', [ParserManifestSchema, ProjectManifestSchema])
  .describe('A scrapeform manifest: kind Parser or kind Project.');

/** Every kind a file may hold, as written, for the JSON Schema. */
export const WrittenManifestSchema = z
  .discriminatedUnion('kind', [
    WrittenParserSchema,
    WrittenProjectSchema,
    ParserTemplateSchema,
    ProjectTemplateSchema,
    ConfigSchema,
  ])
  .describe(
    'A scrapeform manifest: kind Parser, Project, ParserTemplate or ProjectTemplate; or kind Config in scrapeform.yaml.',
  );

export const MANIFEST_KINDS = ['Parser', 'Project'] as const;
export type ManifestKind = (typeof MANIFEST_KINDS)[number];
export const TEMPLATE_KINDS = ['ParserTemplate', 'ProjectTemplate'] as const;
export type TemplateKind = (typeof TEMPLATE_KINDS)[number];

export function schemaForKind(
  kind: ManifestKind,
): typeof ParserManifestSchema | typeof ProjectManifestSchema {
  return kind === 'Parser' ? ParserManifestSchema : ProjectManifestSchema;
}
