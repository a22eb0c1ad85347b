import type { Command } from 'commander';
import { ScrapeformError } from '../errors.js';
import { renderOutput } from '../output/render-output.js';
import { withEnvironment } from '../workspace/open-workspace.js';
import { runDoctor } from '../workspace/run-doctor.js';
import type { RunCommand } from './io.js';
import {
  addEnvironmentFlags,
  addKeyFlags,
  environmentOf,
  keyOptions,
  transportLogger,
} from './shared-flags.js';
import type { ApiFlags, EnvironmentFlags } from './shared-flags.js';

interface DoctorFlags extends EnvironmentFlags, Pick<ApiFlags, 'apiKeyEnv' | 'apiKeyFile' | 'timeout'> {
  json?: boolean;
  only?: string;
}

export function registerDoctor(program: Command, run: RunCommand): void {
  addKeyFlags(
    addEnvironmentFlags(
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
      // The environment's key variable and service URLs, as every other command that talks to the services.
      const options = withEnvironment(
        {
          env: ctx.io.env,
          ...keyOptions(flags),
        },
        environmentOf(ctx, flags),
      );
      const report = await runDoctor({
        ...options,
        ...(only !== undefined ? { only } : {}),
        onTransportEvent: transportLogger(ctx),
      });
      ctx.print(renderOutput('doctor', flags.json === true ? 'json' : 'human', report, ctx.stdoutColors));
      return report.ok ? 'ok' : 'error';
    }),
  );
}
