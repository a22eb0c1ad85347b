import { Cron } from 'croner';
import {
  NAMED_INTERVALS as INTERVAL_NAMES,
  NOTIFICATION_DEFAULTS,
  NOTIFY_ON_FAILURE as FAILURE_VALUES,
  NOTIFY_ON_SUCCESS as SUCCESS_VALUES,
  PROJECT_TYPES as SEED_PROJECT_TYPES,
} from '../model/vocabulary.js';
import type { Accounts, Account } from './accounts.js';
import type { EmulatorClock } from './clock.js';
import type { PageFetcher } from './fetcher.js';
import { bodyObject, HttpError, json } from './http.js';
import type { EmulatorRequest, EmulatorResponse } from './http.js';

/** The project types of seed 2, exactly as spelled there (one list with the manifest schema). */
const PROJECT_TYPES: ReadonlySet<string> = new Set(SEED_PROJECT_TYPES);
const NAMED_INTERVALS: ReadonlySet<string> = new Set(INTERVAL_NAMES);
/** API-NOTES: the literal for scrape-once is unknown; one source says `once`. The emulator accepts it. */
export const ONCE = 'once';
const NOTIFY_ON_SUCCESS: ReadonlySet<string> = new Set(SUCCESS_VALUES);
const NOTIFY_ON_FAILURE: ReadonlySet<string> = new Set(FAILURE_VALUES);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export interface StoredProject {
  id: number;
  account: string;
  name: string;
  schedulingEnabled: boolean;
  scrapingInterval: string;
  scheduledAt: string | null;
  createdAt: string;
  projectType: string;
  projectInput: { type: 'list'; list: string[] } | { type: 'webhook_input'; url: string };
  projectOutput: { type: 'save' };
  webhookOutput: { url: string; webhookEncoding?: string } | null;
  notificationConfig: { notifyOnSuccess: string; notifyOnFailure: string };
  apiParams: Record<string, unknown>;
  output_format: 'JSON' | 'CSV';
  /** Emulated ms of the next run, or null when none is scheduled. */
  nextRunAt: number | null;
  /** Runs that fell due while a job was running: only one job of a project runs at a time (API-NOTES). */
  queued: number[];
  running: number | null;
}

export interface StoredJob {
  id: number;
  projectId: number;
  status: 'Running' | 'Finished' | 'Failed' | 'Cancelled';
  /** The scheduled time this run answers (ISO). */
  scheduledFor: string;
  startedAt: string;
  finishedAt: string | null;
  inputCount: number;
  doneCount: number;
  failedCount: number;
  credits: number;
  resultsUrl: string;
  error: string | null;
  results: Record<string, unknown>[];
}

export interface WebhookDelivery {
  at: string;
  projectId: number;
  jobId: number;
  url: string;
  encoding: 'json' | 'multipart_form_data_encoding';
  attempt: number;
  status: number | null;
  error: string | null;
  delivered: boolean;
}

export interface OutboxMessage {
  at: string;
  projectId: number;
  projectName: string;
  kind: 'success' | 'failure';
  cadence: 'with_every_run' | 'daily' | 'weekly';
  subject: string;
  jobIds: number[];
}

export interface ProjectServiceOptions {
  accounts: Accounts;
  clock: EmulatorClock;
  fetcher: PageFetcher;
  /** The origin, for results links. */
  origin: () => string;
  onChange: () => void;
  /** Credits per scraped item (public docs: 6 for a plain page, more with render or for structured targets). */
  itemCost: (project: StoredProject) => number;
  webhookTries?: number;
  webhookRetryDelayMs?: number;
}

/** Default credit cost of one item: 6 plain, 16 with render, 25 for a structured (non-`urls`) type. */
export function defaultItemCost(project: StoredProject): number {
  if (project.projectType !== 'urls') return 25;
  return project.apiParams.render === true ? 16 : 6;
}

