import type { EmulatorClock } from './clock.js';
import type { StoredJob, StoredProject } from './project-records.js';
import { resultsFile } from './result-formats.js';
import { RECORD_LIMIT, RingLog } from './ring-log.js';

/** One try at posting a job's results to its project's webhook (GET /_emulator/webhooks). */
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

export interface WebhookSenderOptions {
  clock: EmulatorClock;
  tries?: number;
  retryDelayMs?: number;
  /** How many deliveries are kept, the newest (RECORD_LIMIT). */
  limit?: number;
}

/** Posts results to `webhookOutput`: JSON, or multipart form data; a bounded number of tries, each recorded. */
export class WebhookSender {
  private readonly tried: RingLog<WebhookDelivery>;
  /** The newest tries, oldest first. */
  readonly deliveries: WebhookDelivery[];

  constructor(private readonly options: WebhookSenderOptions) {
    this.tried = new RingLog<WebhookDelivery>(options.limit ?? RECORD_LIMIT);
    this.deliveries = this.tried.view;
  }

  async deliver(project: StoredProject, job: StoredJob): Promise<void> {
    const hook = project.webhookOutput;
    if (hook === null || job.status === 'Cancelled') return;
    const multipart = hook.webhookEncoding === 'multipart_form_data_encoding';
    const tries = this.options.tries ?? 3;
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
          signal: AbortSignal.any([AbortSignal.timeout(10_000), this.options.clock.stopped]),
          ...(multipart ? { body: multipartBody(project, job) } : jsonBody(project, job)),
        });
        await response.arrayBuffer();
        record.status = response.status;
        record.delivered = response.ok;
      } catch (error) {
        record.error = (error as Error).message;
      }
      this.tried.add(record);
      if (record.delivered || this.options.clock.stopped.aborted) return;
      if (attempt < tries)
        await new Promise((r) => setTimeout(r, this.options.retryDelayMs ?? 200 * attempt));
    }
  }

  reset(): void {
    this.tried.clear();
  }
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
  const file = resultsFile(project, job);
  form.set(
    'results',
    new Blob([file.text], { type: file.type }),
    project.output_format === 'CSV' ? 'results.csv' : 'results.json',
  );
  return form;
}
