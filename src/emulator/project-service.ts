import { NOTIFICATION_DEFAULTS } from '../model/vocabulary.js';
import type { Accounts, Account } from './accounts.js';
import type { EmulatorClock } from './clock.js';
import type { PageFetcher } from './fetcher.js';
import { bodyObject, HttpError, json } from './http.js';
import type { EmulatorRequest, EmulatorResponse } from './http.js';
import { JobRunner } from './job-runner.js';
import { answerList, foundYet, listedYet } from './list-answers.js';
import { Notifications } from './notifications.js';
import type { OutboxMessage } from './notifications.js';
import type { StoredJob, StoredProject } from './project-records.js';
import { applyFields } from './project-validation.js';
import type { Quirks } from './quirks.js';
import { resultsResponse } from './result-formats.js';
import { nextAfter, ONCE, ProjectScheduler, resolveScheduledAt } from './scheduler.js';
import { WebhookSender } from './webhook-delivery.js';
import type { WebhookDelivery } from './webhook-delivery.js';

export type { StoredJob, StoredProject } from './project-records.js';
export type { OutboxMessage } from './notifications.js';
export type { WebhookDelivery } from './webhook-delivery.js';

export interface ProjectServiceOptions {
  accounts: Accounts;
  clock: EmulatorClock;
  fetcher: PageFetcher;
  /** The origin, for results links. */
  origin: () => string;
  onChange: () => void;
  /** Credits per scraped item (public docs: 6 for a plain page, more with render or for structured targets). */
  itemCost: (project: StoredProject) => number;
  quirks: Quirks;
  webhookTries?: number;
  webhookRetryDelayMs?: number;
}

/**
 * What `--data-dir` keeps of the project service: projects (archived ones too), jobs with their results, and the
 * id counters. A job that was running (or listed Queued) counts as interrupted (Failed); runs queued behind it start
 * on reload. The outbox, webhook deliveries and pending digests are not kept.
 */
export interface ProjectSnapshot {
  projects: StoredProject[];
  archived: StoredProject[];
  jobs: StoredJob[];
  nextProjectId: number;
  nextJobId: number;
}

/** Default credit cost of one item: 6 plain, 16 with render, 25 for a structured (non-`urls`) type. */
export function defaultItemCost(project: StoredProject): number {
  if (project.projectType !== 'urls') return 25;
  return project.apiParams.render === true ? 16 : 6;
}

/** The DataPipeline project service of seed 2: its endpoints, over a scheduler, a job runner, webhooks and mail. */
export class ProjectService {
  readonly projects = new Map<number, StoredProject>();
  readonly archived = new Map<number, StoredProject>();
  private nextProjectId = 1;
  private readonly webhooks: WebhookSender;
  private readonly notifications: Notifications;
  private readonly runner: JobRunner;
  private readonly scheduler: ProjectScheduler;

  constructor(private readonly options: ProjectServiceOptions) {
    const isLive = (project: StoredProject): boolean => this.projects.get(project.id) === project;
    this.webhooks = new WebhookSender({
      clock: options.clock,
      ...(options.webhookTries !== undefined ? { tries: options.webhookTries } : {}),
      ...(options.webhookRetryDelayMs !== undefined ? { retryDelayMs: options.webhookRetryDelayMs } : {}),
    });
    this.notifications = new Notifications(options.clock);
    this.runner = new JobRunner({
      accounts: options.accounts,
      clock: options.clock,
      fetcher: options.fetcher,
      origin: options.origin,
      itemCost: options.itemCost,
      isLive,
      finished: (project, job) => this.notifications.notify(project, job),
      deliver: (project, job) => this.webhooks.deliver(project, job),
      onChange: options.onChange,
      queuedMs: () => (options.quirks.has('queued-jobs') ? options.quirks.settings.jobQueuedMs : undefined),
    });
    this.scheduler = new ProjectScheduler({
      clock: options.clock,
      isLive,
      fire: (project, at) => this.runner.enqueue(project, at),
    });
  }

  get jobs(): Map<number, StoredJob> {
    return this.runner.jobs;
  }

  get deliveries(): WebhookDelivery[] {
    return this.webhooks.deliveries;
  }

  get outbox(): OutboxMessage[] {
    return this.notifications.outbox;
  }