/** The DataPipeline project service of seed 2, with jobs, a scheduler, webhooks and notifications. */
export class ProjectService {
  readonly projects = new Map<number, StoredProject>();
  readonly archived = new Map<number, StoredProject>();
  readonly jobs = new Map<number, StoredJob>();
  readonly deliveries: WebhookDelivery[] = [];
  readonly outbox: OutboxMessage[] = [];
  private nextProjectId = 1;
  private nextJobId = 1;
  private readonly cancelled = new Set<number>();
  private readonly digests = new Map<string, OutboxMessage>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly options: ProjectServiceOptions) {}

  async handle(req: EmulatorRequest): Promise<EmulatorResponse | undefined> {
    const [api, projects, id, sub, jobId, extra] = req.segments;
    if (api !== 'api' || projects !== 'projects') return undefined;
    // Every DataPipeline call carries the key in the query (API-NOTES).
    const account = this.options.accounts.authenticate(req.query.get('api_key'));
    if (id === undefined) {
      if (req.method === 'GET')
        return json(
          200,
          this.owned(account).map((p) => this.describe(p)),
        );
      if (req.method === 'POST') return this.create(account, req);
      return json(405, { error: 'method not allowed' });
    }
    const project = this.find(account, id);
    if (sub === undefined) {
      if (req.method === 'GET') return json(200, this.describe(project));
      if (req.method === 'PATCH') return this.update(account, project, req);
      if (req.method === 'DELETE') return this.archive(project);
      return json(405, { error: 'method not allowed' });
    }
    if (sub !== 'jobs') return undefined;
    if (jobId === undefined) {
      if (req.method !== 'GET') return json(405, { error: 'method not allowed' });
      const jobs = [...this.jobs.values()].filter((j) => j.projectId === project.id);
      return json(200, jobs.map(describeJob));
    }
    const job = this.jobs.get(Number(jobId));
    if (job === undefined || job.projectId !== project.id || !/^\d+$/.test(jobId)) {
      throw new HttpError(404, `job ${jobId} of project ${project.id} not found`);
    }
    if (extra === 'results' && req.method === 'GET') return results(project, job);
    if (extra === undefined && req.method === 'GET') return json(200, describeJob(job));
    if (extra === undefined && req.method === 'DELETE') return this.cancel(job);
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
    this.arm(project);
    this.options.onChange();
    return json(201, this.describe(project));
  }

  private update(account: Account, project: StoredProject, req: EmulatorRequest): EmulatorResponse {
    const body = bodyObject(req);
    if (account.credits <= 0) throw new HttpError(402, 'Credits exhausted');
    const intervalBefore = project.scrapingInterval;
    applyFields(project, body, 'update');
    const now = this.options.clock.now();
    if (body.scheduledAt !== undefined && project.scheduledAt !== null) {
      project.nextRunAt = resolveScheduledAt(project.scheduledAt, now);
    } else if (
      project.scrapingInterval !== intervalBefore &&
      project.nextRunAt === null &&
      project.scrapingInterval !== ONCE
    ) {
      project.nextRunAt = nextAfter(project.scrapingInterval, now);
    }
    this.arm(project);
    this.options.onChange();
    return json(200, this.describe(project));
  }

  /** Archived projects leave the list and answer 404; the API cannot bring them back (API-NOTES). */
  private archive(project: StoredProject): EmulatorResponse {
    this.projects.delete(project.id);
    this.archived.set(project.id, project);
    project.nextRunAt = null;
    project.queued = [];
    this.options.onChange();
    return { status: 204 };
  }

  private cancel(job: StoredJob): EmulatorResponse {
    if (job.status !== 'Running') throw new HttpError(400, `job ${job.id} is not running (${job.status})`);
    // Items already in flight finish first (API-NOTES); the runner stops before the next one.
    this.cancelled.add(job.id);
    job.status = 'Cancelled';
    this.options.onChange();
    return json(200, describeJob(job));
  }

  describe(project: StoredProject): Record<string, unknown> {
    return {
      id: project.id,
      name: project.name,
      schedulingEnabled: project.schedulingEnabled,
      scrapingInterval: project.scrapingInterval,
      scheduledAt: project.nextRunAt !== null ? new Date(project.nextRunAt).toISOString() : null,
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

  /** Sets the timer of the project's next run (the clock drops stale timers by checking the time on firing). */
  private arm(project: StoredProject): void {
    const at = project.nextRunAt;
    if (at === null) return;
    this.options.clock.at(at, () => this.due(project, at));
  }

  private due(project: StoredProject, at: number): void {
    if (this.projects.get(project.id) !== project || project.nextRunAt !== at) return;
    project.nextRunAt = this.following(project, at);
    this.arm(project);
    if (project.running !== null) project.queued.push(at);
    else this.start(project, at);
    this.options.onChange();
  }

  /** The run after one scheduled at `at`: none for scrape-once, or when scheduling is disabled. */
  private following(project: StoredProject, at: number): number | null {
    if (!project.schedulingEnabled || project.scrapingInterval === ONCE) return null;
    return nextAfter(project.scrapingInterval, at);
  }

  private start(project: StoredProject, scheduledFor: number): void {
    const job: StoredJob = {
      id: this.nextJobId++,
      projectId: project.id,
      status: 'Running',
      scheduledFor: new Date(scheduledFor).toISOString(),
      startedAt: this.options.clock.iso(),
      finishedAt: null,
      inputCount: 0,
      doneCount: 0,
      failedCount: 0,
      credits: 0,
      resultsUrl: `${this.options.origin()}/api/projects/${project.id}/jobs/${this.nextJobId - 1}/results`,
      error: null,
      results: [],
    };
    this.jobs.set(job.id, job);
    project.running = job.id;
    const run = this.run(project, job).finally(() => {
      this.inFlight.delete(run);
      project.running = null;
      const next = project.queued.shift();
      if (next !== undefined && this.projects.get(project.id) === project) this.start(project, next);
      this.options.onChange();
    });
    this.inFlight.add(run);
  }

  private async run(project: StoredProject, job: StoredJob): Promise<void> {
    let inputs: string[];
    try {
      inputs = await this.inputsOf(project);
    } catch (error) {
      this.finish(project, job, 'Failed', (error as Error).message);
      return;
    }
    job.inputCount = inputs.length;
    for (const input of inputs) {
      if (this.cancelled.has(job.id)) break;
      const cost = this.options.itemCost(project);
      try {
        this.options.accounts.charge(this.options.accounts.authenticate(project.account), cost);
      } catch {
        job.failedCount++;
        job.results.push({ input, status: 'failed', error: 'Credits exhausted' });
        continue;
      }
      job.credits += cost;
      job.results.push(await this.scrape(project, input));
      if (job.results[job.results.length - 1]?.status === 'done') job.doneCount++;
      else job.failedCount++;
    }
    const status = this.cancelled.has(job.id)
      ? 'Cancelled'
      : job.inputCount > 0 && job.failedCount === job.inputCount
        ? 'Failed'
        : 'Finished';
    this.finish(project, job, status, status === 'Failed' ? 'every input failed' : null);
    await this.deliver(project, job);
  }

  private finish(
    project: StoredProject,
    job: StoredJob,
    status: StoredJob['status'],
    error: string | null,
  ): void {
    job.status = status;
    job.error = error;
    job.finishedAt = this.options.clock.iso();
    this.cancelled.delete(job.id);
    if (status !== 'Cancelled') this.notify(project, job);
  }

  private async inputsOf(project: StoredProject): Promise<string[]> {
    const input = project.projectInput;
    if (input.type === 'list') return input.list;
    // webhook_input: fetched when the job starts; newline-delimited (seed 2).
    try {
      const page = await this.options.fetcher(input.url, {});
      return page.html
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter((l) => l !== '');
    } catch (error) {
      throw new Error(`could not fetch the input list from ${input.url}: ${(error as Error).message}`);
    }
  }

  private async scrape(project: StoredProject, input: string): Promise<Record<string, unknown>> {
    if (project.projectType !== 'urls') {
      // Structured types cannot be emulated faithfully: one record per input, marked as such.
      return {
        input,
        status: 'done',
        emulated: true,
        projectType: project.projectType,
        note: `emulated ${project.projectType} record: the real service returns structured data for this input`,
      };
    }
    try {
      const page = await this.options.fetcher(input, { render: project.apiParams.render === true });
      return { input, status: 'done', content: page.html };
    } catch (error) {
      return { input, status: 'failed', error: (error as Error).message };
    }
  }

  /** Posts the results to the webhook: JSON, or multipart form data; a bounded number of tries, each recorded. */
  private async deliver(project: StoredProject, job: StoredJob): Promise<void> {
    const hook = project.webhookOutput;
    if (hook === null || job.status === 'Cancelled') return;
    const multipart = hook.webhookEncoding === 'multipart_form_data_encoding';
    const tries = this.options.webhookTries ?? 3;
    for (let attempt = 1; attempt <= tries; attempt++) {
      const record: WebhookDelivery = {
        at: this.options.clock.iso(),
        projectId: project.id,
        jobId: job.id,
        url: hook.url,
        encoding: multipart ? 'multipart_form_data_encoding' : 'json',
        attempt,
        status: null,
        error: null,
        delivered: false,
      };
      try {
        const response = await globalThis.fetch(hook.url, {
          method: 'POST',
          signal: AbortSignal.timeout(10_000),
          ...(multipart ? { body: multipartBody(project, job) } : jsonBody(project, job)),
        });
        await response.arrayBuffer();
        record.status = response.status;
        record.delivered = response.ok;
      } catch (error) {
        record.error = (error as Error).message;
      }
      this.deliveries.push(record);
      if (record.delivered) return;
      if (attempt < tries)
        await new Promise((r) => setTimeout(r, this.options.webhookRetryDelayMs ?? 200 * attempt));
    }
  }

  /** Email notifications per notificationConfig, kept in the outbox; daily and weekly ones become digests. */
  private notify(project: StoredProject, job: StoredJob): void {
    const kind = job.status === 'Failed' ? 'failure' : 'success';
    const cadence =
      kind === 'success'
        ? project.notificationConfig.notifyOnSuccess
        : project.notificationConfig.notifyOnFailure;
    if (cadence === 'never') return;
    const subject = `${project.name}: job ${job.id} ${job.status.toLowerCase()} (${job.doneCount} done, ${job.failedCount} failed)`;
    if (cadence === 'with_every_run') {
      this.outbox.push({
        at: this.options.clock.iso(),
        projectId: project.id,
        projectName: project.name,
        kind,
        cadence,
        subject,
        jobIds: [job.id],
      });
      return;
    }
    const now = this.options.clock.now();
    // Digests go out at the end of the UTC day, or of the week (Monday 00:00 UTC).
    const end = cadence === 'daily' ? Math.floor(now / DAY) * DAY + DAY : nextMonday(now);
    const key = `${project.id}:${kind}:${cadence}:${end}`;
    const existing = this.digests.get(key);
    if (existing !== undefined) {
      existing.jobIds.push(job.id);
      existing.subject = `${project.name}: ${cadence} digest, ${existing.jobIds.length} ${kind === 'success' ? 'successful' : 'failed'} jobs`;
      return;
    }
    const digest: OutboxMessage = {
      at: new Date(end).toISOString(),
      projectId: project.id,
      projectName: project.name,
      kind,
      cadence: cadence as 'daily' | 'weekly',
      subject: `${project.name}: ${cadence} digest, 1 ${kind === 'success' ? 'successful' : 'failed'} job`,
      jobIds: [job.id],
    };
    this.digests.set(key, digest);
    this.options.clock.at(end, () => {
      this.digests.delete(key);
      this.outbox.push(digest);
    });
  }

  /** Resolves once no job is running (tests and the soak check). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  reset(): void {
    this.projects.clear();
    this.archived.clear();
    this.jobs.clear();
    this.deliveries.length = 0;
    this.outbox.length = 0;
    this.digests.clear();
    this.cancelled.clear();
    this.nextProjectId = 1;
    this.nextJobId = 1;
  }

  /** State to persist with --data-dir (jobs in flight are not resumed: they count as interrupted). */
  snapshot(): {
    projects: StoredProject[];
    archived: StoredProject[];
    jobs: StoredJob[];
    nextProjectId: number;
    nextJobId: number;
  } {
    return {
      projects: [...this.projects.values()],
      archived: [...this.archived.values()],
      jobs: [...this.jobs.values()],
      nextProjectId: this.nextProjectId,
      nextJobId: this.nextJobId,
    };
  }

  restore(state: ReturnType<ProjectService['snapshot']>): void {
    for (const job of state.jobs) {
      if (job.status === 'Running') {
        job.status = 'Failed';
        job.error = 'interrupted: the emulator stopped while the job ran';
      }
      this.jobs.set(job.id, job);
    }
    for (const project of state.archived) this.archived.set(project.id, project);
    for (const project of state.projects) {
      project.running = null;
      this.projects.set(project.id, project);
      this.arm(project);
    }
    this.nextProjectId = state.nextProjectId;
    this.nextJobId = state.nextJobId;
  }
}

function describeJob(job: StoredJob): Record<string, unknown> {
  const { results: _results, ...rest } = job;
  return rest;
}

function results(project: StoredProject, job: StoredJob): EmulatorResponse {
  if (project.output_format === 'CSV') {
    const columns = [...new Set(job.results.flatMap((r) => Object.keys(r)))];
    const lines = [columns.join(','), ...job.results.map((r) => columns.map((c) => csvCell(r[c])).join(','))];
    return { status: 200, text: `${lines.join('\n')}\n`, headers: { 'content-type': 'text/csv' } };
  }
  return json(200, job.results);
}

function csvCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text = String(value);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function resultsPayload(project: StoredProject, job: StoredJob): { type: string; text: string } {
  const response = results(project, job);
  return response.text !== undefined
    ? { type: 'text/csv', text: response.text }
    : { type: 'application/json', text: JSON.stringify(response.body) };
}

function jsonBody(project: StoredProject, job: StoredJob): { body: string; headers: Record<string, string> } {
  return {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      projectId: project.id,
      jobId: job.id,
      status: job.status,
      output_format: project.output_format,
      results: job.results,
    }),
  };
}

