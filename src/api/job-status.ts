import { serviceTime } from './service-time.js';

/** A DataPipeline job's status, as scrapeform acts on it. */
export type JobStatusKind = 'finished' | 'cancelled' | 'failed' | 'running' | 'unknown';

/**
 * Job records are not documented (API-NOTES): only `Cancelled` is attested. The common spellings of each outcome
 * are read whatever their case or separators; `unknown` is a value none of these covers (keep waiting, and warn),
 * and also a missing status. An ended job read as `unknown` blocks every later `run` (run.already-running) until
 * `--allow-concurrent`, so the usual words of a job stopped by hand or by a limit are known too: `Stopped`,
 * `Terminated` and `Killed` read as cancelled, `Timed out` and `Crashed` as failed. A partial outcome
 * (`Partially completed`) stays unknown: whether `run --wait` should report it done or failed is not known.
 */
const SPELLINGS: Record<Exclude<JobStatusKind, 'unknown'>, readonly string[]> = {
  finished: ['finished', 'completed', 'complete', 'done', 'succeeded', 'success', 'successful'],
  cancelled: ['cancelled', 'canceled', 'aborted', 'stopped', 'terminated', 'killed'],
  failed: ['failed', 'failure', 'error', 'errored', 'timed_out', 'timeout', 'crashed'],
  running: [
    'running',
    'in_progress',
    'started',
    'processing',
    'pending',
    'queued',
    'scheduled',
    'waiting',
    'created',
    'new',
  ],
};

const KIND_OF = new Map<string, JobStatusKind>(
  Object.entries(SPELLINGS).flatMap(([kind, words]) => words.map((w) => [w, kind as JobStatusKind])),
);

/**
 * The spellings of a job running now, a part of `running`: not one queued or scheduled, which a service may list
 * ahead of its run (a third-party page shows `supposedToRunAt`), and which would then be there at every start.
 */
const RUNNING_NOW = new Set(['running', 'in_progress', 'started', 'processing']);

/** Whether a job's status says it is running now (RUNNING_NOW), whatever its case or separators. */
export function isRunningNow(raw: unknown): boolean {
  return typeof raw === 'string' && RUNNING_NOW.has(spelled(raw));
}

/** Whether a job's status says it waits to run: queued, pending, scheduled (`running` but not RUNNING_NOW). */
export function isWaitingToRun(raw: unknown): boolean {
  return normaliseJobStatus(raw) === 'running' && !isRunningNow(raw);
}

export function normaliseJobStatus(raw: unknown): JobStatusKind {
  if (typeof raw !== 'string') return 'unknown';
  return KIND_OF.get(spelled(raw)) ?? 'unknown';
}

function spelled(raw: string): string {
  return raw
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

/**
 * The fields that may date a job, best first. None is documented; `createdAt` comes first because a job that is
 * still queued has it while it has no start time yet, then the scheduled time (`supposedToRunAt`, seen on a
 * third-party page), then the start time. Both camelCase and snake_case are read.
 */
export const JOB_TIME_FIELDS = [
  'createdAt',
  'created_at',
  'supposedToRunAt',
  'supposed_to_run_at',
  'scheduledAt',
  'scheduled_at',
  'startedAt',
  'started_at',
] as const;

/**
 * The fields that may say when a job is to run, best first: `supposedToRunAt` (seen on a third-party page), then
 * `scheduledAt`, as the project's own field is spelled. Not `createdAt` or `startedAt`, which say nothing of a time
 * ahead.
 */
export const RUN_AT_FIELDS = [
  'supposedToRunAt',
  'supposed_to_run_at',
  'scheduledAt',
  'scheduled_at',
] as const;

/** A time of a job as read: `at` in ms since the epoch, and the field and value it was read from. */
export interface JobTime<F extends string = string> {
  at: number;
  field: F;
  raw: unknown;
}

/** A job's time to run as read. */
export type RunAt = JobTime<(typeof RUN_AT_FIELDS)[number]>;

/** When the job is to run, from the first field of RUN_AT_FIELDS that holds a readable time. */
export function jobRunAt(job: Readonly<Record<string, unknown>>): RunAt | undefined {
  return firstTime(job, RUN_AT_FIELDS);
}

/**
 * The fields that say when a job began or came to be, never a time ahead: what `run --wait` ranks the jobs of its
 * start by (a record dated by its time to run may be the next scheduled run, a week ahead). A start time first: a
 * record made earlier may be the one that ran.
 */
export const BEGUN_FIELDS = ['startedAt', 'started_at', 'createdAt', 'created_at'] as const;

/**
 * The newest job: the one with the latest time in the first of `fields` (JOB_TIME_FIELDS unless given) each job
 * has, read by serviceTime (ISO strings, or epoch times in any of the usual units, as numbers or strings of digits).
 * Jobs without any such time are passed over when others have one. Only when no job carries a time does list
 * position decide, and then the last one is taken (the order the service and the emulator list jobs in, oldest
 * first). Ties go to the later position for the same reason.
 */
export function newestJob<T extends Readonly<Record<string, unknown>>>(
  jobs: readonly T[],
  fields: readonly string[] = JOB_TIME_FIELDS,
): T | undefined {
  let newest: { job: T; time: number } | undefined;
  for (const job of jobs) {
    const time = firstTime(job, fields)?.at;
    if (time !== undefined && (newest === undefined || time >= newest.time)) newest = { job, time };
  }
  return newest?.job ?? jobs[jobs.length - 1];
}

/** When the job began or came to be, from the first field of BEGUN_FIELDS that holds a readable time. */
export function jobBegunAt(
  job: Readonly<Record<string, unknown>>,
): JobTime<(typeof BEGUN_FIELDS)[number]> | undefined {
  return firstTime(job, BEGUN_FIELDS);
}

/** The job's time in ms since the epoch, from the first field of JOB_TIME_FIELDS that holds a readable one. */
export function jobTime(job: Readonly<Record<string, unknown>>): number | undefined {
  return firstTime(job, JOB_TIME_FIELDS)?.at;
}

/** The first of `fields` that holds a time serviceTime reads: the time, and the field and value it came from. */
function firstTime<F extends string>(
  job: Readonly<Record<string, unknown>>,
  fields: readonly F[],
): JobTime<F> | undefined {
  for (const field of fields) {
    const at = serviceTime(job[field]);
    if (at !== undefined) return { at, field, raw: job[field] };
  }
  return undefined;
}
