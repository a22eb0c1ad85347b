import { failureReason, parserStatusKind } from '../api/parser-status.js';
import type { Command } from 'commander';
import { ScrapeformError } from '../errors.js';
import { scrapingParamsFromFlags } from './scraping-param-flags.js';
import type { RunCommand } from './io.js';
import { collect, wholeNumber } from './options.js';
import { addApiFlags, environmentOptions, openServicesFromFlags } from './shared-flags.js';
import type { ApiFlags } from './shared-flags.js';
import { managedParser } from '../workspace/managed-address.js';
import { parserScrapingParams } from '../workspace/parser-scraping-params.js';
import { printable } from '../output/escape-text.js';
import { renderJson } from '../output/render-json.js';

interface ParseFlags extends ApiFlags {
  version?: string;
  render?: boolean;
  param?: string[];
}

export function registerParse(program: Command, run: RunCommand): void {
  const command = program
    .command('parse')
    .description('run a managed parser on a page and print the JSON result')
    .argument('<address>', 'parser.<name> (or just the name)')
    .argument('<url>', 'page to parse')
    .option('--version <n>', 'a pinned version (default: the latest)')
    .option('--render', 'render JavaScript (scraping parameter render=true)')
    .option(
      '--param <key=value>',
      "a scraping parameter, such as country_code=us, over the parser's own (repeatable)",
      collect,
    );
  addApiFlags(command).action(async (address: string, url: string, flags: ParseFlags) =>
    run(async (ctx) => {
      const version = wholeNumber(flags.version, '--version');
      // Checked by the rules of a manifest's scraper_params before anything is opened or sent.
      const params = scrapingParamsFromFlags(flags.param ?? [], flags.render);
      const services = await openServicesFromFlags(ctx, flags);
      try {
        const state = await services.backend.read();
        const parser = managedParser(state, address);
        // The parser's own scraping parameters, as test sends them; --render and --param override them.
        const declared = await parserScrapingParams(
          { env: ctx.io.env, ...environmentOptions(flags) },
          state,
          parser.address,
        );
        // Warnings name the parser as state records it, which may be a live name: printable.
        for (const warning of declared.warnings) ctx.log(ctx.colors.yellow(`warning: ${printable(warning)}`));
        // Details may carry no version (API-NOTES): the latest is then the one the list gives, else the one state
        // records, as plan reads them.
        const listed =
          version === undefined
            ? (await services.clients.parsers.list()).find((p) => p.id === parser.id)
            : undefined;
        const latest = listed?.version ?? parser.version;
        const details = await services.clients.parsers.get(parser.id, version, undefined, {
          ...(latest !== null ? { version: latest } : {}),
          name: listed?.name ?? parser.name,
          // Its status is what is read: its fields are not (a FINISHED answer without them is no bad response).
          fieldsUnread: true,
        });
        const kind = parserStatusKind(details.status);
        if (kind === 'working') {
          throw new ScrapeformError(
            'parse.generating',
            `${address} version ${details.version} is still generating${details.status === 'GENERATING' ? '' : ` (status ${details.status})`}; parsing does not work until it is FINISHED`,
          );
        }
        if (kind === 'failed') {
          throw new ScrapeformError(
            'parse.failed-version',
            `${address} version ${details.version} FAILED: ${failureReason(details.error)}`,
            {
              hint: 'apply a fixed manifest, or parse a pinned older version with --version',
            },
          );
        }
        const result = await services.clients.parsers.parse(parser.id, version, url, {
          ...declared.params,
          ...params,
        });
        ctx.print(renderJson(result));
        return 'ok';
      } finally {
        await services.close();
      }
    }),
  );
}
