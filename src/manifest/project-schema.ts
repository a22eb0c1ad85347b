import { createRequire } from 'node:module';
import type { Cron } from 'croner';
import * as z from 'zod';
import {
  NAMED_INTERVALS,
  NOTIFY_ON_FAILURE,
  NOTIFY_ON_SUCCESS,
  OUTPUT_FORMATS,
  PROJECT_DIFFABLE_KEYS,
  PROJECT_TYPES,
  WEBHOOK_ENCODINGS,
} from '../model/vocabulary.js';
import {
  API_VERSION,
  hasCredentials,
  HttpUrlSchema,
  MovedSchema,
  ResourceNameSchema,
  URL_CREDENTIALS_MESSAGE,
} from './schema-parts.js';

/* A Project manifest as the user writes it (see schemas.ts for what the schemas carry and why). */

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

export const SCHEDULE_JSON_SCHEMA = {
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

export type WrittenProject = z.infer<typeof ProjectManifestSchema>;
