import type { Accounts } from './accounts.js';
import type { EmulatorClock } from './clock.js';
import type { PageFetcher } from './fetcher.js';
import { HttpError } from './http.js';
import type { StoredJob, StoredProject } from './project-records.js';

export interface JobRunnerOptions {
  accounts: Accounts;
  clock: EmulatorClock;
  fetcher: PageFetcher;
  /** The origin, for results links. */
  origin: () => string;
  /** Credits per scraped item. */
  itemCost: (project: StoredProject) => number;
  /** False once the project was archived: its queued runs then never start. */
  isLive: (project: StoredProject) => boolean;
  /** A job ended Finished or Failed (not Cancelled): for notifications. */
  finished: (project: StoredProject, job: StoredJob) => void;
  /** Sends the results of an ended job to the project's webhook, if any. */
  deliver: (project: StoredProject, job: StoredJob) => Promise<void>;
  onChange: () => void;
  /** queued-jobs quirk: emulated ms a job is listed Queued before it runs; undefined when off. */
  queuedMs: () => number | undefined;
}

/** Runs project jobs: one at a time per project, each input scraped and charged, cancellable between items. */
export class JobRunner {
  readonly jobs = new Map<number, StoredJob>();
  nextJobId = 1;
  private readonly cancelled = new Set<number>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Ends the wait of each job listed Queued (queued-jobs quirk), for a reset. */
  private readonly waiting = new Set<() => void>();

  constructor(private readonly options: JobRunnerOptions) {}

  /** A run fell due: it starts now, or waits its turn behind the project's running job (API-NOTES). */
  enqueue(project: StoredProject, scheduledFor: number): void {
    if (project.running !== null) project.queued.push(scheduledFor);
    else this.start(project, scheduledFor);
    this.options.onChange();
  }

  cancel(job: StoredJob): void {
    if (job.status !== 'Running') throw new HttpError(400, `job ${job.id} is not running (${job.status})`);
    // Items already in flight finish first (API-NOTES); the runner stops before the next one.
    this.cancelled.add(job.id);
    job.status = 'Cancelled';
    this.options.onChange();
  }

  get busy(): boolean {
    return this.inFlight.size > 0;
  }

  /** Resolves once no job is running (tests and the soak check). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  reset(): void {
    // A job listed Queued is dropped with the rest: its wait ends, and it never runs (run() finds it gone).
    for (const release of [...this.waiting]) release();
    this.jobs.clear();
    this.cancelled.clear();
    this.nextJobId = 1;
  }

  private start(project: StoredProject, scheduledFor: number): void {
    const queuedMs = this.options.queuedMs();
    const job: StoredJob = {
      id: this.nextJobId++,
      projectId: project.id,
      status: queuedMs === undefined ? 'Running' : 'Queued',
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
      // Not once the emulator closed: a run queued behind stays queued, saved as such, and starts on reload.
      const next = this.options.clock.stopped.aborted ? undefined : project.queued.shift();
      if (next !== undefined && this.options.isLive(project)) this.start(project, next);
      this.options.onChange();
    });
    this.inFlight.add(run);
  }

  /** Starts the first queued run of a project restored with no job running (data-dir reload). */
  resume(project: StoredProject): void {
    const next = project.running === null ? project.queued.shift() : undefined;
    if (next !== undefined) this.start(project, next);
  }

  private async run(project: StoredProject, job: StoredJob): Promise<void> {
    if (job.status === 'Queued') {
      // Listed Queued until a worker takes it (queued-jobs quirk); it holds the project's slot meanwhile, and a
      // cancel is refused (the emulator cancels only a running job). The emulator closing ends the wait.
      await this.queuedFor(this.options.queuedMs() ?? 0);
      if (this.options.clock.stopped.aborted || this.jobs.get(job.id) !== job) return;
      job.status = 'Running';
      job.startedAt = this.options.clock.iso();
      this.options.onChange();
    }
    let inputs: string[];
    try {
      inputs = await this.inputsOf(project);
    } catch (error) {
      if (this.options.clock.stopped.aborted) return;
      this.finish(project, job, 'Failed', (error as Error).message);
      return;
    }
    job.inputCount = inputs.length;
    for (const input of inputs) {
      // The emulator closed: the job ends where it is, unfinished, as a kill would leave it (a data dir's reload
      // marks it interrupted), and nothing is sent for it.
      if (this.options.clock.stopped.aborted) return;
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
    if (this.options.clock.stopped.aborted) return;
    const status = this.cancelled.has(job.id)
      ? 'Cancelled'
      : job.inputCount > 0 && job.failedCount === job.inputCount
        ? 'Failed'
        : 'Finished';
    this.finish(project, job, status, status === 'Failed' ? 'every input failed' : null);
    await this.options.deliver(project, job);
  }

  /** Resolves once `ms` of emulated time passed, or at once when the emulator closes. */
  private queuedFor(ms: number): Promise<void> {
    const { clock } = this.options;
    return new Promise<void>((resolve) => {
      if (clock.stopped.aborted) return resolve();
      // Ended by its timer, the emulator closing or a reset (release), whichever comes first; each leaves nothing
      // behind: a listener left on `stopped` per queued job piled up in a long-running emulator.
      const end = (early: boolean): void => {
        this.waiting.delete(release);
        clock.stopped.removeEventListener('abort', release);
        if (early) drop();
        resolve();
      };
      const release = (): void => end(true);
      const drop = clock.at(clock.now() + ms, () => end(false));
      clock.stopped.addEventListener('abort', release, { once: true });
      this.waiting.add(release);
    });
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
    if (status !== 'Cancelled') this.options.finished(project, job);
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
}
