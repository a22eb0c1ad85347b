import type { Command } from 'commander';
import { renderOutput } from '../output/render-output.js';
import { using } from '../workspace/open-workspace.js';
import { readStatus } from '../workspace/read-status.js';
import type { RunCommand } from './io.js';
import { addApiFlags, openServicesFromFlags } from './shared-flags.js';
import type { ApiFlags } from './shared-flags.js';

export function registerStatus(program: Command, run: RunCommand): void {
  const command = program
    .command('status')
    .description('managed objects with live status, versions, drift, schedules and last jobs')
    .option('--json', 'print the rows as JSON');
  addApiFlags(command).action(async (flags: ApiFlags & { json?: boolean }) =>
    run(async (ctx) => {
      const rows = await using(openServicesFromFlags(ctx, flags), (services) => readStatus(services));
      ctx.print(renderOutput('status', flags.json === true ? 'json' : 'human', rows, ctx.stdoutColors));
      return 'ok';
    }),
  );
}
