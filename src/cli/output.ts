import type { Command } from 'commander';
import { managedIds } from '../output/render-managed-ids.js';
import { renderOutput } from '../output/render-output.js';
import { using } from '../workspace/open-workspace.js';
import { addStateFlags, openStateFromFlags } from './shared-flags.js';
import type { EnvironmentFlags } from './shared-flags.js';
import type { RunCommand } from './io.js';

export function registerOutput(program: Command, run: RunCommand): void {
  const command = program
    .command('output')
    .description(
      'ids and versions of managed parsers and projects, for consumers (reads state only; no key needed)',
    )
    .option('--json', 'print them as JSON');
  addStateFlags(command).action(
    async (flags: { json?: boolean; state?: string; workspace?: string } & EnvironmentFlags) =>
      run(async (ctx) => {
        const state = await using(openStateFromFlags(ctx, flags, { own: true }), (opened) =>
          opened.backend.read(),
        );
        ctx.print(
          renderOutput('ids', flags.json === true ? 'json' : 'human', managedIds(state), ctx.stdoutColors),
        );
        return 'ok';
      }),
  );
}
