import { ApiError, mayHaveLanded, serverMessage } from '../api/api-error.js';
import { unlessGone } from '../api/unless-status.js';
import { archiveMark } from '../api/archived-project.js';
import { normaliseJobStatus } from '../api/job-status.js';
import type { LiveJob } from '../api/live.js';
import { lastLookUnanswered, LookGivenUp, waitCutoff } from '../apply/look-cutoff.js';
import { ScrapeformError } from '../errors.js';
import { printable } from '../output/escape-text.js';
import { unseenStory } from '../plan/unseen-create.js';
import type { ProjectState } from '../state/model.js';
import { managedProject } from './managed-address.js';
import type { Services } from './open-workspace.js';
import { RunJobPicker, refuseWhileRunning } from './run-guard.js';

/**
 * Whether a job has ended, whatever spelling the service uses (Finished, Completed, Done; Cancelled, Canceled; Failed,
 * Error).
 */
export function isJobFinished(job: LiveJob): boolean {
  return ['finished', 'cancelled', 'failed'].includes(normaliseJobStatus(job.status));
}

/**
 * `run --wait`'s end: a job that failed or was cancelled did not scrape what the run was for, so CI must not read it
 * as done (exit 1, after the job's table). A cancel is no failure of the service, but the run is not done either.
 */
export function refuseUnfinishedJob(address: string, job: LiveJob): void {
  const kind = normaliseJobStatus(job.status);
  if (kind !== 'failed' && kind !== 'cancelled') return;
  const status = typeof job.status === 'string' ? printable(job.status) : String(job.status);
  const which = `job ${printable(String(job.id))} of ${printable(address)}`;
  throw kind === 'failed'
    ? new ScrapeformError('run.job-failed', `${which} failed (${status}): the run is not done`, {
        hint: `scrapeform jobs ${printable(address)} lists it; the dashboard says why it failed`,
      })
    : new ScrapeformError(
        'run.job-cancelled',
        `${which} was cancelled (${status}) before it scraped every page: the run is not done`,
        {
          hint: `run it again once nothing cancels it (scrapeform jobs ${printable(address)} lists its jobs)`,
        },
      );
}

/** The jobs of a managed project, as the service lists them. */
export async function listProjectJobs(
  services: Services,
  address: string,
): Promise<{ address: string; jobs: LiveJob[] }> {
  const project = managedProject(await services.backend.read(), address);
  return { address: project.address, jobs: await services.clients.projects.listJobs(project.id) };
}

/**
 * Cancels one job; a job that is not running or does not exist is a user error saying so. The first try is sent
 * once: one without a clear answer (none in time, a dropped connection, a 5xx, a redirect not followed) may have
 * cancelled the job, so the try sent after it may be refused as "not running" because of it; after a redirect, which
 * a second try would get again, the job list alone says. Such a refusal is checked against the job list:
 * a job that reads cancelled is reported cancelled, not as a cancel that failed (exit 1 in CI for a cancel done).
 */
export async function cancelProjectJob(
  services: Services,
  address: string,
  jobId: string,
): Promise<{ address: string; jobId: string; status: string | undefined }> {
  const project = managedProject(await services.backend.read(), address);
  const projects = services.clients.projects;
  let unclear = false;
  try {
    const answer = (await projects
      .cancelJob(project.id, jobId, undefined, true)
      .catch(async (error: unknown) => {
        if (!mayHaveLanded(error)) throw error;
        unclear = true;
        // A redirect not followed would answer a second try the same: the list says whether the first cancelled it.
        if (error.status < 300 || error.status >= 400) return projects.cancelJob(project.id, jobId);
        const cancelled = await cancelledJob(services, project.id, jobId);
        if (cancelled === undefined) throw error;
        return { status: cancelled };
      })) as { status?: string } | undefined;
    return { address: project.address, jobId, status: answer?.status };
  } catch (error) {
    if (error instanceof ApiError && (error.status === 400 || error.status === 409)) {
      const cancelled = unclear ? await cancelledJob(services, project.id, jobId) : undefined;
      if (cancelled !== undefined) return { address: project.address, jobId, status: cancelled };
      const reason = failureReason(error);
      throw new ScrapeformError(
        'cancel.not-running',
        `job ${jobId} of ${address} cannot be cancelled: ${reason}`,
        {
          hint: `scrapeform jobs ${address} lists the jobs and their status`,
        },
      );
    }
    if (error instanceof ApiError && error.status === 404) {
      throw new ScrapeformError('cancel.unknown-job', `${address} has no job ${jobId}`, {
        hint: `scrapeform jobs ${address} lists its jobs`,
      });
    }
    throw error;
  }
}

