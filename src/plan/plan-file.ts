import { pathNestedPast } from '../nesting-path.js';
import { ScrapeformError } from '../errors.js';
import { formatKeyPath } from '../manifest/diagnostic.js';
import { MAX_NESTING_DEPTH } from '../manifest/yaml-document.js';
import { PLAN_FORMAT_VERSION } from './model.js';
import type { FieldOperations } from '../model/wire.js';
import type { ParserDefinition } from '../state/model.js';
import type { Plan } from './model.js';
import { stable } from './plan-context.js';
import { typedChange } from './plan-file-change.js';
import { PlanFileSchema } from './plan-file-schema.js';
import { DIGEST_KEY, digestOf } from './save-plan.js';
import { toResourceChangeJson } from './plan-json.js';
import type { PlannedRequest } from './plan-json.js';

/**
 * Reads the file `plan --out` saved, for `apply --plan` and `show`: a plan file as parsePlanFile reads it, which
 * must also carry the digest of its own content and match it. Refused otherwise: a plan that was edited is not
 * the plan that was reviewed, whatever the edit.
 */
export function parseSavedPlan(text: string, file: string): Plan {
  const data = readPlanJson(text, file);
  const { [DIGEST_KEY]: digest, ...content } = data;
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

/**
 * Reads the public plan format (what `plan --json` prints; a saved plan without its digest) back into the typed
 * plan apply runs. Refuses a file that is
 * not one, names the key that is wrong, and refuses a change whose calls do not follow from the rest of it (an
 * edited file): apply makes exactly the calls that were reviewed, or none.
 */
export function parsePlanFile(text: string, file: string): Plan {
  const data = readPlanJson(text, file);
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
        ? (fieldNotRecorded(typed.waves, typed.definition, `${at}.requests`) ??
          (typed.regenerates !== typed.waves.some(generates) ? `${at}.regenerates` : undefined))
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

/**
 * The JSON of a plan file, refused before anything else reads it when it is not a plan object, is of another
 * format_version (a newer scrapeform's says so: saving it again is not the fix), or nests deeper than any plan.
 */
function readPlanJson(text: string, file: string): Record<string, unknown> {
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
  if (typeof version === 'number' && Number.isInteger(version) && version > PLAN_FORMAT_VERSION) {
    throw new ScrapeformError(
      'apply.plan-unreadable',
      `${file} was written by a newer scrapeform (plan format_version ${version}; this scrapeform reads format_version ${PLAN_FORMAT_VERSION})`,
      {
        hint: 'upgrade scrapeform to the version that wrote it (npm install scrapeform@latest), or save the plan again with this one',
        details: { formatVersion: version, supported: PLAN_FORMAT_VERSION },
      },
    );
  }
  if (version !== PLAN_FORMAT_VERSION) {
    throw unreadable(
      `${file} has plan format_version ${JSON.stringify(version)}; this scrapeform reads format_version ${PLAN_FORMAT_VERSION}`,
    );
  }
  const deep = pathNestedPast(data, MAX_PLAN_DEPTH);
  if (deep !== undefined) {
    throw unreadable(
      `the saved plan ${file} is damaged at ${formatKeyPath(deep)}: it is nested too deep (more than ${MAX_PLAN_DEPTH} levels of objects and arrays)`,
    );
  }
  return data as Record<string, unknown>;
}

/** Twice what a manifest may nest: a plan wraps a manifest's values in a few levels of its own. */
const MAX_PLAN_DEPTH = 2 * MAX_NESTING_DEPTH;

function unreadable(message: string): ScrapeformError {
  return new ScrapeformError('apply.plan-unreadable', message, {
    hint: 'use a file written by scrapeform plan --out, unchanged',
  });
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

/** Whether a PATCH's operations start a generation: it adds or modifies a field (diff-fields.ts, regenerates). */
function generates(wave: FieldOperations): boolean {
  return (wave.add_fields?.length ?? 0) + (wave.modify_fields?.length ?? 0) > 0;
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
