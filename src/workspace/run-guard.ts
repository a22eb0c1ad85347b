import { isRunningNow, isWaitingToRun, jobRunAt, normaliseJobStatus } from '../api/job-status.js';
import type { LiveJob } from '../api/live.js';
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
 * to run (jobRunAt) is more than AHEAD_MS ahead is passed over: a service may list the next scheduled run ahead of
 * its time, and it would then hold back every start.
 */
export function refuseWhileRunning(
  jobs: readonly LiveJob[],
  project: { id: number; address: string },
  address: string,
  wait: boolean,
  now: number,
): void {
  const running = jobs.flatMap((j) => {
    const id = printable(String(j.id));
    const why = whyItHolds(j, now);
    return why === undefined ? [] : [{ id, why: `job ${id} ${why}` }];
  });
  if (running.length === 0) return;
  const them = running.length === 1 ? 'it' : 'them';
  throw new ScrapeformError(
    'run.already-running',
    `${project.address} was not started: ${running.map((r) => r.why).join('; ')}, and only one job of a project runs at a time: a start now would wait behind it and run again, paid per page, or be dropped${wait ? ', and --wait could not tell which' : ''}`,
    {
      hint: `wait for ${them} to end (scrapeform jobs ${address} shows ${them}), or cancel ${them} (scrapeform cancel ${address} JOB_ID), then run again; --allow-concurrent starts it anyway`,
      details: { started: false, projectId: project.id, jobs: running.map((r) => r.id) },
      // Like destructive changes without --allow-destroy: a decision for whoever runs it (exit 3), not a failure.
      status: 'input-needed',
    },
  );
}

/** Why the job holds a start back, after "job ID"; undefined when it does not (it ended, or runs well ahead). */
function whyItHolds(job: LiveJob, now: number): string | undefined {
  if (isRunningNow(job.status)) return `is running (${printable(String(job.status))})`;
  if (isWaitingToRun(job.status)) {
    const status = printable(String(job.status));
    const runAt = jobRunAt(job);
    if (runAt === undefined) return `waits to run (${status}, and no time says when)`;
    if (runAt > now + AHEAD_MS) return undefined;
    const at = new Date(runAt).toISOString();
    return runAt <= now
      ? `waits to run (${status}, due at ${at}, which has passed)`
      : `waits to run (${status}, due at ${at}, within ${AHEAD_MS / 60_000} minutes)`;
  }
  if (normaliseJobStatus(job.status) !== 'unknown') return undefined;
  return job.status === undefined
    ? 'may be running (it has no status)'
    : `may be running (its status ${quoted(job.status)} is not one scrapeform knows)`;
}

/**
 * The job a start took over instead of making a new one, for `run --wait` while no new job shows: a job that waited
 * to run at a time still ahead when it was listed before the start (`before`), and whose status or time now reads
 * otherwise while that time is still ahead (`now`). Nothing but the start explains such a change; a service that
 * keeps one record per scheduled run and counts its attempts (a third-party page shows `attempts`) may start that
 * record. Undefined when no such job shows: the new job is then still to come.
 */
export function takenOverJob(
  before: ReadonlyMap<string, LiveJob>,
  jobs: readonly LiveJob[],
  now: number,
): LiveJob | undefined {
  return jobs.find((job) => {
    const prior = before.get(String(job.id));
    if (prior === undefined || !isWaitingToRun(prior.status)) return false;
    const priorRunAt = jobRunAt(prior);
    if (priorRunAt === undefined || priorRunAt <= now) return false;
    return job.status !== prior.status || jobRunAt(job) !== priorRunAt;
  });
}
