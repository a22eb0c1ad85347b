import type { Command } from 'commander';
import { createStateBackend } from '../state/create-backend.js';
import type { RunCommand } from './io.js';
import { stateOptions } from './shared-flags.js';

export function registerForceUnlock(program: Command, run: RunCommand): void {
  program
    .command('force-unlock')
    .description('break a state lock left by a run that died')
    .option('--state <path-or-url>', 'state file, or a postgres:// URL')
    .option('--workspace <name>', 'workspace in a database state backend')
    .action(async (flags: { state?: string; workspace?: string }) =>
      run(async (ctx) => {
        const where = stateOptions(ctx, flags);
        const backend = createStateBackend(where.statePath, where.workspace);
        try {
          const held = await backend.forceUnlock();
          ctx.print(
            held === undefined
              ? `${backend.location} was not locked.`
              : `Broke the lock of ${held.holder} (pid ${held.pid}, ${held.operation}, since ${held.started}).`,
          );
          return 'ok';
        } finally {
          await backend.close?.();
        }
      }),
    );
}
