import { Command, CommanderError } from 'commander';
import { ApiError } from '../api/api-error.js';
import { ScrapeformError } from '../errors.js';
import type { Diagnostic } from '../manifest/diagnostic.js';
import { countDiagnostics, renderDiagnostics } from '../output/render-diagnostics.js';
import { VERSION } from '../version.js';
import { registerApply } from './apply.js';
import { registerDemo } from './demo.js';
import { registerDoctor } from './doctor.js';
import { registerDrift } from './drift.js';
import { registerForceUnlock } from './force-unlock.js';
import { registerPlan } from './plan.js';
import { registerDiffResults } from './diff-results.js';
import { registerImport } from './import.js';
import { registerJobs } from './jobs.js';
import { registerOutput } from './output.js';
import { registerParse } from './parse.js';
import { registerRun } from './run.js';
import { registerState } from './state.js';
import { registerStatus } from './status.js';
import { registerTest } from './test-command.js';
import { registerEmulator } from './emulator.js';
import { exitCodeFor } from './exit-codes.js';
import type { RunStatus } from './exit-codes.js';
import { changeDirectory } from './chdir.js';
import { registerCompletion } from './completion.js';
import { registerFmt } from './fmt.js';
import { registerShow } from './show.js';
import { addExamples } from './examples.js';
import { createContext } from './io.js';
import type { CliIo, ColorChoice, CommandContext, RunCommand } from './io.js';
import { registerVersion } from './version.js';
import { registerSchema } from './schema.js';
import { registerRender } from './render.js';
import { registerValidate } from './validate.js';
import { registerWatch } from './watch.js';

/**
 * Runs scrapeform with the given arguments (without `node` and the script) and returns the exit code.
 * This is the one place that catches: commands return a status or throw, and every status maps to a code here.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let status: RunStatus = 'ok';
  let ctx: CommandContext | undefined;
  const program = new Command();
  let color: ColorChoice = 'auto';
  const run: RunCommand = async (action) => {
    ctx = createContext(io, { color });
    status = await action(ctx);
  };
  program
    .name('scrapeform')
    .description(
      'Terraform for web-scraping parsers: ScraperAPI AI parsers and DataPipeline projects as code.',
    )
    .version(VERSION, '-V, --version', 'print the version')
    .option('--color', 'colour even in a pipe or CI (also FORCE_COLOR=1)')
    .option('--no-color', 'plain output without colour (also NO_COLOR=1, which always wins)')
    .option(
      '--chdir <dir>',
      'run as if started in this folder (paths, state and manifests are read from there)',
    )
    .showHelpAfterError('(run scrapeform --help for usage)')
    // Program options only before the command, so a command's own --version (parse --version N) is its own.
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    });
  registerValidate(program, run);
  registerRender(program, run);
  registerPlan(program, run);
  registerApply(program, run);
  registerDrift(program, run);
  registerWatch(program, run);
  registerImport(program, run);
  registerStatus(program, run);
  registerOutput(program, run);
  registerParse(program, run);
  registerTest(program, run);
  registerRun(program, run);
  registerJobs(program, run);
  registerDiffResults(program, run);
  registerSchema(program, run);
  registerEmulator(program, run);
  registerForceUnlock(program, run);
  registerState(program, run);
  registerDemo(program, run);
  registerFmt(program, run);
  registerShow(program, run);
  registerVersion(program, run);
  registerCompletion(program, run);
  registerDoctor(program, run);
  // --color and --no-color are accepted before the command and after it (program options are positional).
  for (const command of program.commands) {
    command
      .option('--color', 'colour even in a pipe or CI')
      .option('--no-color', 'plain output without colour');
  }
  program.hook('preAction', (_, actionCommand) => {
    const chosen =
      actionCommand.opts<{ color?: boolean }>().color ?? program.opts<{ color?: boolean }>().color;
    color = chosen === undefined ? 'auto' : chosen ? 'always' : 'never';
    const dir = program.opts<{ chdir?: string }>().chdir;
    if (dir !== undefined) changeDirectory(dir);
  });
  addExamples(program);
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    return exitCodeFor(failureStatus(error, ctx ?? createContext(io, { color: 'never' })));
  }
  return exitCodeFor(status);
}

function failureStatus(error: unknown, ctx: CommandContext): RunStatus {
  if (error instanceof CommanderError) {
    // Help and version exit 0; usage mistakes were already printed by commander.
    return error.exitCode === 0 ? 'ok' : 'error';
  }
  if (error instanceof ScrapeformError || error instanceof ApiError) {
    const diagnostics = error instanceof ScrapeformError ? error.details.diagnostics : undefined;
    if (Array.isArray(diagnostics)) {
      ctx.log(renderDiagnostics(diagnostics as Diagnostic[], { colors: ctx.colors }));
      ctx.log(countDiagnostics(diagnostics as Diagnostic[]));
    }
    ctx.log(`${ctx.colors.red('error:')} ${error.message}`);
    if (error.hint !== undefined) ctx.log(`  ${ctx.colors.cyan('hint:')} ${error.hint}`);
    return error instanceof ScrapeformError && error.status === 'input-needed' ? 'input-needed' : 'error';
  }
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  ctx.log(`${ctx.colors.red('internal error:')} ${stack}`);
  ctx.log('This is a bug in scrapeform. Please report it with the output above and the command you ran.');
  return 'error';
}
