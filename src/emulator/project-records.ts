/** A DataPipeline project as the emulator keeps it (seed 2), with its scheduling state. */
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

/** One run of a project and what it scraped. */
export interface StoredJob {
  id: number;
  projectId: number;
  /** Queued only with the queued-jobs quirk: started, not yet taken by a worker. */
  status: 'Queued' | 'Running' | 'Finished' | 'Failed' | 'Cancelled';
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
