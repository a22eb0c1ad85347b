import type { Command } from 'commander';
import { ScrapeformError } from '../errors.js';
import { importLive } from '../workspace/import-live.js';
import { using } from '../workspace/open-workspace.js';
import type { RunCommand } from './io.js';
import { addApiFlags, addLockFlags, environmentOptions, openServicesFromFlags } from './shared-flags.js';
import type { ApiFlags } from './shared-flags.js';
import { printable } from '../output/escape-text.js';

interface ImportFlags extends ApiFlags {
  out?: string;
  filter?: string;
  only?: string;
  allowSharedOut?: boolean;
}

export function registerImport(program: Command, run: RunCommand): void {
  const command = program
    .command('import')
    .description('write manifests for live parsers and projects not yet managed, and record them in state')
    .option(
      '--out <dir>',
      'folder to write the manifests to, one the environment reads with --env (default: its first path, else .)',
    )
    .option('--filter <glob>', 'only objects whose name matches, such as "books-*"')
    .option('--only <service>', 'import from one service only, never calling the other: parsers or projects')
    .option(
      '--allow-shared-out',
      'with --env, write into a folder other environments read too (their next plans then create what was imported)',
    );
  addLockFlags(addApiFlags(command)).action(async (flags: ImportFlags) =>
    run(async (ctx) => {
      if (flags.only !== undefined && flags.only !== 'parsers' && flags.only !== 'projects') {
        throw new ScrapeformError('cli.usage', `--only takes parsers or projects, got "${flags.only}"`);
      }
      const only = flags.only;
      const imported = await using(openServicesFromFlags(ctx, flags), (services) =>
        importLive(services, {
          ...(flags.out !== undefined ? { out: flags.out } : {}),
          ...(flags.filter !== undefined ? { filter: flags.filter } : {}),
          ...(only !== undefined ? { only } : {}),
          ...(flags.allowSharedOut === true ? { allowSharedOut: true } : {}),
          env: ctx.io.env,
          ...environmentOptions(flags),
          onSkip: (message) => ctx.log(ctx.colors.yellow(printable(message))),
          onGitignore: (file, problem) =>
            ctx.log(
              problem === undefined
                ? `Added .scrapeform/ (local state) to ${printable(file)}.`
                : ctx.colors.yellow(
                    `warning: could not add .scrapeform/ (local state) to ${printable(file)}: ${printable(problem)}; add it by hand to keep the state and its lock out of Git`,
                  ),
            ),
        }),
      );
      ctx.print(
        imported.length === 0
          ? 'Nothing to import: every live object is managed or declared.'
          : imported.map((p) => `imported ${printable(p.address)} -> ${printable(p.file)}`).join('\n'),
      );
      if (imported.some((p) => p.resource.kind === 'Parser')) {
        ctx.log(
          'The service does not return descriptions, selectors or scraper_params: each imported field has a placeholder that validate warns about until you describe it, and state records these values as unknown. Once the manifest declares the values the parser already has, plan --accept-unknown ADDR records them with no call.',
        );
      }
      return 'ok';
    }),
  );
}
