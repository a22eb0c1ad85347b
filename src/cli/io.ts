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
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    stdinIsTTY: process.stdin.isTTY === true,
  };
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

export function createContext(io: CliIo, options: { color: boolean }): CommandContext {
  const ci = io.env.CI !== undefined && io.env.CI !== '' && io.env.CI !== 'false';
  const noColor = io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '';
  const colorAllowed = options.color && !noColor && !ci;
  return {
    io,
    colors: createColors(colorAllowed && io.stderrIsTTY),
    stdoutColors: createColors(colorAllowed && io.stdoutIsTTY),
    interactive: io.stdinIsTTY && io.stderrIsTTY && !ci,
    print: (text) => io.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
    log: (text) => io.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  };
}

/** Runs a command's body with the context built from the global flags; given to each command's register function. */
export type RunCommand = (action: (ctx: CommandContext) => Promise<RunStatus>) => Promise<void>;