/** The job's status when the project's list shows it cancelled; undefined otherwise, or when the list fails. */
async function cancelledJob(
  services: Services,
  projectId: number,
  jobId: string,
): Promise<string | undefined> {
  const jobs = await services.clients.projects.listJobs(projectId).catch(() => []);
  const job = jobs.find((j) => String(j.id) === jobId);
  return job !== undefined && normaliseJobStatus(job.status) === 'cancelled' ? job.status : undefined;
}

export interface RunProjectOptions {
  /** Follow the new job until it ends, or until `timeoutMs` passed. */
  wait?: boolean;
  /**
   * Start even while a job of the project is running or may be (refuseWhileRunning): without `wait`, the jobs are
   * then not listed at all.
   */
  allowConcurrent?: boolean;
  timeoutMs?: number;
  pollMs?: number;
  /** Once the project was started. */
  onStarted?: () => void;
  /** Each status the new job shows, once. */
  onProgress?: (job: LiveJob | undefined, status: string) => void;
  /** A status scrapeform does not know: it keeps waiting (once per value). */
  onUnknownStatus?: (status: string) => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** For the timeout message: how the user wrote the timeout. */
  timeoutLabel?: string;
}

/**
 * Starts a managed project now (`PATCH scheduledAt: now`) and, with `wait`, follows the job it starts. The jobs are
 * listed first, and nothing is sent while one is running or may be (refuseWhileRunning), unless `allowConcurrent`; a
 * list that cannot be read starts nothing either, since it cannot show that none runs, nor one whose end is in doubt
 * (listJobs `whole`): a job running on a page not read would be started again, paid per page. Only `allowConcurrent`
 * without `wait` starts the project without listing its jobs.
 */
