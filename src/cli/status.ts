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
      refuseUnread(rows);
      return 'ok';
    }),
  );
}

/**
 * After the rows: an object status could not read whole (a project's jobs, a parser's details, a lookup by id) fails
 * the command (exit 1), each named with why, so a script never reads an unknown as a status shown whole.
 */
function refuseUnread(rows: readonly StatusRow[]): void {
  const failed = rows.flatMap((r) => {
    if (r.jobsError !== undefined)
      return [
        {
          r,
          why: r.jobsError,
          jobs: true,
          one: `the jobs of ${r.address} could not be listed, so its last job is not shown`,
        },
      ];
    if (r.readError === undefined) return [];
    // What could not be read is said by the row, never read from its status: that may be any text the service answers.
    const one =
      r.unread === 'by-id'
        ? `${r.address} is not listed and could not be read by id, so whether it exists is not known`
        : `the details of ${r.address} could not be read, so how long it has been generating is not shown`;
    return [{ r, why: r.readError, jobs: false, one }];
  });
  const [first] = failed;
  if (first === undefined) return;
  throw new ScrapeformError(
    'status.incomplete',
    failed.length === 1
      ? `${first.one}: ${first.why}`
      : `${failed.length} objects could not be read whole: ${failed.map((f) => `${f.r.address}: ${f.why}`).join('; ')}`,
    {
      hint: [
        'the status of every other object is shown above',
        ...(failed.some((f) => !f.jobs) ? ['scrapeform status reads them again'] : []),
        ...(failed.some((f) => f.jobs) ? ["scrapeform jobs ADDR reads one project's jobs again"] : []),
      ].join('; '),
    },
  );
}
