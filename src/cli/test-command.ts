import { narrowedSelects } from '../model/desired.js';
import type { Command } from 'commander';
import { runExpectChecks } from '../apply/run-expect-checks.js';
import { renderOutput } from '../output/render-output.js';
import { using } from '../workspace/open-workspace.js';
import type { RunCommand } from './io.js';
import { writeOutputFile } from './write-output.js';
import { addApiFlags, openFromFlags } from './shared-flags.js';
import type { ApiFlags } from './shared-flags.js';

export function registerTest(program: Command, run: RunCommand): void {
  const command = program
    .command('test')
    .description('run every expect block: parse each URL and compare the result')
    .argument('[paths...]', 'manifest files or folders (default: the current folder)')
    .option('--json', 'print the results as JSON')
    .option('--junit <file>', 'also write JUnit XML for CI test reports');
  addApiFlags(command).action(async (paths: string[], flags: ApiFlags & { json?: boolean; junit?: string }) =>
    run(async (ctx) => {
      const results = await using(openFromFlags(ctx, paths, flags), async (ws) => {
        // Paths named with --env narrow the checks as they narrow a plan (loadManifests' narrowedTo).
        const kept = narrowedSelects(ws.manifests.narrowedTo);
        return runExpectChecks(
          ws.clients,
          ws.manifests.parsers.filter((p) => p.expect.length > 0 && kept(p.address)),
          await ws.backend.read(),
        );
      });
      // The results first: the parse calls are made, so a JUnit file that cannot be written keeps them on stdout.
      ctx.print(renderOutput('test', flags.json === true ? 'json' : 'human', results, ctx.stdoutColors));
      if (flags.junit !== undefined)
        await writeOutputFile(
          flags.junit,
          renderOutput('test', 'junit', results, ctx.colors),
          'the JUnit report',
          'the checks ran',
        );
      return results.every((r) => r.ok) ? 'ok' : 'error';
    }),
  );
}
