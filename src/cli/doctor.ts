import type { Command } from 'commander';
import { ScrapeformError } from '../errors.js';
import { renderOutput } from '../output/render-output.js';
import { withEnvironment } from '../workspace/open-workspace.js';
import { runDoctor } from '../workspace/run-doctor.js';
import type { RunCommand } from './io.js';
import {
  addKeyFlags,
  addStateFlags,
  environmentOf,
  keyOptions,
  stateOptions,
  transportLogger,
} from './shared-flags.js';
import type { ApiFlags, EnvironmentFlags } from './shared-flags.js';

interface DoctorFlags
  extends EnvironmentFlags, Pick<ApiFlags, 'state' | 'workspace' | 'apiKeyEnv' | 'apiKeyFile' | 'timeout'> {
  json?: boolean;
  only?: string;
}

export function registerDoctor(program: Command, run: RunCommand): void {
  addKeyFlags(
    addStateFlags(
      program
        .command('doctor')
        .description('check the key and the answers of the real services, read-only (spends no credits)'),
    )
      .option('--json', 'print the report as JSON')
      .option('--only <service>', 'check one service only: parsers or projects'),
  ).action(async (flags: DoctorFlags) =>
    run(async (ctx) => {
      if (flags.only !== undefined && flags.only !== 'parsers' && flags.only !== 'projects') {
        throw new ScrapeformError('cli.usage', `--only takes parsers or projects, got "${flags.only}"`);
      }
      const only = flags.only;
      // The environment's key variable and service URLs, as every other command that talks to the services; its state
      // (read, never locked) names the parsers this workspace manages, whose details are all read.
      const settings = environmentOf(ctx, flags);
      const options = withEnvironment({ env: ctx.io.env, ...keyOptions(flags) }, settings);
      const report = await runDoctor({
        ...options,
        state: stateOptions(ctx, flags, settings),
        ...(only !== undefined ? { only } : {}),
        onTransportEvent: transportLogger(ctx),
      });
      ctx.print(renderOutput('doctor', flags.json === true ? 'json' : 'human', report, ctx.stdoutColors));
      return report.ok ? 'ok' : 'error';
    }),
  );
}
