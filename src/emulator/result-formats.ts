import { json } from './http.js';
import type { EmulatorResponse } from './http.js';
import type { StoredJob, StoredProject } from './project-records.js';

/** The results download of a job: JSON, or CSV with `output_format: CSV` (seed 2). */
export function resultsResponse(project: StoredProject, job: StoredJob): EmulatorResponse {
  if (project.output_format === 'CSV') {
    return { status: 200, text: resultsCsv(job), headers: { 'content-type': 'text/csv' } };
  }
  return json(200, job.results);
}

/** The results as a file in the project's output format, for webhook attachments. */
export function resultsFile(project: StoredProject, job: StoredJob): { type: string; text: string } {
  return project.output_format === 'CSV'
    ? { type: 'text/csv', text: resultsCsv(job) }
    : { type: 'application/json', text: JSON.stringify(job.results) };
}

/** One column per key any record has, in first-seen order. */
function resultsCsv(job: StoredJob): string {
  const columns = [...new Set(job.results.flatMap((r) => Object.keys(r)))];
  const lines = [columns.join(','), ...job.results.map((r) => columns.map((c) => csvCell(r[c])).join(','))];
  return `${lines.join('\n')}\n`;
}

function csvCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text = String(value);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
