import {
  BEGUN_FIELDS,
  isRunningNow,
  jobBegunAt,
  isWaitingToRun,
  jobRunAt,
  newestJob,
  normaliseJobStatus,
} from '../api/job-status.js';
import type { JobTime, RunAt } from '../api/job-status.js';
import type { LiveJob } from '../api/live.js';
import { writtenWithoutZone, ZONE_DOUBT_MS } from '../api/service-time.js';
import { readCount } from '../api/read-count.js';
import { ScrapeformError } from '../errors.js';
import { printable, quoted } from '../output/escape-text.js';

/**
 * How far ahead a waiting job's own time must be for `run` to pass over it: a start just taken may be dated a little
 * ahead (a scheduler that runs on the minute) and the service's clock may differ from this machine's. Five minutes
 * covers both with room; a run due sooner than that holds the start back like one queued now.
 */
export const AHEAD_MS = 5 * 60_000;

/**
 * Only one job of a project runs at a time (API-NOTES): a start while one runs waits behind it, a second run paid
 * per page (a CI retry, two merges in a row), or is dropped, and --wait cannot tell which. So nothing is sent while
 * a job is running now, or may be: its status is one scrapeform does not know, or none, which must not pass for
 * ended (job statuses are undocumented). A job waiting to run (queued, pending, scheduled: isWaitingToRun) holds the
 * start back too, as a start taken a moment ago may be listed so before a worker takes it; only one whose own time
 * to run (jobRunAt) is more than AHEAD_MS ahead is passed over (runsWellAhead): a service may list the next
 * scheduled run ahead of its time, and it would then hold back every start.
 */
export function refuseWhileRunning(
  jobs: readonly LiveJob[],
  project: { id: number; address: string },
  address: string,
  wait: boolean,
  now: number,
): void {
  const holding = jobs.flatMap((j) => {
    const why = whyItHolds(j, now);
    return why === undefined ? [] : [{ job: j, why: `job ${printable(String(j.id))} ${why}` }];
  });
  if (holding.length === 0) return;
  const them = holding.length === 1 ? 'it' : 'them';
  const waiting = holding.some((h) => isWaitingToRun(h.job.status));
  throw new ScrapeformError(
    'run.already-running',
    `${project.address} was not started: ${holding.map((h) => h.why).join('; ')}, and only one job of a project runs at a time: a start now would wait behind it and run again, paid per page, or be dropped${wait ? ', and --wait could not tell which' : ''}`,
    {
      hint: waiting
        ? `wait for ${them} to run and end (scrapeform jobs ${address} shows ${them}), or cancel ${them} (scrapeform cancel ${address} JOB_ID; a service may refuse to cancel a job that has not started), then run again; if a waiting job is the project's next scheduled run rather than a start, --allow-concurrent starts it anyway`
        : `wait for ${them} to end (scrapeform jobs ${address} shows ${them}), or cancel ${them} (scrapeform cancel ${address} JOB_ID), then run again; --allow-concurrent starts it anyway`,
      // The ids as the service sent them, for --json readers to act on; the message shows them printable.
      details: { started: false, projectId: project.id, jobs: holding.map((h) => String(h.job.id)) },
      // Like destructive changes without --allow-destroy: a decision for whoever runs it (exit 3), not a failure.
      status: 'input-needed',
    },
  );
}

/**
 * A time to run further ahead than this is none scrapeform takes as real: a placeholder (9999-12-31) or a value in
 * units it misreads. A job showing one is read as having no time, so it holds a start back rather than be passed over.
 */
export const FAR_AHEAD_MS = 366 * 24 * 60 * 60_000;

/**
 * True when the job waits to run at a time of its own more than AHEAD_MS ahead (and not FAR_AHEAD_MS): the next
 * scheduled run, listed ahead of its time, which neither holds a start back nor is the job the start made.
 */
export function runsWellAhead(job: LiveJob, now: number): boolean {
  return isWaitingToRun(job.status) && wellAhead(jobRunAt(job), now) && !begunAhead(job, now);
}

/**
 * When the job began or was made, if that reads as ahead of `now` too: a time of the past read so means the job's
 * times are misread (a zone, a unit), so its time to run is not trusted to pass it over either.
 */
function begunAhead(job: LiveJob, now: number): JobTime | undefined {
  const begun = jobBegunAt(job);
  return begun !== undefined && begun.at > now + AHEAD_MS ? begun : undefined;
}

/**
 * Whether a time to run is more than AHEAD_MS ahead of `now`, and not FAR_AHEAD_MS (then it is taken as none). One
 * written with no zone is read as UTC and may be the service's own time, up to ZONE_DOUBT_MS off: it must be that
 * much further ahead. Read as UTC alone, a start queued a moment ago in a zone east of UTC looked hours ahead, was
 * passed over, and a second paid run was started.
 */
function wellAhead(runAt: RunAt | undefined, now: number): boolean {
  if (runAt === undefined) return false;
  const doubt = writtenWithoutZone(runAt.raw) ? ZONE_DOUBT_MS : 0;
  return runAt.at - doubt > now + AHEAD_MS && runAt.at <= now + FAR_AHEAD_MS;
}

