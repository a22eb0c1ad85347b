import * as z from 'zod';
import { DEVICE_TYPES, FIELD_TYPES } from '../model/vocabulary.js';
import type { ScraperParams } from '../model/vocabulary.js';
import { PLAN_FORMAT_VERSION } from './model.js';
import type { UnknownValues } from '../state/model.js';

/*
 * The saved plan (`plan --out`, format_version 1) read back for `apply --plan`. Key order in each object schema is
 * the order scrapeform writes, so a plan read back renders byte for byte as it was saved.
 */

const FieldSchema = z.object({
  name: z.string(),
  description: z.string(),
  type: z.enum(FIELD_TYPES).optional(),
  selector: z.string().optional(),
});

const FieldDefinitionSchema = FieldSchema.omit({ name: true });

/** Keys in sorted order, as manifests are normalised (SCRAPING_PARAMETERS has the types). */
const ScraperParamsSchema = z.object({
  country_code: z.string().optional(),
  device_type: z.enum(DEVICE_TYPES).optional(),
  follow_redirect: z.boolean().optional(),
  keep_headers: z.boolean().optional(),
  premium: z.boolean().optional(),
  render: z.boolean().optional(),
  retry_404: z.boolean().optional(),
  session_number: z.int().optional(),
  ultra_premium: z.boolean().optional(),
}) satisfies z.ZodType<ScraperParams>;

const ParserDefinitionSchema = z.object({
  urls: z.array(z.string()),
  scraperParams: ScraperParamsSchema,
  fields: z.array(FieldSchema),
});

export const FieldOperationsSchema = z.object({
  remove_fields: z.array(z.string()).optional(),
  rename_fields: z.array(z.object({ name: z.string(), new_name: z.string() })).optional(),
  modify_fields: z.array(FieldSchema).optional(),
  add_fields: z.array(FieldSchema).optional(),
});

const JsonObjectSchema = z.record(z.string(), z.unknown());

const PlannedRequestSchema = z.object({
  service: z.enum(['parser', 'pipeline']),
  method: z.enum(['POST', 'PATCH', 'DELETE']),
  path: z.string(),
  body: JsonObjectSchema.optional(),
  chained: z.boolean().optional(),
  waitAfter: z.boolean().optional(),
});

const UnknownValuesSchema = z.object({
  scraperParams: z.literal(true).optional(),
  descriptions: z.array(z.string()).optional(),
  selectors: z.array(z.string()).optional(),
  types: z.array(z.string()).optional(),
}) satisfies z.ZodType<UnknownValues>;

const ChangeRecordSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('Parser'),
    baseVersion: z.int().nullable(),
    definition: ParserDefinitionSchema,
    descriptionsKnown: z.boolean(),
    generates: z.boolean(),
    unknown: UnknownValuesSchema.optional(),
  }),
  z.object({ kind: z.literal('Project'), definition: JsonObjectSchema }),
  z.object({ kind: z.literal('none') }),
]);

const FieldChangeSchema = z.object({
  change: z.enum(['add', 'modify', 'remove', 'rename']),
  field: z.string(),
  from: z.string().optional(),
  before: FieldDefinitionSchema.optional(),
  after: FieldDefinitionSchema.optional(),
  breaking: z.boolean(),
  note: z.string().optional(),
});

const ValueChangeSchema = z.object({
  field: z.string(),
  before: z.unknown().optional(),
  after: z.unknown(),
});

const ReplacedParserSchema = z.object({
  urls: z.array(z.string()).optional(),
  scraper_params: ScraperParamsSchema.optional(),
  field_changes: z.array(FieldChangeSchema),
  unchanged: z.array(z.string()),
});

const ResourceChangeSchema = z.object({
  address: z.string(),
  kind: z.enum(['Parser', 'Project']),
  name: z.string(),
  id: z.union([z.string(), z.int(), z.null()]),
  action: z.enum(['create', 'update', 'replace', 'delete', 'archive', 'adopt', 'record', 'forget']),
  reasons: z.array(z.string()),
  // Absent in plans saved before it was part of the format, and for objects written out in one manifest.
  origin: z.string().optional(),
  regenerates: z.boolean(),
  destructive: z.boolean(),
  requests: z.array(PlannedRequestSchema),
  field_changes: z.array(FieldChangeSchema),
  value_changes: z.array(ValueChangeSchema).optional(),
  replaced: ReplacedParserSchema.optional(),
  breaking: z.array(z.string()),
  record: ChangeRecordSchema,
  input_summary: z.string().optional(),
});

const KindSchema = z.enum(['Parser', 'Project']);

/** The public plan format, `format_version` 1 (README, "The plan format"). */
export const PlanFileSchema = z.object({
  format_version: z.literal(PLAN_FORMAT_VERSION),
  status: z.enum(['changes', 'no_changes']),
  summary: z.object({
    create: z.int(),
    update: z.int(),
    replace: z.int(),
    delete: z.int(),
    archive: z.int(),
    adopt: z.int(),
    regenerations: z.int(),
    estimated_credits: z.int(),
  }),
  resource_changes: z.array(ResourceChangeSchema),
  drift: z.array(z.object({ address: z.string(), kind: KindSchema, message: z.string() })),
  warnings: z.array(z.string()),
  fingerprint: z.object({
    state_lineage: z.string(),
    state_serial: z.int(),
    live: z.record(z.string(), z.string()),
    target: z
      .object({
        environment: z.string().nullable(),
        parsers: z.string(),
        projects: z.string(),
        // Absent in plans saved before it was recorded: still read (stale-plan.ts judges them).
        state: z.object({ workspace: z.string(), location: z.string() }).optional(),
        // Absent in plans saved before it was recorded: applied with any key, as before.
        account: z.object({ salt: z.string(), sha256: z.string() }).optional(),
      })
      .optional(),
  }),
  moved: z
    .array(
      z.object({
        from: z.string(),
        to: z.string(),
        kind: KindSchema,
        id: z.union([z.string(), z.int()]),
        name: z.string(),
      }),
    )
    .optional(),
  expect_checks: z.array(z.object({ address: z.string(), urls: z.array(z.string()) })).optional(),
  // Absent for a whole plan, and in partial plans saved before it was recorded (their warning says it instead).
  selection: z
    .object({ targets: z.array(z.string()), excludes: z.array(z.string()), paths: z.array(z.string()) })
    .optional(),
});
export type PlanFile = z.infer<typeof PlanFileSchema>;
export type ChangeFile = z.infer<typeof ResourceChangeSchema>;