export async function runProject(
  services: Services,
  address: string,
  options: RunProjectOptions = {},
): Promise<{ address: string; job: LiveJob | undefined }> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const now = options.now ?? Date.now;
  const project = managedProject(await services.backend.read(), address);
  await refuseIfMissing(services, project, address);
  const wait = options.wait === true;
  const guarded = options.allowConcurrent !== true;
  const needs =
    guarded && wait
      ? 'run needs to see that none of them is running and --wait to tell the new job from the others'
      : guarded
        ? 'run needs to see that none of them is running'
        : '--wait needs to tell the new job from the others';
  // Not listed when nothing needs them (--allow-concurrent without --wait): records of an unknown shape then never
  // keep the project from starting.
  const listed =
    wait || guarded
      ? await services.clients.projects.listJobs(project.id, undefined, true).catch((error: unknown) => {
          throw new ScrapeformError(
            'run.jobs-unreadable',
            `${project.address} was not started: its jobs could not be listed, which ${needs}: ${messageOf(error)}`,
            {
              hint: `scrapeform run ${address} --allow-concurrent (without --wait) starts it without listing its jobs`,
              details: { started: false, projectId: project.id },
              cause: error,
            },
          );
        })
      : [];
  if (guarded) refuseWhileRunning(listed, project, address, wait, now());
  // The jobs there before the start, to tell the new one from them.
  const before = new Map(listed.map((j) => [String(j.id), j]));
  await startNow(services, project, address);
  options.onStarted?.();
  if (!wait) return { address: project.address, job: undefined };
  const listAfterStart = (signal: AbortSignal): Promise<LiveJob[]> =>
    services.clients.projects.listJobs(project.id, signal, true).catch((error: unknown) => {
      throw new ScrapeformError(
        'run.jobs-unreadable',
        `${project.address} was started (scheduledAt now), but its jobs could not be listed to follow the new one: ${messageOf(error)}`,
        {
          hint: `do not start it again; scrapeform jobs ${address} shows its jobs once they can be read`,
          details: { started: true, projectId: project.id },
          cause: error,
        },
      );
    });
  const waitMs = options.timeoutMs ?? 30 * 60_000;
  const deadline = now() + waitMs;
  const within = options.timeoutLabel ?? `${Math.round(waitMs / 1000)}s`;
  // As apply's wait: the list made at the deadline gets one request try, and one still unanswered then is given
  // up (LookCutoff).
  const { cut, lastLookMs } = waitCutoff(waitMs, services.clients.timeoutMs, options);
  let job: LiveJob | undefined;
  const picker = new RunJobPicker(before);
  let shown = '';
  /** Since when the job followed has not been listed (undefined while it is). */
  let unlistedSince: number | undefined;
  const warned = new Set<string>();
  try {
    for (;;) {
      let jobs: LiveJob[];
      try {
        jobs = await cut.bound(listAfterStart(cut.signal));
      } catch (error) {
        if (!(error instanceof LookGivenUp)) throw error;
        throw new ScrapeformError(
          'run.wait-timeout',
          `${address}: the job did not end within ${within} (last seen: ${shown || 'nothing yet'}): ${lastLookUnanswered(lastLookMs)}`,
          startedHint(job, project.id, address),
        );
      }
      // A list that lags may not show the run's job for a moment: the last seen of it stands until it does. One
      // that leaves it out for UNLISTED_MS (a service listing only active or recent jobs, once it ended) ends the
      // wait: its end cannot be seen, and waiting on would only say, at the deadline, that it keeps running.
      const followed = job;
      job = picker.pick(jobs, now()) ?? job;
      if (followed !== undefined && !jobs.some((j) => String(j.id) === String(followed.id))) {
        unlistedSince ??= now();
        if (now() - unlistedSince >= UNLISTED_MS)
          throw new ScrapeformError(
            'run.job-unlisted',
            `${address}: job ${String(followed.id)} has not been listed for ${Math.round((now() - unlistedSince) / 1000)}s (last seen: ${shown}), so whether it ended, and how, cannot be seen`,
            {
              hint: `the project was started (scheduledAt now); do not start it again before checking: scrapeform jobs ${address} shows its jobs`,
              details: { started: true, projectId: project.id, jobId: followed.id },
            },
          );
      } else unlistedSince = undefined;
      const status = job?.status ?? 'waiting to start';
      if (status !== shown) {
        options.onProgress?.(job, status);
        shown = status;
        if (job !== undefined && normaliseJobStatus(job.status) === 'unknown' && !warned.has(status)) {
          warned.add(status);
          options.onUnknownStatus?.(status);
        }
      }
      if (job !== undefined && isJobFinished(job)) return { address: project.address, job };
      if (now() >= deadline) break;
      await sleep(Math.min(options.pollMs ?? 1000, Math.max(0, deadline - now())));
    }
  } finally {
    cut.cancel();
  }
  throw new ScrapeformError(
    'run.wait-timeout',
    `${address}: the job did not end within ${within}`,
    startedHint(job, project.id, address),
  );
}

/** How long `run --wait` waits for the job it follows to be listed again before it gives up on seeing its end. */
export const UNLISTED_MS = 2 * 60_000;

/**
 * A timeout ends the wait, not the run: the project was started, and a job not shown yet may still start (behind
 * another, or once the list shows it). Said, with `started` in the details, so that nobody (no CI retry) starts it
 * again and pays for its pages twice.
 */