/** Why the job holds a start back, after "job ID"; undefined when it does not (it ended, or runs well ahead). */
function whyItHolds(job: LiveJob, now: number): string | undefined {
  if (isRunningNow(job.status)) return `is running (${printable(String(job.status))})`;
  if (isWaitingToRun(job.status)) {
    const status = printable(String(job.status));
    const runAt = jobRunAt(job);
    if (runAt === undefined)
      return `waits to run (${status}, and no supposedToRunAt or scheduledAt says when)`;
    // The value as the service sent it beside the time it was read as: a misreading shows.
    const readAs = (time: JobTime): string =>
      `${time.field} ${typeof time.raw === 'string' ? quoted(time.raw) : printable(String(time.raw))} read as ${new Date(time.at).toISOString()}`;
    const read = readAs(runAt);
    if (wellAhead(runAt, now)) {
      const begun = begunAhead(job, now);
      if (begun === undefined) return undefined;
      return `waits to run (${status}, ${read}, but ${readAs(begun)} is ahead too: its times are not read right)`;
    }
    if (runAt.at > now + FAR_AHEAD_MS)
      return `waits to run (${status}, ${read}, over a year ahead: not taken as a real time)`;
    if (runAt.at <= now) return `waits to run (${status}, ${read}, which has passed)`;
    return runAt.at > now + AHEAD_MS
      ? `waits to run (${status}, ${read}, with no time zone written: it may be due within ${AHEAD_MS / 60_000} minutes)`
      : `waits to run (${status}, ${read}, within ${AHEAD_MS / 60_000} minutes)`;
  }
  if (normaliseJobStatus(job.status) !== 'unknown') return undefined;
  return job.status === undefined
    ? 'may be running (it has no status)'
    : `may be running (its status ${quoted(job.status)} is not one scrapeform knows)`;
}

/**
 * The job a start took over instead of making a new one, for `run --wait` while no new job shows: one listed before
 * the start (`before`) as waiting to run well ahead (runsWellAhead, still at `now`), which now runs, waits to run
 * within AHEAD_MS, or counts more `attempts` (a third-party page shows the field). Nothing but the start explains such
 * a change; a service that keeps one record per scheduled run may start that record. A change to an ended status
 * alone (cancelled by someone) or a time moved later is not taken. Undefined when no such job shows: the new job is
 * then still to come.
 */
export function takenOverJob(
  before: ReadonlyMap<string, LiveJob>,
  jobs: readonly LiveJob[],
  now: number,
): LiveJob | undefined {
  return jobs.find((job) => {
    const prior = before.get(String(job.id));
    if (prior === undefined || !runsWellAhead(prior, now)) return false;
    if (isRunningNow(job.status) || (readCount(job['attempts']) ?? 0) > (readCount(prior['attempts']) ?? 0))
      return true;
    const runAt = isWaitingToRun(job.status) ? jobRunAt(job) : undefined;
    return runAt !== undefined && runAt.at <= now + AHEAD_MS;
  });
}

/**
 * Which job `run --wait` follows, look by look. Of the jobs not listed before the start, one that does not wait to
 * run (it runs, ended, or shows a status scrapeform does not know) is the run's, the newest by when it began or was
 * made (BEGUN_FIELDS: never by a time ahead); else a record the start took over (takenOverJob); and once one is
 * found it is followed by its id to its end, whatever shows after it. A new job that waits to run is shown but not
 * yet followed for good: the run's may be listed queued a moment, but so may the next scheduled run, and a job of the
 * run that shows later wins over it. A new record first seen with a time to run more than AHEAD_MS ahead, and not
 * running, is the next scheduled run and is passed over, whatever its status (a placeholder may show one scrapeform
 * does not know), until it runs or finishes while its own time is still more than AHEAD_MS ahead: only the start
 * explains that (the run's own job, dated by a clock that differs).
 */
export class RunJobPicker {
  private followed: string | undefined;
  /** New records passed over as the next scheduled run: id -> their time to run. */
  private readonly passedOver = new Map<string, number>();

  constructor(private readonly before: ReadonlyMap<string, LiveJob>) {}

  /** The job of the run as this list shows it; undefined when none shows (yet, or in this look). */
  pick(jobs: readonly LiveJob[], now: number): LiveJob | undefined {
    if (this.followed !== undefined) return jobs.find((j) => String(j.id) === this.followed);
    const fresh = jobs.filter((j) => !this.before.has(String(j.id)) && !this.passesOver(j, now));
    const found =
      newestJob(
        fresh.filter((j) => !isWaitingToRun(j.status)),
        BEGUN_FIELDS,
      ) ?? takenOverJob(this.before, jobs, now);
    if (found !== undefined) this.followed = String(found.id);
    return found ?? newestJob(fresh, BEGUN_FIELDS);
  }

  private passesOver(job: LiveJob, now: number): boolean {
    const id = String(job.id);
    const began = isRunningNow(job.status) || ['finished', 'failed'].includes(normaliseJobStatus(job.status));
    const runAt = this.passedOver.get(id);
    if (runAt !== undefined) {
      if (!began || now >= runAt - AHEAD_MS) return true;
      this.passedOver.delete(id);
      return false;
    }
    const ahead = jobRunAt(job);
    if (began || ahead === undefined || !wellAhead(ahead, now) || begunAhead(job, now) !== undefined)
      return false;
    this.passedOver.set(id, ahead.at);
    return true;
  }
}