/** Global FormData with global fetch (undici's own fetch would send it as the text "[object FormData]"). */
function multipartBody(project: StoredProject, job: StoredJob): FormData {
  const form = new FormData();
  form.set('projectId', String(project.id));
  form.set('jobId', String(job.id));
  form.set('status', job.status);
  const payload = resultsPayload(project, job);
  form.set(
    'results',
    new Blob([payload.text], { type: payload.type }),
    project.output_format === 'CSV' ? 'results.csv' : 'results.json',
  );
  return form;
}

function nextMonday(now: number): number {
  const day = new Date(Math.floor(now / DAY) * DAY);
  const daysToMonday = (8 - day.getUTCDay()) % 7 || 7;
  return day.getTime() + daysToMonday * DAY;
}

/** The next run after `after` for a named interval or a cron expression (UTC). */
export function nextAfter(interval: string, after: number): number | null {
  if (interval === 'hourly') return after + HOUR;
  if (interval === 'daily') return after + DAY;
  if (interval === 'weekly') return after + 7 * DAY;
  if (interval === 'monthly') {
    const date = new Date(after);
    date.setUTCMonth(date.getUTCMonth() + 1);
    return date.getTime();
  }
  if (interval === ONCE) return null;
  const next = new Cron(interval, { paused: true, timezone: 'Etc/UTC' }).nextRun(new Date(after));
  return next === null ? null : next.getTime();
}

