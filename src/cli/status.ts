import type { Command } from 'commander';
import { formatDuration } from '../duration.js';
import { READ_CONCURRENCY } from '../model/vocabulary.js';
import { forEachLimited } from '../worker-pool.js';
import type { RunCommand } from './io.js';
import { table } from './output.js';
import { addApiFlags, openServicesFromFlags } from './shared-flags.js';
import type { ApiFlags } from './shared-flags.js';

interface StatusRow {
  address: string;
  id: string | number;
  version?: number | null;
  status: string;
  drift: boolean;
  schedule?: string;
  nextRun?: string | null;
  lastJob?: { id: unknown; status?: string; doneCount?: unknown; failedCount?: unknown } | null;
}

export function registerStatus(program: Command, run: RunCommand): void {
  const command = program
    .command('status')
    .description('managed objects with live status, versions, drift, schedules and last jobs')
    .option('--json', 'print the rows as JSON');
  addApiFlags(command).action(async (flags: ApiFlags & { json?: boolean }) =>
    run(async (ctx) => {
      const services = await openServicesFromFlags(ctx, flags);
      try {
        const state = await services.backend.read();
        const [parsers, projects] = await Promise.all([
          services.clients.parsers.list(),
          services.clients.projects.list(),
        ]);
        const entries = Object.entries(state.resources);
        const rowAt = new Map<string, StatusRow>();
        // Details and job lists are one call per object: a few at a time, rows kept in state order.
        await forEachLimited(entries, READ_CONCURRENCY, async ([address, r]) => {
          const add = (row: StatusRow): void => void rowAt.set(address, row);
          if (r.kind === 'Parser') {
            const live = parsers.find((p) => p.id === r.id);
            if (live === undefined) {
              add({
                address,
                id: r.id,
                version: r.version,
                status: 'MISSING (deleted outside scrapeform)',
                drift: true,
              });
              return;
            }
            let status = live.status;
            if (live.status === 'GENERATING') {
              const details = await services.clients.parsers.get(r.id, live.version);
              const since = details.createdAt !== null ? Date.parse(details.createdAt) : NaN;
              status = Number.isNaN(since)
                ? 'GENERATING'
                : `GENERATING ${formatDuration(Date.now() - since)}`;
            } else if (live.status === 'FAILED') {
              status = `FAILED: ${live.error ?? ''}`;
            }
            const known = [r.version, r.pending?.version, r.failed?.version];
            add({
              address,
              id: r.id,
              version: live.version,
              status,
              drift: !known.includes(live.version),
            });
          } else {
            const live = projects.find((p) => p.id === r.id);
            if (live === undefined) {
              add({ address, id: r.id, status: 'MISSING (archived outside scrapeform)', drift: true });
              return;
            }
            const jobs = await services.clients.projects.listJobs(r.id);
            const last = jobs[jobs.length - 1] as
              ((typeof jobs)[number] & { doneCount?: unknown; failedCount?: unknown }) | undefined;
            add({
              address,
              id: r.id,
              status: live.schedulingEnabled === false ? 'scheduling off' : 'scheduled',
              drift: false,
              schedule: live.schedulingEnabled === false ? 'off' : (live.scrapingInterval ?? 'once'),
              nextRun: live.scheduledAt ?? null,
              lastJob:
                last === undefined
                  ? null
                  : {
                      id: last.id,
                      ...(last.status !== undefined ? { status: last.status } : {}),
                      doneCount: last.doneCount,
                      failedCount: last.failedCount,
                    },
            });
          }
        });
        const rows = entries.flatMap(([address]) => rowAt.get(address) ?? []);
        if (flags.json === true) {
          ctx.print(JSON.stringify(rows, null, 2));
          return 'ok';
        }
        if (rows.length === 0) {
          ctx.print('Nothing is managed yet.');
          return 'ok';
        }
        ctx.print(
          table(
            ['address', 'id', 'version', 'status', 'drift', 'schedule', 'next run', 'last job'],
            rows.map((r) => [
              r.address,
              String(r.id),
              r.version === undefined || r.version === null ? '' : String(r.version),
              r.status,
              r.drift ? 'DRIFT' : '',
              r.schedule ?? '',
              r.nextRun ?? '',
              r.lastJob === undefined
                ? ''
                : r.lastJob === null
                  ? 'none'
                  : `${String(r.lastJob.id)} ${r.lastJob.status ?? ''} (${String(r.lastJob.doneCount ?? '?')} done, ${String(r.lastJob.failedCount ?? '?')} failed)`,
            ]),
          ),
        );
        return 'ok';
      } finally {
        await services.close();
      }
    }),
  );
}
