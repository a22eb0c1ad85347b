import type { Command } from 'commander';
import { FileStateBackend } from '../state/file-backend.js';
import type { RunCommand } from './io.js';

export function registerForceUnlock(program: Command, run: RunCommand): void {
  program
    .command('force-unlock')
    .description('break a state lock left by a run that died')
    .option('--state <path>', 'state file', '.scrapeform/state.json')
    .action(async (flags: { state: string }) =>
      run(async (ctx) => {
        const held = await new FileStateBackend(flags.state).forceUnlock();
        ctx.print(
          held === undefined
            ? `${flags.state} was not locked.`
            : `Broke the lock of ${held.holder} (pid ${held.pid}, ${held.operation}, since ${held.started}).`,
        );
        return 'ok';
      }),
    );
}