function resolveScheduledAt(value: string, now: number): number {
  return value === 'now' ? now : Date.parse(value);
}

/** Validates and applies the fields of a create or PATCH: 400 naming the field for any invalid value. */
function applyFields(project: StoredProject, body: Record<string, unknown>, mode: 'create' | 'update'): void {
  const fail = (field: string, what: string): never => {
    throw new HttpError(400, `${field}: ${what}`);
  };
  for (const [key, value] of Object.entries(body)) {
    switch (key) {
      case 'name':
        if (typeof value !== 'string' || value.trim() === '') fail(key, 'must be a non-empty string');
        project.name = value as string;
        break;
      case 'schedulingEnabled':
        if (typeof value !== 'boolean') fail(key, 'must be true or false');
        project.schedulingEnabled = value as boolean;
        break;
      case 'scrapingInterval': {
        if (typeof value !== 'string') fail(key, 'must be a string');
        const interval = value as string;
        if (interval !== ONCE && !NAMED_INTERVALS.has(interval)) {
          try {
            new Cron(interval, { paused: true });
          } catch {
            fail(key, `must be once, hourly, daily, weekly, monthly or a cron expression, got "${interval}"`);
          }
        }
        project.scrapingInterval = interval;
        break;
      }
      case 'scheduledAt':
        if (typeof value !== 'string' || (value !== 'now' && Number.isNaN(Date.parse(value)))) {
          fail(key, 'must be an ISO 8601 date-time or now');
        }
        project.scheduledAt = value as string;
        break;
      case 'projectType':
        if (typeof value !== 'string' || !PROJECT_TYPES.has(value))
          fail(key, `unknown project type ${JSON.stringify(value)}`);
        project.projectType = value as string;
        break;
      case 'projectInput':
        project.projectInput = checkInput(value, fail);
        break;
      case 'webhookOutput':
        project.webhookOutput = checkWebhook(value, fail);
        break;
      case 'notificationConfig': {
        if (value === null || typeof value !== 'object' || Array.isArray(value))
          fail(key, 'must be an object');
        const config = value as Record<string, unknown>;
        for (const k of Object.keys(config))
          if (k !== 'notifyOnSuccess' && k !== 'notifyOnFailure') fail(key, `unknown key ${k}`);
        const success = config.notifyOnSuccess ?? project.notificationConfig.notifyOnSuccess;
        const failure = config.notifyOnFailure ?? project.notificationConfig.notifyOnFailure;
        if (typeof success !== 'string' || !NOTIFY_ON_SUCCESS.has(success))
          fail(`${key}.notifyOnSuccess`, 'must be never, with_every_run, daily or weekly');
        if (typeof failure !== 'string' || !NOTIFY_ON_FAILURE.has(failure))
          fail(`${key}.notifyOnFailure`, 'must be with_every_run, daily or weekly');
        project.notificationConfig = {
          notifyOnSuccess: success as string,
          notifyOnFailure: failure as string,
        };
        break;
      }
      case 'apiParams':
        if (value === null || typeof value !== 'object' || Array.isArray(value))
          fail(key, 'must be an object');
        project.apiParams = value as Record<string, unknown>;
        break;
      case 'output_format':
        if (value !== 'JSON' && value !== 'CSV') fail(key, 'must be JSON or CSV');
        project.output_format = value as 'JSON' | 'CSV';
        break;
      case 'id':
      case 'createdAt':
      case 'projectOutput':
        fail(key, mode === 'create' ? 'is set by the service' : 'cannot be changed');
        break;
      default:
        fail(key, 'unknown field');
    }
  }
}

