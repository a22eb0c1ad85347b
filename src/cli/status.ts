import type { Command } from 'commander';
import { ScrapeformError } from '../errors.js';
import { renderOutput } from '../output/render-output.js';
import { using } from '../workspace/open-workspace.js';
import { readStatus } from '../workspace/read-status.js';
import type { RunCommand } from './io.js';
import { addApiFlags, openServicesFromFlags } from './shared-flags.js';
import type { ApiFlags } from './shared-flags.js';
import type { StatusRow } from '../workspace/read-status.js';

export function registerStatus(program: Command, run: RunCommand): void {
  const command = program
    .command('status')
    .description('managed objects with live status, versions, drift, schedules and last jobs')
    .option('--json', 'print the rows as JSON');
  addApiFlags(command).action(async (flags: ApiFlags & { json?: boolean }) =>
    run(async (ctx) => {
      const rows = await using(openServicesFromFlags(ctx, flags), (services) => readStatus(services));
      ctx.print(renderOutput('status', flags.json === true ? 'json' : 'human', rows, ctx.stdoutColors));
      refuseUnreadJobs(rows);
      return 'ok';
    }),
  );
}

/**
 * After the rows: a project whose jobs could not be listed fails the command (exit 1), named with why, so a script
 * never reads an unknown last job as a status shown whole.
 */
function refuseUnreadJobs(rows: readonly StatusRow[]): void {
  const failed = rows.filter((r): r is StatusRow & { jobsError: string } => r.jobsError !== undefined);
  const [one] = failed;
  if (one === undefined) return;
  throw new ScrapeformError(
    'status.jobs-unlisted',
    failed.length === 1
      ? `the jobs of ${one.address} could not be listed, so its last job is not shown: ${one.jobsError}`
      : `the jobs of ${failed.length} projects could not be listed, so their last jobs are not shown: ${failed.map((r) => `${r.address}: ${r.jobsError}`).join('; ')}`,
    {
      hint: "the status of every other object is shown above; scrapeform jobs ADDR reads one project's jobs again",
    },
  );
}
