import { createColors } from '../output/colors.js';
import type { Colors } from '../output/colors.js';
import type { RunStatus } from './exit-codes.js';

/** What a command may touch of the outside world; tests pass their own to capture output. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
}

export function processIo(): CliIo {
  return {
    stdout: quietOnClosedPipe(process.stdout),
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    stdinIsTTY: process.stdin.isTTY === true,
  };
}

/**
 * stdout whose reader went away (`scrapeform plan | head -1`): further output is dropped instead of crashing the
 * command with an unhandled EPIPE, so an apply in flight still finishes and saves state.
 */
export function quietOnClosedPipe(stream: NodeJS.WritableStream): { write(text: string): unknown } {
  let closed = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') closed = true;
    else throw error;
  });
  return { write: (text: string) => (closed ? false : stream.write(text)) };
}

/** How a command should talk: colour and prompts only for a person at a terminal, never in CI or a pipe. */
export interface CommandContext {
  io: CliIo;
  /** Colours for stderr (progress, warnings, diagnostics). */
  colors: Colors;
  /** Colours for stdout, off when stdout is a pipe. */
  stdoutColors: Colors;
  /** A person is there: a terminal on stdin and stderr, and CI not set. */
  interactive: boolean;
  print(text: string): void;
  log(text: string): void;
}

/**
 * `--color` forces colour, `--no-color` turns it off, and without either: colour on a terminal outside CI.
 * FORCE_COLOR (not 0 or false) forces it too, for CI logs that render it (GitHub Actions); NO_COLOR always wins.
 */
export type ColorChoice = 'auto' | 'always' | 'never';

export function createContext(io: CliIo, options: { color: ColorChoice }): CommandContext {
  const ci = io.env.CI !== undefined && io.env.CI !== '' && io.env.CI !== 'false';
  const noColor = io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '';
  const force = io.env.FORCE_COLOR !== undefined && !['0', 'false'].includes(io.env.FORCE_COLOR);
  const choice = noColor ? 'never' : options.color === 'auto' && force ? 'always' : options.color;
  const on = (tty: boolean): boolean => choice === 'always' || (choice === 'auto' && tty && !ci);
  return {
    io,
    colors: createColors(on(io.stderrIsTTY)),
    stdoutColors: createColors(on(io.stdoutIsTTY)),
    interactive: io.stdinIsTTY && io.stderrIsTTY && !ci,
    print: (text) => io.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
    log: (text) => io.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  };
}

/** Runs a command's body with the context built from the global flags; given to each command's register function. */
export type RunCommand = (action: (ctx: CommandContext) => Promise<RunStatus>) => Promise<void>;