function checkInput(
  value: unknown,
  fail: (field: string, what: string) => never,
): StoredProject['projectInput'] {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return fail('projectInput', 'must be an object');
  const input = value as Record<string, unknown>;
  const type = input.type ?? 'list';
  if (type === 'list') {
    if (!Array.isArray(input.list) || input.list.some((e) => typeof e !== 'string')) {
      return fail('projectInput.list', 'must be a list of strings');
    }
    return { type: 'list', list: input.list as string[] };
  }
  if (type === 'webhook_input') {
    if (typeof input.url !== 'string' || !/^https?:\/\//.test(input.url))
      return fail('projectInput.url', 'must be an http(s) URL');
    return { type: 'webhook_input', url: input.url };
  }
  return fail('projectInput.type', 'must be list or webhook_input');
}

function checkWebhook(
  value: unknown,
  fail: (field: string, what: string) => never,
): StoredProject['webhookOutput'] {
  if (value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value))
    return fail('webhookOutput', 'must be an object or null');
  const hook = value as Record<string, unknown>;
  if (typeof hook.url !== 'string' || !/^https?:\/\//.test(hook.url))
    return fail('webhookOutput.url', 'must be an http(s) URL');
  if (hook.webhookEncoding !== undefined && hook.webhookEncoding !== 'multipart_form_data_encoding') {
    return fail('webhookOutput.webhookEncoding', 'must be multipart_form_data_encoding');
  }
  return {
    url: hook.url,
    ...(hook.webhookEncoding !== undefined ? { webhookEncoding: hook.webhookEncoding as string } : {}),
  };
}
