import type { Command } from 'commander';
import { parseDuration } from '../duration.js';
import { ScrapeformError } from '../errors.js';
import { describeUnknownQuirks } from '../emulator/quirks.js';
import {
  DEFAULT_EMULATOR_KEY,
  DEFAULT_EMULATOR_PORT,
  QUIRK_NAMES,
  startEmulator,
} from '../emulator/server.js';
import type { CommandContext, RunCommand } from './io.js';
import { collect, wholeNumber } from './options.js';

interface EmulatorFlags {
  host: string;
  port: string;
  apiKey?: string[];
  credits?: string;
  generationDelay: string;
  dataDir?: string;
  seed?: string;
  generationCost?: string;
  parseCost?: string;
  quirks?: string[];
}

export function registerEmulator(program: Command, run: RunCommand): void {
  program
    .command('emulator')
    .description('run both services locally (parsers, parse, projects) until Ctrl-C')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', String(DEFAULT_EMULATOR_PORT))
    .option(
      '--api-key <key>',
      `an API key the emulator accepts (repeatable; default ${DEFAULT_EMULATOR_KEY})`,
      collect,
    )
    .option('--credits <n>', 'credits of each account', undefined)
    .option('--generation-delay <duration>', 'how long a parser generation takes (500ms, 2s, 1m)', '2s')
    .option('--data-dir <dir>', 'persist state here and reload it at start')
    .option('--seed <n>', 'make ids and injected faults repeatable')
    .option(
      '--generation-cost <credits>',
      'credits a creation or an add/modify regeneration costs (default 30000)',
    )
    .option('--parse-cost <credits>', 'credits a parse costs (default 1)')
    .option(
      '--quirks <list>',
      `switch on alternative behaviours of the real services, comma-separated (repeatable): ${QUIRK_NAMES.join(', ')}`,
      collect,
    )
    .action(async (flags: EmulatorFlags) => run((ctx) => emulator(ctx, flags)));
}

async function emulator(ctx: CommandContext, flags: EmulatorFlags): Promise<'ok'> {
  const port = wholeNumber(flags.port, '--port');
  const delay = parseDuration(flags.generationDelay);
  if (delay === undefined)
    throw new ScrapeformError(
      'cli.usage',
      `--generation-delay: cannot read "${flags.generationDelay}" as a duration`,
      { hint: 'write it like 500ms, 2s or 1m' },
    );
  const quirks = (flags.quirks ?? [])
    .flatMap((list) => list.split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const quirkProblem = describeUnknownQuirks(quirks);
  if (quirkProblem !== undefined)
    throw new ScrapeformError('cli.usage', `--quirks: ${quirkProblem}`, {
      hint: 'docs/emulator.md lists the quirks and what each one does',
    });
  const running = await startEmulator({
    quirks,
    host: flags.host,
    port,
    apiKeys: flags.apiKey ?? [],
    generationDelayMs: delay,
    ...(flags.credits !== undefined ? { credits: wholeNumber(flags.credits, '--credits') } : {}),
    ...(flags.dataDir !== undefined ? { dataDir: flags.dataDir } : {}),
    warn: (message) => ctx.log(ctx.colors.yellow(`warning: ${message}`)),
    ...(flags.seed !== undefined ? { seed: wholeNumber(flags.seed, '--seed') } : {}),
    ...(flags.generationCost !== undefined
      ? { generationCost: wholeNumber(flags.generationCost, '--generation-cost') }
      : {}),
    ...(flags.parseCost !== undefined ? { parseCost: wholeNumber(flags.parseCost, '--parse-cost') } : {}),
  });
  ctx.print(`scrapeform emulator listening on ${running.url}`);
  ctx.print(`  export SCRAPEFORM_PARSER_URL=${running.url}`);
  ctx.print(`  export SCRAPEFORM_PIPELINE_URL=${running.url}`);
  ctx.print(`  export SCRAPERAPI_API_KEY=${running.apiKeys[0] ?? DEFAULT_EMULATOR_KEY}`);
  if (quirks.length > 0) ctx.log(`quirks: ${running.quirks.list().join(', ')}`);
  ctx.log(
    `control endpoints under ${running.url}/_emulator/ (reset, advance, faults, quirks, requests, accounts); Ctrl-C stops`,
  );
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await running.close();
  ctx.log('emulator stopped');
  return 'ok';
}
