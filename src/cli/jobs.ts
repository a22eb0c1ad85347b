import type { Command } from 'commander';
import { ApiError } from '../api/api-error.js';
import type { LiveJob } from '../api/live.js';
import { ScrapeformError } from '../errors.js';
import { managedProject } from '../workspace/open-services.js';
import type { RunCommand } from './io.js';
import { table } from './output.js';
import { addApiFlags, openServicesFromFlags } from './shared-flags.js';
import type { ApiFlags } from './shared-flags.js';

export function registerJobs(program: Command, run: RunCommand): void {
  const jobs = program
    .command('jobs')
    .description('list the jobs of a managed project')
    .argument('<address>', 'project.<name> (or just the name)')
    .option('--json', 'print the job records as JSON');
  addApiFlags(jobs).action(async (address: string, flags: ApiFlags & { json?: boolean }) =>
    run(async (ctx) => {
      const services = await openServicesFromFlags(ctx, flags);
      try {
        const project = managedProject(await services.backend.read(), address);
        const list = await services.clients.projects.listJobs(project.id);
        if (flags.json === true) ctx.print(JSON.stringify(list, null, 2));
        else ctx.print(list.length === 0 ? `${address} has no jobs yet.` : renderJobs(list));
        return 'ok';
      } finally {
        await services.close();
      }
    }),
  );

  const cancel = program
    .command('cancel')
    .description('cancel a running job of a managed project')
    .argument('<address>', 'project.<name> (or just the name)')
    .argument('<job-id>', 'the job to cancel');
  addApiFlags(cancel).action(async (address: string, jobId: string, flags: ApiFlags) =>
    run(async (ctx) => {
      const services = await openServicesFromFlags(ctx, flags);
      try {
        const project = managedProject(await services.backend.read(), address);
        let answer: { status?: string } | undefined;
        try {
          answer = (await services.clients.projects.cancelJob(project.id, jobId)) as
            { status?: string } | undefined;
        } catch (error) {
          if (error instanceof ApiError && (error.status === 400 || error.status === 409)) {
            const reason = (error.body as { error?: string } | undefined)?.error ?? error.message;
            throw new ScrapeformError(
              'cancel.not-running',
              `job ${jobId} of ${address} cannot be cancelled: ${reason}`,
              {
                hint: `scrapeform jobs ${address} lists the jobs and their status`,
              },
            );
          }
          if (error instanceof ApiError && error.status === 404) {
            throw new ScrapeformError('cancel.unknown-job', `${address} has no job ${jobId}`, {
              hint: `scrapeform jobs ${address} lists its jobs`,
            });
          }
          throw error;
        }
        ctx.print(
          `Job ${jobId} of ${address}: ${answer?.status ?? 'cancel requested'} (items already in flight finish first).`,
        );
        return 'ok';
      } finally {
        await services.close();
      }
    }),
  );
}

/** Job records are undocumented (API-NOTES): the usual fields are shown when present. */
export function renderJobs(jobs: readonly LiveJob[]): string {
  const cell = (job: LiveJob, key: string): string => {
    const value = (job as Record<string, unknown>)[key];
    return value === undefined || value === null ? '-' : String(value);
  };
  return table(
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
