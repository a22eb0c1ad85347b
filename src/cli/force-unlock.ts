import type { Command } from 'commander';
import { describeLock } from '../state/backend.js';
import { using } from '../workspace/open-workspace.js';
import type { RunCommand } from './io.js';
import { addStateFlags, openStateFromFlags } from './shared-flags.js';
import type { EnvironmentFlags } from './shared-flags.js';

interface ForceUnlockFlags extends EnvironmentFlags {
  state?: string;
  workspace?: string;
  force?: boolean;
}

export function registerForceUnlock(program: Command, run: RunCommand): void {
  addStateFlags(
    program
      .command('force-unlock')
      .description('break a state lock left by a run that died')
      .argument('[lock-id]', 'break the lock only if it has this id (lock messages show it)'),
  )
    .option('--force', 'break it even when its holder is still running on this machine')
    .action(async (lockId: string | undefined, flags: ForceUnlockFlags) =>
      run(async (ctx) => {
        const { location, held } = await using(openStateFromFlags(ctx, flags), async ({ backend }) => ({
          location: backend.location,
          held: await backend.forceUnlock({
            ...(lockId !== undefined ? { lockId } : {}),
            ...(flags.force === true ? { force: true } : {}),
          }),
        }));
        ctx.print(
          held === undefined ? `${location} was not locked.` : `Broke the lock of ${describeLock(held)}.`,
        );
        return 'ok';
      }),
    );
}
