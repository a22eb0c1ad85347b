import type { LiveJob } from '../api/live.js';
import { printable } from './escape-text.js';
import { renderTable } from './render-table.js';
import { renderJson } from './render-json.js';

/** The jobs of one project (`scrapeform jobs`). */
export interface JobsView {
  address: string;
  jobs: LiveJob[];
}

/** Job records are undocumented (API-NOTES): the usual fields are shown when present. */
export function renderJobsTable(jobs: readonly LiveJob[]): string {
  const cell = (job: LiveJob, key: string): string => {
    const value = (job as Record<string, unknown>)[key];
    return value === undefined || value === null ? '-' : String(value);
  };
  return renderTable(
    ['id', 'status', 'scheduled for', 'started', 'finished', 'inputs', 'done', 'failed', 'credits'],
    jobs.map((j) => [
      cell(j, 'id'),
      cell(j, 'status'),
      cell(j, 'scheduledFor'),
      cell(j, 'startedAt'),
      cell(j, 'finishedAt'),
      cell(j, 'inputCount'),
      cell(j, 'doneCount'),
      cell(j, 'failedCount'),
      cell(j, 'credits'),
    ]),
  );
}

export function renderJobsHuman(view: JobsView): string {
  return view.jobs.length === 0 ? `${printable(view.address)} has no jobs yet.` : renderJobsTable(view.jobs);
}

export function renderJobsJson(view: JobsView): string {
  return renderJson(view.jobs);
}
