import { formatDuration } from '../duration.js';
import { renderTable } from './render-table.js';
import { renderJson } from './render-json.js';

/** One managed object as `scrapeform status` shows it. */
export interface StatusRow {
  address: string;
  id: string | number;
  version?: number | null;
  status: string;
  drift: boolean;
  /** How long the latest version has been generating, in ms (parsers still GENERATING). */
  generatingForMs?: number;
  schedule?: string;
  nextRun?: string | null;
  lastJob?: { id: unknown; status?: string; doneCount?: unknown; failedCount?: unknown } | null;
  /** Why the project's job list could not be read (its last job is then unknown, shown `unreadable`). */
  jobsError?: string;
  /**
   * Why the object could not be read (a parser's details, or a lookup by id of one the list lacks): the status says
   * what is then unknown.
   */
  readError?: string;
  /**
   * Which read `readError` is about, set with it: `by-id` (an object the list lacks, looked up by id: whether it
   * exists is not known) or `details` (a listed parser's details: how long it has been generating is not known).
   * Said here, never guessed from `status`, which may be any text the service answers (API-NOTES).
   */
  unread?: 'by-id' | 'details';
}

/** `scrapeform status`: a row per managed object. */
export function renderStatusHuman(rows: readonly StatusRow[]): string {
  if (rows.length === 0) return 'Nothing is managed yet.';
  return renderTable(
    ['address', 'id', 'version', 'status', 'drift', 'schedule', 'next run', 'last job'],
    rows.map((r) => [
      r.address,
      String(r.id),
      r.version === undefined || r.version === null ? '' : String(r.version),
      r.generatingForMs !== undefined ? `${r.status} ${formatDuration(r.generatingForMs)}` : r.status,
      r.drift ? 'DRIFT' : '',
      r.schedule ?? '',
      r.nextRun ?? '',
      r.jobsError !== undefined
        ? 'unreadable'
        : r.lastJob === undefined
          ? ''
          : r.lastJob === null
            ? 'none'
            : `${String(r.lastJob.id)} ${r.lastJob.status ?? ''} (${String(r.lastJob.doneCount ?? '?')} done, ${String(r.lastJob.failedCount ?? '?')} failed)`,
    ]),
  );
}

export function renderStatusJson(rows: readonly StatusRow[]): string {
  return renderJson(
    rows.map(({ generatingForMs, ...row }) =>
      generatingForMs !== undefined
        ? { ...row, status: `${row.status} ${formatDuration(generatingForMs)}` }
        : row,
    ),
  );
}
