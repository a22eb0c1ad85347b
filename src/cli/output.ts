import type { Command } from 'commander';
import { managedIds } from '../output/render-managed-ids.js';
import { renderOutput } from '../output/render-output.js';
import { using } from '../workspace/open-workspace.js';
import { openStateFromFlags } from './shared-flags.js';
import type { RunCommand } from './io.js';

export function registerOutput(program: Command, run: RunCommand): void {
  program
    .command('output')
    .description(
      'ids and versions of managed parsers and projects, for consumers (reads state only; no key needed)',
    )
    .option('--json', 'print them as JSON')
    .option('--env <name>', 'the environment of scrapeform.yaml whose state to use')
    .option('--state <path-or-url>', 'state file, or a postgres:// URL')
    .option(
      '--workspace <name>',
      'the workspace: .scrapeform/NAME/state.json, or its own table in PostgreSQL',
    )
    .action(async (flags: { json?: boolean; state?: string; workspace?: string; env?: string }) =>
      run(async (ctx) => {
        const state = await using(openStateFromFlags(ctx, flags), (opened) => opened.backend.read());
        ctx.print(
          renderOutput('ids', flags.json === true ? 'json' : 'human', managedIds(state), ctx.stdoutColors),
        );
        return 'ok';
      }),
    );
}
