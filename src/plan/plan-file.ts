import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ScrapeformError } from '../errors.js';
import { formatKeyPath } from '../manifest/diagnostic.js';
import { DEVICE_TYPES, FIELD_TYPES } from '../model/vocabulary.js';
import type { ScraperParams } from '../model/vocabulary.js';
import { PLAN_FORMAT_VERSION } from './model.js';
import type { FieldOperations } from '../model/wire.js';
import type { ParserDefinition, UnknownValues } from '../state/model.js';
import type { Plan, ResourceChange } from './model.js';
import { stable } from './plan-context.js';
import { toPlanJson, toResourceChangeJson } from './plan-json.js';
import type { PlannedRequest } from './plan-json.js';

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

const FieldOperationsSchema = z.object({
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
});
export type PlanFile = z.infer<typeof PlanFileSchema>;
type ChangeFile = z.infer<typeof ResourceChangeSchema>;

/** The key of a saved plan that holds the digest of the rest of the file; always the last key. */
const DIGEST_KEY = 'digest';

/**
 * The text `plan --out` saves: the public plan JSON (what `plan --json` prints, byte for byte) with a last key,
 * `digest`, the SHA-256 of that JSON. Apply takes the file only when the digest matches, so every byte of the
 * reviewed plan is the plan applied.
 */
export function renderSavedPlan(plan: Plan): string {
  const content = toPlanJson(plan);
  const text = JSON.stringify(
    { ...content, [DIGEST_KEY]: digestOf(JSON.stringify(content, null, 2)) },
    null,
    2,
  );
  return `${text}\n`;
}

/**
 * Reads the file `plan --out` saved, for `apply --plan` and `show`: a plan file as parsePlanFile reads it, which
 * must also carry the digest of its own content and match it. Refused otherwise: a plan that was edited is not
 * the plan that was reviewed, whatever the edit.
 */
