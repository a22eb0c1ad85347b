import type { Command } from 'commander';
import { ScrapeformError } from '../errors.js';
import { managedParser } from '../workspace/managed-address.js';
import type { RunCommand } from './io.js';
import { addApiFlags, openServicesFromFlags } from './shared-flags.js';
import { wholeNumber } from './options.js';
import type { ApiFlags } from './shared-flags.js';
import { diffResults, renderResultChanges } from '../output/render-result-changes.js';
import { renderJson } from '../output/render-json.js';
import type { LiveParserDetails } from '../api/live.js';

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
          const [older, newer] = [
            comparable(parser.address, from, before),
            comparable(parser.address, to, after),
          ];
          const changes = diffResults(older, newer);
          if (flags.json === true) ctx.print(renderJson({ address: parser.address, from, to, changes }));
          else ctx.print(renderResultChanges(changes, from, to));
          return 'ok';
        } finally {
          await services.close();
        }
      }),
  );
}

/**
 * The example_result of the version asked for, when it is one to compare: FINISHED (the seed leaves open what a
 * version still generating holds, and a service may show an empty list or the last version's data there, which
 * would read as every value removed or as no change), and the version asked for (an answer of another one, from a
 * service that does not read the version segment, would compare the latest with itself: "No differences").
 */
function comparable(
  address: string,
  asked: number,
  details: LiveParserDetails,
): NonNullable<LiveParserDetails['exampleResult']> {
  if (details.version !== asked) {
    throw new ScrapeformError(
      'diff.no-results',
      `asked for version ${asked} of ${address}, the service answered version ${details.version}: nothing is compared`,
    );
  }
  if (details.status !== 'FINISHED' || details.exampleResult === null) {
    throw new ScrapeformError(
      'diff.no-results',
      `version ${asked} has no example_result to compare (${details.status}${details.error ? `: ${details.error}` : ''})`,
    );
  }
  return details.exampleResult;
}