  async handle(req: EmulatorRequest): Promise<EmulatorResponse | undefined> {
    const [api, projects, id, sub, jobId, extra] = req.segments;
    if (api !== 'api' || projects !== 'projects') return undefined;
    // Every DataPipeline call carries the key in the query (API-NOTES).
    const account = this.options.accounts.authenticate(req.query.get('api_key'));
    if (id === undefined) {
      if (req.method === 'GET') {
        const now = this.options.clock.now();
        const listed = this.owned(account).filter((p) => listedYet(p.createdAt, now, this.options.quirks));
        return answerList(
          req,
          listed.map((p) => this.describe(p)),
          this.options.quirks,
        );
      }
      if (req.method === 'POST') return this.create(account, req);
      return json(405, { error: 'method not allowed' });
    }
    const project = this.find(account, id);
    if (sub === undefined) {
      if (req.method === 'GET') {
        // lagging-list with notFoundMs: a project made a moment ago is not found by id yet.
        if (!foundYet(project.createdAt, this.options.clock.now(), this.options.quirks))
          throw new HttpError(404, `project ${id} not found`);
        return json(200, this.describe(project));
      }
      if (req.method === 'PATCH') return this.update(account, project, req);
      if (req.method === 'DELETE') return this.archive(project);
      return json(405, { error: 'method not allowed' });
    }
    if (sub !== 'jobs') return undefined;
    if (jobId === undefined) {
      if (req.method !== 'GET') return json(405, { error: 'method not allowed' });
      const jobs = [...this.jobs.values()].filter((j) => j.projectId === project.id);
      return answerList(req, jobs.map(describeJob), this.options.quirks);
    }
    const job = this.jobs.get(Number(jobId));
    if (job === undefined || job.projectId !== project.id || !/^\d+$/.test(jobId)) {
      throw new HttpError(404, `job ${jobId} of project ${project.id} not found`);
    }
    if (extra === 'results' && req.method === 'GET') return resultsResponse(project, job);
    if (extra === undefined && req.method === 'GET') return json(200, describeJob(job));
    if (extra === undefined && req.method === 'DELETE') {
      this.runner.cancel(job);
      return json(200, describeJob(job));
    }
    return undefined;
  }

  private owned(account: Account): StoredProject[] {
    return [...this.projects.values()].filter((p) => p.account === account.key);
  }

  private find(account: Account, id: string): StoredProject {
    const project = /^\d+$/.test(id) ? this.projects.get(Number(id)) : undefined;
    if (project === undefined || project.account !== account.key)
      throw new HttpError(404, `project ${id} not found`);
    return project;
  }

  private create(account: Account, req: EmulatorRequest): EmulatorResponse {
    this.options.quirks.refuseFirstCreate('projects', account.key);
    const body = bodyObject(req);
    if (body.projectInput === undefined) throw new HttpError(400, 'projectInput is required');
    if (account.credits <= 0) throw new HttpError(402, 'Credits exhausted');
    const now = this.options.clock.now();
    const createdAt = this.options.clock.iso();
    // Defaults of the real service when a create leaves fields out (API-NOTES): a weekly recurring run, scheduling
    // enabled, a generated name, results saved, and the notification defaults.
    const project: StoredProject = {
      id: this.nextProjectId++,
      account: account.key,
      name: `Project created at ${createdAt}`,
      schedulingEnabled: true,
      scrapingInterval: 'weekly',
      scheduledAt: null,
      createdAt,
      projectType: 'urls',
      projectInput: { type: 'list', list: [] },
      projectOutput: { type: 'save' },
      webhookOutput: null,
      notificationConfig: { ...NOTIFICATION_DEFAULTS },
      apiParams: {},
      output_format: 'JSON',
      nextRunAt: null,
      queued: [],
      running: null,
    };
    applyFields(project, body, 'create');
    project.nextRunAt = project.scheduledAt !== null ? resolveScheduledAt(project.scheduledAt, now) : now;
    this.projects.set(project.id, project);
    this.scheduler.arm(project);
    this.options.onChange();
    return json(201, this.describe(project));
  }

  private update(account: Account, project: StoredProject, req: EmulatorRequest): EmulatorResponse {
    const body = bodyObject(req);
    if (account.credits <= 0) throw new HttpError(402, 'Credits exhausted');
    const intervalBefore = project.scrapingInterval;
    const nextRunBefore = project.nextRunAt;
    applyFields(project, body, 'update');
    const now = this.options.clock.now();
    if (body.scheduledAt !== undefined && project.scheduledAt !== null) {
      project.nextRunAt = resolveScheduledAt(project.scheduledAt, now);
    } else if (
      // A new interval gives a project whose run is over its next run only while scheduling is enabled: with it
      // false the project is not rescheduled after its next run (seed 2, schedulingEnabled).
      project.scrapingInterval !== intervalBefore &&
      project.nextRunAt === null &&
      project.schedulingEnabled &&
      project.scrapingInterval !== ONCE
    ) {
      project.nextRunAt = nextAfter(project.scrapingInterval, now);
    }
    // A run left where it was already has its timer, which reads the project as it is when it fires; a moved run's
    // timer replaces the one it had (ProjectScheduler.arm), so PATCHes add no timers either way.
    if (project.nextRunAt !== nextRunBefore) this.scheduler.arm(project);
    this.options.onChange();
    return json(200, this.describe(project));
  }

