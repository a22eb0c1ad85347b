import type { Command } from 'commander';
import { using } from '../workspace/open-workspace.js';
import type { RunCommand } from './io.js';
import { openStateFromFlags } from './shared-flags.js';

export function registerForceUnlock(program: Command, run: RunCommand): void {
  program
    .command('force-unlock')
    .description('break a state lock left by a run that died')
    .option('--env <name>', 'the environment of scrapeform.yaml whose state to use')
    .option('--state <path-or-url>', 'state file, or a postgres:// URL')
    .option(
      '--workspace <name>',
      'the workspace: .scrapeform/NAME/state.json, or its own table in PostgreSQL',
    )
    .action(async (flags: { state?: string; workspace?: string; env?: string }) =>
      run(async (ctx) => {
        const { location, held } = await using(openStateFromFlags(ctx, flags), async ({ backend }) => ({
          location: backend.location,
          held: await backend.forceUnlock(),
        }));
        ctx.print(
          held === undefined
            ? `${location} was not locked.`
            : `Broke the lock of ${held.holder} (pid ${held.pid}, ${held.operation}, since ${held.started}).`,
        );
        return 'ok';
      }),
    );
}
