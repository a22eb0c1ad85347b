import * as z from 'zod';
import {
  FIELD_NAMES_JSON_SCHEMA,
  FieldSchema,
  ParserManifestSchema,
  ScraperParamsSchema,
} from './parser-schema.js';
import { ProjectManifestSchema, SCHEDULE_JSON_SCHEMA } from './project-schema.js';
import { ENVIRONMENT_VARIABLE_NAME } from '../model/vocabulary.js';
import { API_VERSION, HttpUrlSchema, IDENTIFIER, ResourceNameSchema } from './schema-parts.js';
import { ENVIRONMENT_NAME } from './project-file-names.js';

/**
 * The manifest format (DESIGN section 1), as the user writes it. Every user-facing key carries `.describe()`,
 * which becomes hover text in editors through the generated JSON Schema.
 *
 * Refinements are dropped by `z.toJSONSchema`, so they are kept to the few checks JSON Schema cannot say:
 * a cron expression that croner accepts and that can fire, and a URL without credentials. Where a rule lives in
 * `rules.ts` (so it can point at the exact key) but JSON Schema can still say it, `.meta()` carries the JSON
 * Schema form for editors (`propertyNames`, `if`/`then`, `oneOf`); docs/manifests.md lists what stays unsaid.
 */

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
      .regex(ENVIRONMENT_VARIABLE_NAME, {
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
