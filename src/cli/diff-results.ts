import type { Command } from 'commander';
import { ScrapeformError } from '../errors.js';
import { managedParser } from '../workspace/managed-address.js';
import type { RunCommand } from './io.js';
import { addApiFlags, openServicesFromFlags, wholeNumber } from './shared-flags.js';
import type { ApiFlags } from './shared-flags.js';
import { diffResults, renderResultChanges } from '../output/render-result-changes.js';
import { renderJson } from '../output/render-json.js';

export function registerDiffResults(program: Command, run: RunCommand): void {
  const command = program
    .command('diff-results')
    .description('what a regeneration changed in the data: example_result of two versions, field by field')
    .argument('<address>', 'parser.<name> (or just the name)')
    .requiredOption('--from <n>', 'the older version')
    .requiredOption('--to <n>', 'the newer version')
    .option('--json', 'print the changes as JSON');
  addApiFlags(command).action(
    async (address: string, flags: ApiFlags & { from: string; to: string; json?: boolean }) =>
      run(async (ctx) => {
        const from = wholeNumber(flags.from, '--from') as number;
        const to = wholeNumber(flags.to, '--to') as number;
        const services = await openServicesFromFlags(ctx, flags);
        try {
          const parser = managedParser(await services.backend.read(), address);
          const [before, after] = await Promise.all([
            // Shown, not planned from: a version with no fields is shown as such.
            services.clients.parsers.get(parser.id, from, undefined, { fieldless: true }),
            services.clients.parsers.get(parser.id, to, undefined, { fieldless: true }),
          ]);
          for (const details of [before, after]) {
            if (details.exampleResult === null) {
              throw new ScrapeformError(
                'diff.no-results',
                `version ${details.version} has no example_result (${details.status}${details.error ? `: ${details.error}` : ''})`,
              );
            }
          }
          const changes = diffResults(before.exampleResult ?? [], after.exampleResult ?? []);
          if (flags.json === true) ctx.print(renderJson({ address: parser.address, from, to, changes }));
          else ctx.print(renderResultChanges(changes, from, to));
          return 'ok';
        } finally {
          await services.close();
        }
      }),
  );
}
