import * as z from 'zod';
import { DEVICE_TYPES, FIELD_TYPES } from '../model/vocabulary.js';
import type { FieldType } from '../model/vocabulary.js';
import {
  API_VERSION,
  HttpUrlSchema,
  MovedSchema,
  ResourceNameSchema,
  TEXT_CONTROL_CHARACTERS,
} from './schema-parts.js';

/* A Parser manifest as the user writes it (see schemas.ts for what the schemas carry and why). */

/** JSON Schema form of the field-name rule in rules.ts: not blank, no dot, no control characters. */
const FIELD_NAME_PATTERN = '^(?=.*\\S)[^.\\u0000-\\u001f\\u007f-\\u009f]+$';

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

export const FIELD_NAMES_JSON_SCHEMA = {
  propertyNames: { pattern: FIELD_NAME_PATTERN, not: { enum: [...RESERVED_FIELD_NAMES] } },
};

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

export type WrittenParser = z.infer<typeof ParserManifestSchema>;
