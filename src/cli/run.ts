import type { Command } from 'commander';
import type { LiveJob } from '../api/live.js';
import { parseDuration } from '../duration.js';
import { ScrapeformError } from '../errors.js';
import { managedProject } from '../workspace/open-services.js';
import type { RunCommand } from './io.js';
import { renderJobs } from './jobs.js';
import { addApiFlags, openServicesFromFlags, pollIntervalFromEnv } from './shared-flags.js';
import type { ApiFlags } from './shared-flags.js';

const TERMINAL = new Set([
  'Finished',
  'Failed',
  'Cancelled',
  'finished',
  'failed',
  'cancelled',
  'done',
  'Done',
]);

export function registerRun(program: Command, run: RunCommand): void {
  const command = program
    .command('run')
    .description('start a managed project now (PATCH scheduledAt: now)')
    .argument('<address>', 'project.<name> (or just the name)')
    .option('--wait', 'follow the new job to its end')
    .option('--wait-timeout <duration>', 'how long to follow it', '30m');
  addApiFlags(command).action(
    async (address: string, flags: ApiFlags & { wait?: boolean; waitTimeout: string }) =>
      run(async (ctx) => {
        const timeoutMs = parseDuration(flags.waitTimeout);
        if (timeoutMs === undefined)
          throw new ScrapeformError(
            'cli.usage',
            `--wait-timeout: cannot read "${flags.waitTimeout}" as a duration`,
          );
        const services = await openServicesFromFlags(ctx, flags);
        try {
          const project = managedProject(await services.backend.read(), address);
          const before = new Set(
            (await services.clients.projects.listJobs(project.id)).map((j) => String(j.id)),
          );
          await services.clients.projects.update(project.id, { scheduledAt: 'now' });
          ctx.log(`${address}: started (scheduledAt now).`);
          if (flags.wait !== true) return 'ok';
          const deadline = Date.now() + timeoutMs;
          let job: LiveJob | undefined;
          let shown = '';
          while (Date.now() < deadline) {
            job = (await services.clients.projects.listJobs(project.id)).find(
              (j) => !before.has(String(j.id)),
            );
            const status = job?.status ?? 'waiting to start';
            if (status !== shown) {
              ctx.log(`${address}  job ${job?.id ?? '-'}  ${status}`);
              shown = status;
            }
            if (job !== undefined && TERMINAL.has(job.status ?? '')) break;
            await new Promise((r) => setTimeout(r, pollIntervalFromEnv(ctx.io.env) ?? 1000));
          }
          if (job === undefined || !TERMINAL.has(job.status ?? '')) {
            throw new ScrapeformError(
              'run.wait-timeout',
              `${address}: the job did not end within ${flags.waitTimeout}`,
            );
          }
          ctx.print(renderJobs([job]));
          return /failed/i.test(job.status ?? '') ? 'error' : 'ok';
        } finally {
          await services.close();
        }
      }),
  );
}
