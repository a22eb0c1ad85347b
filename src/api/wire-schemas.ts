import * as z from 'zod';
import { archiveTime } from './archived-project.js';
import { notAFlag, quoted, readFlag } from './read-flag.js';

/**
 * What the services answer, checked at the boundary. Objects are loose (unknown fields pass through, since the
 * services may add some) but every field scrapeform relies on must be present with its type.
 * Seed 1 "Resources and their fields"; API-NOTES for the spellings both ways.
 */

export const ParserStatusSchema = z.string().min(1);

/**
 * A whole number written as a string of its digits (`"3"`), read as that number, only where a number holds it
 * exactly: two longer ones would read as one.
 */
function digitsAsNumber(tooLarge: string) {
  return z.string().regex(/^\d+$/).transform(Number).refine(Number.isSafeInteger, tooLarge);
}

/** Why a value is neither a whole number nor a string of its digits, naming what came instead (as zod does). */
function notWholeNumber(issue: { input?: unknown }): string {
  const input = issue.input;
  const received =
    typeof input === 'string'
      ? `string ${JSON.stringify(input.length > 40 ? `${input.slice(0, 40)}…` : input)}`
      : typeof input === 'number' || typeof input === 'boolean'
        ? `${typeof input} ${input}`
        : input === null
          ? 'null'
          : Array.isArray(input)
            ? 'array'
            : typeof input;
  return `expected a whole number or a string of its digits, received ${received}`;
}

/**
 * A parser version. Nothing says the service writes it as a JSON number: a version written as digits (`"3"`) is
 * read as the number, so state, plans and comparisons only ever see numbers (a `"3"` kept as text is no version 3
 * to `===`, and would plan a PATCH or a replace of a parser in line). Anything else is a bad response naming the
 * field.
 */
export const ParserVersionNumberSchema = z.union(
  [z.int().nonnegative(), digitsAsNumber('a numeric version too large to be read exactly')],
  { error: notWholeNumber },
);

export const ParserListItemSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  status: ParserStatusSchema,
  error: z.string().nullable().optional(),
  generated_at: z.string().nullable().optional(),
  version: ParserVersionNumberSchema,
});

/** A `fields` entry of details; children nested under it are read too (details-fields.ts). */
export const DetailsFieldSchema = z.looseObject({
  name: z.string().min(1),
  type: z.string().optional(),
  get fields() {
    return z.array(DetailsFieldSchema).nullable().optional();
  },
  get children() {
    return z.array(DetailsFieldSchema).nullable().optional();
  },
});
export const ExampleResultSchema = z.looseObject({
  url: z.string(),
  result: z.record(z.string(), z.unknown()),
});

/**
 * Details of one version. The published example has no `id`, and shows neither `version` nor `fields` (API-NOTES):
 * all three are optional here, and ParsersClient.get decides what a missing one means.
 */
export const ParserDetailsSchema = z.looseObject({
  id: z.string().optional(),
  name: z.string().optional(),
  created_at: z.string().nullable().optional(),
  generated_at: z.string().nullable().optional(),
  status: ParserStatusSchema,
  error: z.string().nullable().optional(),
  // API-NOTES: prose sometimes says example_results; accept both.
  example_result: z.array(ExampleResultSchema).nullable().optional(),
  example_results: z.array(ExampleResultSchema).nullable().optional(),
  fields: z.array(DetailsFieldSchema).nullable().optional(),
  version: ParserVersionNumberSchema.optional(),
});

export const ParserVersionSchema = z.looseObject({
  id: z.string().min(1).optional(),
  version: ParserVersionNumberSchema,
});
export const CreatedParserSchema = z.looseObject({
  id: z.string().min(1),
  version: ParserVersionNumberSchema,
});

export const ParseResultSchema = z.looseObject({
  parser: z.string().optional(),
  version: ParserVersionNumberSchema.optional(),
  result: z.record(z.string(), z.unknown()).nullable(),
});

/**
 * Project ids are numbers (API-NOTES); a numeric string is accepted and read as a number, only where a number holds
 * it exactly: two longer ids would read as one, and a PATCH or an archive of one would go to the other.
 */
export const ProjectIdSchema = z.union(
  [z.int(), digitsAsNumber('a numeric id too large to be read exactly')],
  {
    error: notWholeNumber,
  },
);

/**
 * A yes/no field as readFlag reads it (true, false, their strings in any case, 1, 0, or unset), kept as it came:
 * any other value is a bad response naming the field and the value (cut short), never guessed either way.
 */
const FlagSchema = z.unknown().refine((value) => readFlag(value) !== 'unreadable', {
  error: (issue) => notAFlag(issue.input),
});

/** An archive time as archiveTime reads it; one that says neither an archive nor none refuses the answer. */
const ArchiveTimeSchema = z.unknown().refine((value) => archiveTime(value) !== 'unreadable', {
  error: (issue) => `expected an archive time or none, got ${quoted(issue.input)}`,
});

export const ProjectSchema = z.looseObject({
  id: ProjectIdSchema,
  // A list may leave it out (the seed shows no project answer): ProjectsClient.list reads such a project by id.
  // A null one reads as absent.
  name: z.preprocess((value) => value ?? undefined, z.string().optional()),
  // Read as the archive marks are (readFlag): "false" or 0 from a service on string or integer columns is the no it
  // says, not a refused answer (every plan failed) nor a value unlike the one sent (drift that is none). A null one
  // reads as absent (readFlag: unset), as a missing one does: a field the answer does not show, never a false.
  schedulingEnabled: FlagSchema.transform((value) => readFlag(value) as boolean | undefined).optional(),
  scrapingInterval: z.string().nullable().optional(),
  scheduledAt: z.string().nullable().optional(),
  createdAt: z.string().nullable().optional(),
  projectType: z.string().optional(),
  // The entries are not checked here: one project of the account (managed or not) with entries of another shape
  // would fail every list. readProjectInput (project-fields.ts) reads entries that are not a list as unknown, as
  // entries left out or null.
  projectInput: z.looseObject({ type: z.string() }).nullable().optional(),
  projectOutput: z.looseObject({}).nullable().optional(),
  webhookOutput: z.looseObject({ url: z.string() }).nullable().optional(),
  notificationConfig: z.looseObject({}).nullable().optional(),
  apiParams: z.record(z.string(), z.unknown()).nullable().optional(),
  // API-NOTES: the seed says output_format, one source outputFormat; read both.
  output_format: z.string().nullable().optional(),
  outputFormat: z.string().nullable().optional(),
  // The archive marks archiveMark reads (archived-project.ts): a value of neither meaning refuses the answer, since
  // read as live a project someone archived is run and updated, and read as archived one is created again.
  archived: FlagSchema.optional(),
  isArchived: FlagSchema.optional(),
  is_archived: FlagSchema.optional(),
  archivedAt: ArchiveTimeSchema.optional(),
  archived_at: ArchiveTimeSchema.optional(),
});

/**
 * Job records are not documented (API-NOTES): only an id is relied on, a number or a string (a third-party page
 * shows strings), kept as it came. The status is any string; a null one reads as absent. See job-status.ts.
 */
export const JobSchema = z.looseObject({
  id: z.union([z.number(), z.string().min(1)]),
  status: z.preprocess((value) => value ?? undefined, z.string().optional()),
});