  /** Archived projects leave the list and answer 404; the API cannot bring them back (API-NOTES). */
  private archive(project: StoredProject): EmulatorResponse {
    this.projects.delete(project.id);
    this.archived.set(project.id, project);
    project.nextRunAt = null;
    // Drops its timer: the run would do nothing (isLive), but the timer stayed in the clock until it fell due, a week
    // later for a weekly project.
    this.scheduler.arm(project);
    project.queued = [];
    this.options.onChange();
    return { status: 204 };
  }

  describe(project: StoredProject): Record<string, unknown> {
    const scheduledAt = project.nextRunAt !== null ? new Date(project.nextRunAt).toISOString() : null;
    if (this.options.quirks.has('sparse-projects')) return describeSparse(project, scheduledAt);
    return {
      id: project.id,
      name: project.name,
      schedulingEnabled: project.schedulingEnabled,
      scrapingInterval: project.scrapingInterval,
      scheduledAt,
      createdAt: project.createdAt,
      projectType: project.projectType,
      projectInput: project.projectInput,
      projectOutput: project.projectOutput,
      webhookOutput: project.webhookOutput,
      notificationConfig: project.notificationConfig,
      apiParams: project.apiParams,
      output_format: project.output_format,
    };
  }

  /**
   * Resolves once no run is due and no job is running (tests and the soak check). A run due now whose real timer has
   * not fired yet counts as due: without that, a project created with `scheduledAt: now` could be idle before its run.
   */
  async idle(): Promise<void> {
    for (;;) {
      this.options.clock.fireDue();
      if (!this.runner.busy) return;
      await this.runner.idle();
    }
  }

  reset(): void {
    this.projects.clear();
    this.archived.clear();
    this.runner.reset();
    this.webhooks.reset();
    this.notifications.reset();
    this.nextProjectId = 1;
  }

  /** State to persist with --data-dir. */
  snapshot(): ProjectSnapshot {
    return {
      projects: [...this.projects.values()],
      archived: [...this.archived.values()],
      jobs: [...this.jobs.values()],
      nextProjectId: this.nextProjectId,
      nextJobId: this.runner.nextJobId,
    };
  }

  restore(state: ProjectSnapshot): void {
    for (const job of state.jobs) {
      if (job.status === 'Running' || job.status === 'Queued') {
        job.status = 'Failed';
        job.error = 'interrupted: the emulator stopped while the job ran';
      }
      // The emulator may listen on another port now.
      job.resultsUrl = `${this.options.origin()}/api/projects/${job.projectId}/jobs/${job.id}/results`;
      this.jobs.set(job.id, job);
    }
    for (const project of state.archived) this.archived.set(project.id, project);
    this.nextProjectId = state.nextProjectId;
    this.runner.nextJobId = state.nextJobId;
    for (const project of state.projects) {
      project.running = null;
      this.projects.set(project.id, project);
      this.scheduler.arm(project);
      this.runner.resume(project);
    }
  }
}

/**
 * sparse-projects: the documented create answer carries `projectOutput` and no `output_format`, `apiParams`,
 * `webhookOutput` or `scheduledAt` keys (API-NOTES); one source puts the webhook inside `projectOutput`. So keys
 * whose value is null or the default are left out, and a webhook is reported as `projectOutput: {type: "webhook"}`.
 */
function describeSparse(project: StoredProject, scheduledAt: string | null): Record<string, unknown> {
  const hook = project.webhookOutput;
  return {
    id: project.id,
    name: project.name,
    schedulingEnabled: project.schedulingEnabled,
    scrapingInterval: project.scrapingInterval,
    ...(scheduledAt !== null ? { scheduledAt } : {}),
    createdAt: project.createdAt,
    projectType: project.projectType,
    projectInput: project.projectInput,
    projectOutput:
      hook === null
        ? project.projectOutput
        : {
            type: 'webhook',
            url: hook.url,
            ...(hook.webhookEncoding !== undefined ? { webhookEncoding: hook.webhookEncoding } : {}),
          },
    notificationConfig: project.notificationConfig,
    ...(Object.keys(project.apiParams).length > 0 ? { apiParams: project.apiParams } : {}),
    ...(project.output_format !== 'JSON' ? { output_format: project.output_format } : {}),
  };
}

function describeJob(job: StoredJob): Record<string, unknown> {
  const { results: _results, ...rest } = job;
  return rest;
}
