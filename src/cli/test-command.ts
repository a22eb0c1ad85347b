import { unlessAborted } from '../state/interruptible-state.js';
import { narrowedSelects } from '../model/desired.js';
import type { Command } from 'commander';
import { runExpectChecks } from '../apply/run-expect-checks.js';
import { renderOutput } from '../output/render-output.js';
import type { NotRunCheck } from '../output/render-test-report.js';
import { using } from '../workspace/open-workspace.js';
import { logError } from './io.js';
import type { RunCommand } from './io.js';
import { writeOutputFile } from './write-output.js';
import { addApiFlags, openFromFlags } from './shared-flags.js';
import type { ApiFlags } from './shared-flags.js';
import { stopOnSignals } from './stop-signals.js';

export function registerTest(program: Command, run: RunCommand): void {
  const command = program
    .command('test')
    .description('run every expect block: parse each URL and compare the result')
    .argument('[paths...]', 'manifest files or folders (default: the current folder)')
    .option('--json', 'print the results as JSON')
    .option('--junit <file>', 'also write JUnit XML for CI test reports');
  addApiFlags(command).action(async (paths: string[], flags: ApiFlags & { json?: boolean; junit?: string }) =>
    run(async (ctx) => {
      // Each parse is paid: Ctrl-C (or SIGTERM) calls off the one under way, sends no other, and reports the checks
      // that ran (a second signal exits at once). Before, the process ended with nothing said of them.
      const controller = new AbortController();
      const stopListening = stopOnSignals(
        ctx,
        controller,
        'Interrupted: no further parse is sent; the checks that ran are reported (again to exit at once).',
        // test writes no state: apply's sentence of it said what test does not do.
        'Interrupted again: exiting now; the checks that ran are not reported (a parse under way may have been charged).',
      );
      // The checks in the order they run: those past the ones that ran were not run (interrupted).
      let planned: NotRunCheck[] = [];
      const results = await using(openFromFlags(ctx, paths, flags, controller.signal), async (ws) => {
        // Paths named with --env narrow the checks as they narrow a plan (loadManifests' narrowedTo).
        const kept = narrowedSelects(ws.manifests.narrowedTo);
        const parsers = ws.manifests.parsers.filter((p) => p.expect.length > 0 && kept(p.address));
        planned = parsers.flatMap((p) => p.expect.map((check) => ({ address: p.address, url: check.url })));
        // A state database that takes the connection and never answers held the read until its timeout
        // (SCRAPEFORM_STATE_TIMEOUT, 30 s), Ctrl-C or not, and the run then ended 1 with a state error and no
        // report: Ctrl-C ends the wait as it ends a list, and every check is reported not run.
        const state = await unlessAborted(ws.backend.read(), controller.signal);
        if (state === undefined) return [];
        return runExpectChecks(ws.clients, parsers, state, undefined, controller.signal);
      }).finally(stopListening);
      // An interrupted run is not passed, and --json and --junit name the checks not run: a CI job reading either
      // rather than the exit code reported the checks that ran, all passed, as a green run.
      const interrupted = controller.signal.aborted;
      const report = { results, interrupted, notRun: interrupted ? planned.slice(results.length) : [] };
      // The results first: the parse calls are made, so a JUnit file that cannot be written keeps them on stdout.
      ctx.print(renderOutput('test', flags.json === true ? 'json' : 'human', report, ctx.stdoutColors));
      let junitFailure: unknown;
      if (flags.junit !== undefined)
        await writeOutputFile(
          flags.junit,
          renderOutput('test', 'junit', report, ctx.colors),
          'the JUnit report',
          'the checks ran',
        ).catch((error: unknown) => {
          // Interrupted, the run still ends 130 with its line: the write's error is said first.
          if (!interrupted) throw error;
          junitFailure = error;
        });
      if (junitFailure !== undefined)
        logError(ctx, junitFailure instanceof Error ? junitFailure : { message: String(junitFailure) });
      if (interrupted) {
        const notRun = report.notRun.length;
        ctx.log(
          ctx.colors.yellow(
            `Interrupted: ${notRun} of ${planned.length} ${planned.length === 1 ? 'check was' : 'checks were'} not run (no parse was sent for ${notRun === 1 ? 'it' : 'them'}).`,
          ),
        );
        return 'interrupted';
      }
      return results.every((r) => r.ok) ? 'ok' : 'error';
    }),
  );
}
