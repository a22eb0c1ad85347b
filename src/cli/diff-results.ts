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
import { unless404 } from '../api/unless-status.js';
import type { ParsersClient } from '../api/parsers-client.js';

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
        const from = wholeNumber(flags.from, '--from');
        const to = wholeNumber(flags.to, '--to');
        const services = await openServicesFromFlags(ctx, flags);
        try {
          const parser = managedParser(await services.backend.read(), address);
          const parsers = services.clients.parsers;
          // Only example_result is compared: details that list no fields, or leave them out (the published
          // example shows none, API-NOTES), are compared all the same.
          const read = (version: number): Promise<LiveParserDetails | undefined> =>
            unless404(() => parsers.get(parser.id, version, undefined, { fieldsUnread: true }));
          const [before, after] = await Promise.all([read(from), read(to)]);
          if (before === undefined || after === undefined) {
            throw await notFound(parsers, parser, before === undefined ? from : to);
          }
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
 * The error of a version answered 404, naming what was asked: the parser and the version when the parser is there
 * (with its latest version), the parser when it is gone too. The 404's own hint ("the id does not exist") read as
 * if the parser were gone when only the version was.
 */
async function notFound(
  parsers: ParsersClient,
  parser: { address: string; id: string },
  asked: number,
): Promise<ScrapeformError> {
  const named = `${parser.address} (${parser.id})`;
  let latest: LiveParserDetails | undefined | null;
  try {
    latest = await unless404(() => parsers.get(parser.id, undefined, undefined, { fieldsUnread: true }));
  } catch {
    // Its latest version could not be read: the 404 is still said of what was asked.
    latest = null;
  }
  if (latest === undefined) {
    return new ScrapeformError(
      'diff.no-results',
      `${named} is not at the service (it answered 404 for the parser and for version ${asked}): nothing is compared`,
      { hint: 'scrapeform plan re-reads the parser list and says what became of it' },
    );
  }
  return new ScrapeformError(
    'diff.no-results',
    `${named} has no version ${asked} (the service answered 404 for it): nothing is compared`,
    {
      hint:
        latest === null
          ? 'pick two FINISHED versions the parser has; scrapeform plan re-reads the parser list and says whether it is still there'
          : `its latest version is ${latest.version}: pick two FINISHED versions from 0 to ${latest.version}`,
    },
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