function startedHint(
  job: LiveJob | undefined,
  projectId: number,
  address: string,
): { hint: string; details: Record<string, unknown> } {
  return {
    hint: `the project was started (scheduledAt now) and ${job === undefined ? 'no new job has shown yet: one may still start' : 'its job keeps running'}; do not start it again before checking: scrapeform jobs ${address} shows its jobs`,
    details: { started: true, projectId },
  };
}

/**
 * The project is read by id before anything else: one archived outside scrapeform may still answer for its jobs
 * (archive is a soft delete: archived-project.ts), and a start sent to it then either runs a project someone
 * archived, paid per page, or starts nothing while `--wait` waits its whole timeout for a job that never comes and
 * says not to start it again. A record marked archived, or a 404, starts nothing (`run.project-missing`), as status
 * shows it MISSING. A 404 for a project this state created and has not seen since may only mean not visible yet
 * (unseen-create.ts): said so, and nothing is started either, since it may as well be gone.
 */
async function refuseIfMissing(
  services: Services,
  project: ProjectState & { address: string },
  address: string,
): Promise<void> {
  const live = await unlessGone(() => services.clients.projects.get(project.id));
  const mark = live === undefined ? undefined : archiveMark(live);
  if (live !== undefined && mark === undefined) return;
  const story = live === undefined ? unseenStory(project) : undefined;
  const why =
    mark !== undefined
      ? `the service shows it archived (${mark}): it was archived outside scrapeform`
      : story === undefined
        ? 'the service answers 404 for it: it was archived or deleted outside scrapeform'
        : `the service answers 404 for it, which so soon after its create may only mean it is not visible yet (${story}), or it was archived or deleted outside scrapeform`;
  throw new ScrapeformError('run.project-missing', `${project.address} was not started: ${why}`, {
    hint:
      story === undefined
        ? 'scrapeform plan shows it archived or deleted outside scrapeform: apply creates it again (a new id) while a manifest declares it'
        : `run it again once scrapeform status shows it (NOT VISIBLE YET until then): scrapeform run ${address}`,
    details: { started: false, projectId: project.id },
  });
}

/**
 * Sends the start. Each run is paid per page, so a start without a clear answer (none in time, a dropped
 * connection, a 5xx, a success whose body says it failed) is not reported as a failure to retry: it may have
 * started, and starting it again would pay for its pages twice. The PATCH is never sent again by the transport
 * after such a failure (retry-policy.ts). A clear refusal (4xx) did not start it and stays the ApiError it is.
 */
async function startNow(
  services: Services,
  project: { id: number; address: string },
  address: string,
): Promise<void> {
  try {
    await services.clients.projects.startNow(project.id);
  } catch (error) {
    // A conflict is the service saying a job of the project holds it (only one runs at a time): not started, as when
    // the job list shows one, and said so, for a --json reader that acts on details.started.
    if (error instanceof ApiError && (error.status === 409 || error.status === 423))
      throw new ScrapeformError(
        'run.already-running',
        `${project.address} was not started: the service refused the start with ${error.status} (${failureReason(error)}), as it does while a job of the project runs`,
        {
          hint: `scrapeform jobs ${address} shows its jobs; run again once none is running`,
          details: { started: false, projectId: project.id },
          status: 'input-needed',
          cause: error,
        },
      );
    if (!mayHaveLanded(error)) throw error;
    throw new ScrapeformError(
      'run.unconfirmed',
      `${project.address} may have started: the start (PATCH scheduledAt now) got no clear answer: ${error.message}`,
      {
        hint: `do not start it again before checking: scrapeform jobs ${address} shows whether a new job started`,
        details: { started: 'unknown', projectId: project.id },
        cause: error,
      },
    );
  }
}

/** What a refusal says: the service's own message (serverMessage), else the call's. */
function failureReason(error: ApiError): string {
  return serverMessage(error.body) ?? error.message;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
