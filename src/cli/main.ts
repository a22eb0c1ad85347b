import { Command, CommanderError } from 'commander';
import { ApiError } from '../api/api-error.js';
import { keysRemembered, redactError } from '../api/redact.js';
import { ScrapeformError } from '../errors.js';
import type { Diagnostic } from '../manifest/diagnostic.js';
import { DEFAULT_API_KEY_ENV } from '../model/vocabulary.js';
import { countDiagnostics, renderDiagnostics } from '../output/render-diagnostics.js';
import { VERSION } from '../version.js';
import { exitCodeFor } from './exit-codes.js';
import type { RunStatus } from './exit-codes.js';
import { changeDirectory } from './chdir.js';
import { addExamples } from './examples.js';
import { createContext, logError } from './io.js';
import type { CliIo, ColorChoice, CommandContext, RunCommand } from './io.js';

type Register = (program: Command, run: RunCommand) => void;

/**
 * Every command's module, loaded only when needed: a run loads the one module of the command it names (with its
 * dependencies: the emulator stack, pg, undici...), so `scrapeform --version` or `validate` do not pay for the
 * others. Help, completion and unknown commands load them all. Each entry lists the commands its module
 * registers, in the order help shows them.
 */
export const COMMAND_MODULES: { names: readonly string[]; load: () => Promise<Register> }[] = [
  { names: ['validate'], load: async () => (await import('./validate.js')).registerValidate },
  { names: ['render'], load: async () => (await import('./render.js')).registerRender },
  { names: ['plan'], load: async () => (await import('./plan.js')).registerPlan },
  { names: ['apply'], load: async () => (await import('./apply.js')).registerApply },
  { names: ['import'], load: async () => (await import('./import.js')).registerImport },
  { names: ['status'], load: async () => (await import('./status.js')).registerStatus },
  { names: ['doctor'], load: async () => (await import('./doctor.js')).registerDoctor },
  { names: ['drift'], load: async () => (await import('./drift.js')).registerDrift },
  { names: ['watch'], load: async () => (await import('./watch.js')).registerWatch },
  { names: ['output'], load: async () => (await import('./output.js')).registerOutput },
  { names: ['parse'], load: async () => (await import('./parse.js')).registerParse },
  { names: ['test'], load: async () => (await import('./test-command.js')).registerTest },
  { names: ['run'], load: async () => (await import('./run.js')).registerRun },
  { names: ['jobs', 'cancel'], load: async () => (await import('./jobs.js')).registerJobs },
  { names: ['diff-results'], load: async () => (await import('./diff-results.js')).registerDiffResults },
  { names: ['schema'], load: async () => (await import('./schema.js')).registerSchema },
  { names: ['emulator'], load: async () => (await import('./emulator.js')).registerEmulator },
  { names: ['force-unlock'], load: async () => (await import('./force-unlock.js')).registerForceUnlock },
  { names: ['state'], load: async () => (await import('./state.js')).registerState },
  { names: ['demo'], load: async () => (await import('./demo.js')).registerDemo },
  { names: ['fmt'], load: async () => (await import('./fmt.js')).registerFmt },
  { names: ['show'], load: async () => (await import('./show.js')).registerShow },
  { names: ['version'], load: async () => (await import('./version.js')).registerVersion },
  { names: ['completion'], load: async () => (await import('./completion.js')).registerCompletion },
  // Hidden: what the completion scripts call at `--env <TAB>`, loading nothing else.
  { names: ['__complete'], load: async () => (await import('./complete-values.js')).registerCompleteValues },
];

/** Program options that take a value: the word after them is not the command. */
const PROGRAM_OPTIONS_WITH_VALUE = new Set(['--chdir']);

/**
 * The modules this command line needs: the named command's, none for a bare `--version`, all of them for help,
 * completion (made from every command) or a word that names no command (commander suggests the nearest).
 */
function modulesFor(argv: readonly string[]): typeof COMMAND_MODULES {
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (PROGRAM_OPTIONS_WITH_VALUE.has(arg)) i++;
    else if (!arg.startsWith('-')) words.push(arg);
    if (words.length === 2) break;
  }
  const [first, second] = words;
  if (first === undefined) {
    const versionOnly =
      argv.some((a) => a === '-V' || a === '--version') && !argv.some((a) => a === '-h' || a === '--help');
    return versionOnly ? [] : COMMAND_MODULES;
  }
  const named = first === 'help' ? second : first;
  const found = COMMAND_MODULES.find((m) => named !== undefined && m.names.includes(named));
  return found !== undefined && named !== 'completion' ? [found] : COMMAND_MODULES;
}

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
  for (const register of await Promise.all(modulesFor(argv).map((m) => m.load()))) register(program, run);
  // --color and --no-color are accepted before the command and after it (program options are positional), and
  // after a subcommand too (`state pull --no-color`): given to the top-level commands only, they were refused there
  // as unknown options, and ignored when written between the two words (`state --color push`).
  const withColorFlags = (commands: readonly Command[]): void => {
    for (const command of commands) {
      command
        .option('--color', 'colour even in a pipe or CI')
        .option('--no-color', 'plain output without colour');
      withColorFlags(command.commands);
    }
  };
  withColorFlags(program.commands);
  program.hook('preAction', (_, actionCommand) => {
    // The flag nearest the end of the command line wins: the subcommand's, then its parent's, then the program's.
    let chosen: boolean | undefined;
    for (let c: Command | null = actionCommand; c !== null && chosen === undefined; c = c.parent)
      chosen = c.opts<{ color?: boolean }>().color;
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
    logError(ctx, error);
    return error instanceof ScrapeformError ? error.status : 'error';
  }
  // A bug's own text is not redacted where it was made: its message may quote a keyed URL or a value that held the
  // key, so the keys this run read (and the default variable's, read or not) are taken out here.
  const secrets = [...keysRemembered(), ctx.io.env[DEFAULT_API_KEY_ENV]?.trim() ?? ''].filter(
    (k) => k !== '',
  );
  const shown = redactError(error, secrets);
  const stack = shown instanceof Error ? (shown.stack ?? shown.message) : String(shown);
  ctx.log(`${ctx.colors.red('internal error:')} ${stack}`);
  ctx.log('This is a bug in scrapeform. Please report it with the output above and the command you ran.');
  return 'error';
}
