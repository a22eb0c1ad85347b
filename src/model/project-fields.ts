import { sameInterval } from './same-interval.js';
import { sameParams, sameWord, sameWords } from './same-value.js';
import { DEFAULT_OUTPUT_FORMAT, NOTIFICATION_DEFAULTS } from './vocabulary.js';
import type { ProjectDiffableKey } from './vocabulary.js';

/**
 * What scrapeform knows of one top-level project field: how the live answer reports it, what the service holds
 * when it was never set, and whether dropping it from a manifest resets it. The planner, apply and `doctor` read
 * this table; a new project field is a row here (and its zod key in manifest/project-schema.ts).
 */
export interface ProjectFieldRule {
  /** Compared with the live project by plan; `scheduledAt` is sent with a create only (the next run moves). */
  compared: boolean;
  /**
   * The field as the live answer reports it, in the shape scrapeform sends it; `undefined` when the answer does
   * not carry it. Absent is not a default (issue 13: the documented create answer leaves out `output_format`,
   * `apiParams` and `webhookOutput`): the planner then compares with what it last applied.
   */
  read: (live: Readonly<Record<string, unknown>>) => unknown;
  /** What the service holds when the field was never sent; compared when nothing else is known. */
  serviceDefault?: unknown;
  /** A key dropped from the manifest is sent as `serviceDefault` (a three-way diff against the last apply). */
  resetWhenDropped: boolean;
  /**
   * Whether two values are one to the service, where that is not equal JSON: a cron in another spelling, an enum in
   * another case, a scraping parameter as text (same-value.ts).
   */
  same?: (a: unknown, b: unknown) => boolean;
}

/** The one table of project fields (`name` and every key `lifecycle.ignore_changes` may name). */
export const PROJECT_FIELDS = {
  name: { compared: true, resetWhenDropped: false, read: (live) => live.name },
  projectType: {
    compared: true,
    resetWhenDropped: false,
    serviceDefault: 'urls',
    read: (live) => live.projectType,
  },
  projectInput: { compared: true, resetWhenDropped: false, read: (live) => readProjectInput(live) },
  scrapingInterval: {
    compared: true,
    resetWhenDropped: false,
    serviceDefault: 'weekly',
    read: (live) => live.scrapingInterval,
    same: sameInterval,
  },
  scheduledAt: { compared: false, resetWhenDropped: false, read: (live) => live.scheduledAt },
  schedulingEnabled: {
    compared: true,
    resetWhenDropped: false,
    serviceDefault: true,
    read: (live) => live.schedulingEnabled,
  },
  // The seed spells it `output_format`; one public source spells it `outputFormat` (API-NOTES): both are read.
  output_format: {
    compared: true,
    resetWhenDropped: true,
    serviceDefault: DEFAULT_OUTPUT_FORMAT,
    read: (live) => orDefault(live.output_format ?? live.outputFormat, DEFAULT_OUTPUT_FORMAT),
    same: sameWord,
  },
  webhookOutput: {
    compared: true,
    resetWhenDropped: true,
    serviceDefault: null,
    read: (live) => readWebhook(live),
  },
  notificationConfig: {
    compared: true,
    resetWhenDropped: true,
    serviceDefault: NOTIFICATION_DEFAULTS,
    read: (live) => orDefault(live.notificationConfig, NOTIFICATION_DEFAULTS),
    same: sameWords,
  },
  apiParams: {
    compared: true,
    resetWhenDropped: true,
    serviceDefault: {},
    read: (live) => orDefault(live.apiParams, {}),
    same: sameParams,
  },
} as const satisfies Record<'name' | ProjectDiffableKey, ProjectFieldRule>;

export type ProjectFieldName = keyof typeof PROJECT_FIELDS;

/** The rule of a key, or undefined for a key scrapeform does not send. */
export function projectFieldRule(key: string): ProjectFieldRule | undefined {
  return Object.hasOwn(PROJECT_FIELDS, key) ? PROJECT_FIELDS[key as ProjectFieldName] : undefined;
}

/** A value reported as null is the service's default said out loud; absent stays unknown. */
function orDefault(value: unknown, fallback: unknown): unknown {
  if (value === undefined) return undefined;
  return value === null ? fallback : value;
}

/**
 * The input as sent: a list of entries, or a webhook input's URL; other keys the service adds are dropped. An
 * answer that leaves the entries (or the URL) out, or says null, does not say the input is empty: unknown, so the
 * planner compares with what it last applied instead of sending the list again on every run.
 */
function readProjectInput(live: Readonly<Record<string, unknown>>): unknown {
  const input = live.projectInput as { type?: unknown; list?: unknown; url?: unknown } | null | undefined;
  if (input === undefined || input === null) return undefined;
  // Null entries (or URL) say no more than entries left out. Read as `list: null`, they differed from every
  // manifest: each plan proposed a PATCH of the input, and apply warned the service had not taken it.
  if (input.type === 'webhook_input')
    return input.url === undefined || input.url === null
      ? undefined
      : { type: 'webhook_input', url: input.url };
  // Entries of another shape (a newline-delimited text, an object: seed 2 has a list) say nothing readable either,
  // and the plan's summary of a changed input counts and lists them.
  return Array.isArray(input.list) ? { type: 'list', list: input.list } : undefined;
}

/**
 * The webhook: `webhookOutput` as the seed has it, else inside `projectOutput` (`{type: "webhook", url}`), where
 * one public source reports it (API-NOTES). `projectOutput` of another type (`{type: "save"}`, as the documented
 * create answer has it: results are always saved) says nothing of a webhook kept beside it: unknown, as when
 * neither key is there, so a webhook dropped from a manifest is still sent as null.
 */
function readWebhook(live: Readonly<Record<string, unknown>>): unknown {
  if (live.webhookOutput !== undefined && live.webhookOutput !== null) return webhookOf(live.webhookOutput);
  // `webhookOutput: null` beside a webhook `projectOutput` is a key always sent, empty: the webhook is the other one.
  const output = live.projectOutput as Record<string, unknown> | null | undefined;
  if (output !== undefined && output !== null && output.type === 'webhook') return webhookOf(output);
  return live.webhookOutput === null ? null : undefined;
}

function webhookOf(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return null;
  const hook = value as { url?: unknown; webhookEncoding?: unknown };
  return {
    url: hook.url,
    ...(hook.webhookEncoding !== undefined && hook.webhookEncoding !== null
      ? { webhookEncoding: hook.webhookEncoding }
      : {}),
  };
}
