import { formatDuration } from '../duration.js';
import type { StatusRow } from '../workspace/read-status.js';
import { renderTable } from './render-table.js';

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
      r.lastJob === undefined
        ? ''
        : r.lastJob === null
          ? 'none'
          : `${String(r.lastJob.id)} ${r.lastJob.status ?? ''} (${String(r.lastJob.doneCount ?? '?')} done, ${String(r.lastJob.failedCount ?? '?')} failed)`,
    ]),
  );
}

export function renderStatusJson(rows: readonly StatusRow[]): string {
  return JSON.stringify(
    rows.map(({ generatingForMs, ...row }) =>
      generatingForMs !== undefined
        ? { ...row, status: `${row.status} ${formatDuration(generatingForMs)}` }
        : row,
    ),
    null,
    2,
  );
}
