import type { Command } from 'commander';
import { ScrapeformError } from '../errors.js';
import { printable, quoted } from '../output/escape-text.js';
import { renderJobsTable } from '../output/render-jobs.js';
import { using } from '../workspace/open-workspace.js';
import { refuseUnfinishedJob, runProject } from '../workspace/project-jobs.js';
import type { RunCommand } from './io.js';
import { addApiFlags, durationFlag, openServicesFromFlags, pollIntervalFromEnv } from './shared-flags.js';
import type { ApiFlags } from './shared-flags.js';

export function registerRun(program: Command, run: RunCommand): void {
  const command = program
    .command('run')
    .description('start a managed project now (PATCH scheduledAt: now)')
    .argument('<address>', 'project.<name> (or just the name)')
    .option('--wait', 'follow the new job to its end')
    .option(
      '--allow-concurrent',
      'start it even while a job of the project is running (or may be) or waits to run',
    )
    .option('--wait-timeout <duration>', 'how long to follow it', '30m');
  addApiFlags(command).action(
    async (
      address: string,
      flags: ApiFlags & { wait?: boolean; allowConcurrent?: boolean; waitTimeout: string },
    ) =>
      run(async (ctx) => {
        // Without --wait the run starts the project and exits at once: a --wait-timeout given alone reads as a
        // wait, and was ignored after the start was sent (as watch refuses --max-regenerations without --heal).
        if (flags.wait !== true && command.getOptionValueSource('waitTimeout') === 'cli')
          throw new ScrapeformError(
            'cli.usage',
            '--wait-timeout is how long --wait follows the job: pass --wait too',
          );
        const timeoutMs = durationFlag(flags.waitTimeout, '--wait-timeout', '10m or 1h', 1);
        const { job } = await using(openServicesFromFlags(ctx, flags), (services) =>
          runProject(services, address, {
            wait: flags.wait === true,
            allowConcurrent: flags.allowConcurrent === true,
            timeoutMs,
            timeoutLabel: flags.waitTimeout,
            pollMs: pollIntervalFromEnv(ctx.io.env) ?? 1000,
            // Job ids and statuses are the service's own text (job records are undocumented, API-NOTES): printable,
            // so an answer cannot clear the screen or forge a progress line.
            onStarted: () => ctx.log(`${printable(address)}: started (scheduledAt now).`),
            onProgress: (job, status) =>
              ctx.log(
                `${printable(address)}  job ${printable(String(job?.id ?? '-'))}  ${printable(status)}`,
              ),
            onUnknownStatus: (status) =>
              ctx.log(
                ctx.colors.yellow(
                  `warning: job status ${quoted(status)} is not one scrapeform knows; waiting as if it were still running`,
                ),
              ),
          }),
        );
        if (job === undefined) return 'ok';
        ctx.print(renderJobsTable([job]));
        refuseUnfinishedJob(address, job);
        return 'ok';
      }),
  );
}