export function parseSavedPlan(text: string, file: string): Plan {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw unreadable(`cannot read the saved plan ${file}: ${(error as Error).message}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data) || !('format_version' in data)) {
    throw unreadable(`${file} is not a plan saved by scrapeform plan --out`);
  }
  const { [DIGEST_KEY]: digest, ...content } = data as Record<string, unknown>;
  if (typeof digest !== 'string') {
    throw unreadable(
      `the saved plan ${file} has no digest: apply --plan and show take only files written by scrapeform plan --out`,
    );
  }
  const contentText = JSON.stringify(content, null, 2);
  const plan = parsePlanFile(contentText, file);
  if (digestOf(contentText) !== digest) {
    throw unreadable(`the saved plan ${file} was edited: its content does not match its digest`);
  }
  return plan;
}

function digestOf(text: string): string {
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}

/**
 * Reads the public plan format (what `plan --json` prints; a saved plan without its digest) back into the typed
 * plan apply runs. Refuses a file that is
 * not one, names the key that is wrong, and refuses a change whose calls do not follow from the rest of it (an
 * edited file): apply makes exactly the calls that were reviewed, or none.
 */
export function parsePlanFile(text: string, file: string): Plan {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw unreadable(`cannot read the saved plan ${file}: ${(error as Error).message}`);
  }
  const version = (data as { format_version?: unknown } | null)?.format_version;
  if (typeof data !== 'object' || data === null || Array.isArray(data) || version === undefined) {
    throw unreadable(`${file} is not a plan saved by scrapeform plan --out`);
  }
  if (version !== PLAN_FORMAT_VERSION) {
    throw unreadable(
      `${file} has plan format_version ${JSON.stringify(version)}; this scrapeform reads format_version ${PLAN_FORMAT_VERSION}`,
    );
  }
  const parsed = PlanFileSchema.safeParse(data);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    const where = formatKeyPath(issue?.path ?? []);
    throw unreadable(
      `the saved plan ${file} is damaged at ${where === '' ? 'the top' : where}: ${issue?.message ?? 'invalid'}`,
    );
  }
  const plan = parsed.data;
  const changes = plan.resource_changes.map((c, i) => {
    const at = `resource_changes[${i}]`;
    const typed = typedChange(c, (message) =>
      unreadable(`the saved plan ${file} is damaged at ${at}: ${message}`),
    );
    const derived = toResourceChangeJson(typed);
    const edited =
      firstDifference(c.requests, derived.requests, `${at}.requests`) ??
      (stable(c.record) !== stable(derived.record) ? `${at}.record` : undefined) ??
      (stable(c.value_changes) !== stable(derived.value_changes) ? `${at}.value_changes` : undefined) ??
      (typed.kind === 'Parser' && typed.action === 'update'
        ? fieldNotRecorded(typed.waves, typed.definition, `${at}.requests`)
        : undefined);
    if (edited !== undefined) {
      throw unreadable(
        `the saved plan ${file} was edited: ${edited} is not what scrapeform plans for the rest of ${at} (${c.address})`,
      );
    }
    return typed;
  });
  return { ...plan, format_version: PLAN_FORMAT_VERSION, resource_changes: changes };
}

/** A saved plan applies only to the state and live versions it was computed from (DESIGN section 4). */
export function refuseStalePlan(saved: Plan, fresh: Plan, state: { lineage: string; serial: number }): void {
  const moved: string[] = [];
  if (saved.fingerprint.state_lineage !== state.lineage)
    moved.push('the state is another one (lineage differs)');
  else if (saved.fingerprint.state_serial !== state.serial)
    moved.push(`the state moved (serial ${saved.fingerprint.state_serial} -> ${state.serial})`);
  for (const [address, seen] of Object.entries(saved.fingerprint.live)) {
    const now = fresh.fingerprint.live[address];
    if (now !== seen) moved.push(`${address} moved (${seen} -> ${now ?? 'gone'})`);
  }
  if (moved.length > 0) {
    throw new ScrapeformError('apply.plan-stale', `refusing the saved plan: ${moved.join('; ')}`, {
      hint: 'run scrapeform plan --out again and review the new plan',
      details: { moved },
    });
  }
}

function unreadable(message: string): ScrapeformError {
  return new ScrapeformError('apply.plan-unreadable', message, {
    hint: 'use a file written by scrapeform plan --out, unchanged',
  });
}

/**
 * The typed change behind one change of the file. What apply needs is in `record` and `requests`; which of the
 * two ways to replace a parser a change is shows in its first call (a POST creates the new parser).
 */
function typedChange(c: ChangeFile, damaged: (message: string) => ScrapeformError): ResourceChange {
  const common = {
    address: c.address,
    name: c.name,
    reasons: c.reasons,
    regenerates: c.regenerates,
    destructive: c.destructive,
    field_changes: c.field_changes,
    breaking: c.breaking,
    ...(c.input_summary !== undefined ? { input_summary: c.input_summary } : {}),
  };
  const record = c.record;
  const stringId = (): string => {
    if (typeof c.id !== 'string') throw damaged(`id: a ${c.kind} to ${c.action} needs its id as a string`);
    return c.id;
  };
  const numberId = (): number => {
    if (typeof c.id !== 'number') throw damaged(`id: a project to ${c.action} needs its id as a number`);
    return c.id;
  };
  const parserRecord = (): Extract<ChangeFile['record'], { kind: 'Parser' }> => {
    if (record.kind !== 'Parser') throw damaged(`record.kind: a parser to ${c.action} needs a Parser record`);
    return record;
  };
  const recordedVersion = (): number => {
    const version = parserRecord().baseVersion;
    if (version === null) throw damaged(`record.baseVersion: a parser to ${c.action} needs its version`);
    return version;
  };
  const projectRecord = (): Extract<ChangeFile['record'], { kind: 'Project' }> => {
    if (record.kind !== 'Project')
      throw damaged(`record.kind: a project to ${c.action} needs a Project record`);
    return record;
  };
  const bodyOf = (request: PlannedRequest | undefined, i: number): Record<string, unknown> => {
    if (request?.body === undefined) throw damaged(`requests[${i}].body: the ${c.action} has no body`);
    return request.body;
  };

  if (c.kind === 'Parser') {
    const definition = (): ParserDefinition => parserRecord().definition;
    const unknownOf = (): { unknown?: UnknownValues } => {
      const unknown = parserRecord().unknown;
      return unknown !== undefined ? { unknown } : {};
    };
    switch (c.action) {
      case 'create':
        return { ...common, kind: 'Parser', action: 'create', id: null, definition: definition() };
      case 'update':
        return {
          ...common,
          kind: 'Parser',
          action: 'update',
          id: stringId(),
          baseVersion: recordedVersion(),
          waves: c.requests.map((r, i) => {
            const ops = FieldOperationsSchema.safeParse(bodyOf(r, i));
            if (!ops.success) {
              const [issue] = ops.error.issues;
              throw damaged(
                `requests[${i}].body.${formatKeyPath(issue?.path ?? [])}: ${issue?.message ?? 'invalid'}`,
              );
            }
            return ops.data;
          }),
          definition: definition(),
          descriptionsKnown: parserRecord().descriptionsKnown,
          ...unknownOf(),
        };
      case 'replace': {
        const [first] = c.requests;
        if (first?.method === 'POST')
          return {
            ...common,
            kind: 'Parser',
            action: 'replace',
            finishing: false,
            id: stringId(),
            definition: definition(),
            // Shown, never sent: a plan saved before the old parser was part of the format has none.
            ...(c.replaced !== undefined
              ? {
                  replaced: {
                    ...(c.replaced.urls !== undefined ? { urls: c.replaced.urls } : {}),
                    ...(c.replaced.scraper_params !== undefined
                      ? { scraperParams: c.replaced.scraper_params }
                      : {}),
                    field_changes: c.replaced.field_changes,
                    unchanged: c.replaced.unchanged,
                  },
                }
              : {}),
          };
        const oldId = first === undefined ? null : decodeURIComponent(first.path.slice('/parsers/'.length));
        return {
          ...common,
          kind: 'Parser',
          action: 'replace',
          finishing: true,
          id: stringId(),
          oldId,
          version: recordedVersion(),
          definition: definition(),
        };
      }
      case 'delete':
        return { ...common, kind: 'Parser', action: 'delete', id: stringId() };
      case 'adopt':
        return {
          ...common,
          kind: 'Parser',
          action: 'adopt',
          id: stringId(),
          version: recordedVersion(),
          definition: definition(),
        };
      case 'record':
        return {
          ...common,
          kind: 'Parser',
          action: 'record',
          id: stringId(),
          version: recordedVersion(),
          definition: definition(),
          ...unknownOf(),
        };
      case 'forget':
        return { ...common, kind: 'Parser', action: 'forget', id: stringId() };
      case 'archive':
        throw damaged('action: a parser is deleted, never archived');
    }
  }
  switch (c.action) {
    case 'create': {
      const body = bodyOf(c.requests[0], 0);
      const scheduledAt = body.scheduledAt;
      return {
        ...common,
        kind: 'Project',
        action: 'create',
        id: null,
        definition: projectRecord().definition,
        ...(typeof scheduledAt === 'string' ? { scheduledAt } : {}),
      };
    }
    case 'update':
      return {
        ...common,
        kind: 'Project',
        action: 'update',
        id: numberId(),
        changed: bodyOf(c.requests[0], 0),
        // The old values are shown, never sent: a plan saved before they were part of the format has none.
        ...(c.value_changes !== undefined
          ? { before: Object.fromEntries(c.value_changes.map((v) => [v.field, v.before])) }
          : {}),
        definition: projectRecord().definition,
      };
    case 'archive':
      return { ...common, kind: 'Project', action: 'archive', id: numberId() };
    case 'adopt':
      return {
        ...common,
        kind: 'Project',
        action: 'adopt',
        id: numberId(),
        definition: projectRecord().definition,
      };
    case 'forget':
      return { ...common, kind: 'Project', action: 'forget', id: numberId() };
    case 'record':
      throw damaged('action: only a parser has values never seen to record');
    case 'replace':
    case 'delete':
      throw damaged(
        `action: a project is archived, never ${c.action === 'replace' ? 'replaced' : 'deleted'}`,
      );
  }
}

/**
 * A PATCH body's calls come from the file itself, so they are checked against the definition the change records:
 * every field it adds or modifies is sent exactly as recorded.
 */
function fieldNotRecorded(
  waves: readonly FieldOperations[],
  definition: ParserDefinition,
  at: string,
): string | undefined {
  const recorded = new Map(definition.fields.map((f) => [f.name, stable(f)]));
  for (const [i, wave] of waves.entries()) {
    for (const key of ['modify_fields', 'add_fields'] as const) {
      const j = (wave[key] ?? []).findIndex((f) => recorded.get(f.name) !== stable(f));
      if (j >= 0) return `${at}[${i}].body.${key}[${j}]`;
    }
  }
  return undefined;
}

/** The path of the first request that differs from what the change plans, if any. */
function firstDifference(
  saved: readonly PlannedRequest[],
  planned: readonly PlannedRequest[],
  at: string,
): string | undefined {
  for (let i = 0; i < Math.max(saved.length, planned.length); i++) {
    if (stable(saved[i]) !== stable(planned[i])) return `${at}[${i}]`;
  }
  return undefined;
}
