import type { Command } from 'commander';
import { namesAnotherResource } from '../api/path-segment.js';
import { ScrapeformError } from '../errors.js';
import { printable } from '../output/escape-text.js';
import { renderOutput } from '../output/render-output.js';
import { using } from '../workspace/open-workspace.js';
import { cancelProjectJob, listProjectJobs } from '../workspace/project-jobs.js';
import type { RunCommand } from './io.js';
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
      const listed = await using(openServicesFromFlags(ctx, flags), (services) =>
        listProjectJobs(services, address),
      );
      // Messages name the address as the user wrote it.
      const view = { ...listed, address };
      ctx.print(renderOutput('jobs', flags.json === true ? 'json' : 'human', view, ctx.stdoutColors));
      return 'ok';
    }),
  );

  const cancel = program
    .command('cancel')
    .description('cancel a running job of a managed project')
    .argument('<address>', 'project.<name> (or just the name)')
    .argument('<job-id>', 'the job to cancel');
  addApiFlags(cancel).action(async (address: string, jobId: string, flags: ApiFlags) =>
    run(async (ctx) => {
      // Before anything is opened: an empty id or a dot segment would send the DELETE elsewhere (path-segment.ts).
      if (jobId.trim() === '' || namesAnotherResource(jobId))
        throw new ScrapeformError(
          'cli.usage',
          `<job-id> ${JSON.stringify(jobId)} is no job id; nothing was sent`,
          {
            hint: `scrapeform jobs ${address} lists the jobs and their ids`,
          },
        );
      const answer = await using(openServicesFromFlags(ctx, flags), (services) =>
        cancelProjectJob(services, address, jobId),
      );
      ctx.print(
        // The status is the service's answer: printable, as every live value a terminal shows.
        `Job ${printable(jobId)} of ${printable(address)}: ${printable(answer.status ?? 'cancel requested')} (items already in flight finish first).`,
      );
      return 'ok';
    }),
  );
}
