import { fstatSync, writeSync } from 'node:fs';
import { isatty } from 'node:tty';
import { createColors } from '../output/colors.js';
import type { Colors } from '../output/colors.js';
import { printableLines } from '../output/escape-text.js';
import type { RunStatus } from './exit-codes.js';

/**
 * What a command may touch of the outside world; tests pass their own to capture output. Relative paths (manifests,
 * state, var files) are read from the process's own folder, as `--chdir` sets it: there is no folder of an io's own.
 */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: Readonly<Record<string, string | undefined>>;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
}

export function processIo(): CliIo {
  process.once('exit', flushPendingOutput);
  return {
    stdout: gathered(isRegularFile(1) ? wholeToFile(1) : quietOnClosedPipe(process.stdout)),
    stderr: gathered(process.stderr),
    env: process.env,
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    // Asked of the descriptor: `process.stdin` would make a stream for it (about 2 ms of every start) that only a
    // prompt reads.
    stdinIsTTY: isatty(0),
  };
}

/** What gathered streams (`gathered`) hold, in the order it was written, across streams. */
let pending: { stream: { write(text: string): unknown }; text: string }[] = [];
let scheduled = false;

/**
 * Writes now what gathered streams hold: before anything writes to the process's streams directly (a prompt) or
 * the process exits. Consecutive writes to one stream go out as one write; the order across streams is kept.
 */
export function flushPendingOutput(): void {
  scheduled = false;
  const writes = pending;
  pending = [];
  for (let i = 0; i < writes.length;) {
    const stream = writes[i]?.stream;
    let text = '';
    for (; i < writes.length && writes[i]?.stream === stream; i++) text += writes[i]?.text ?? '';
    stream?.write(text);
  }
}

/**
 * A stream whose writes are gathered during one turn of the event loop and written at its end (setImmediate). A
 * large apply in CI logs a line per call: one write to the pipe per line was about 5% of its CPU in a profile
 * of 1,000 project creates (bench/scale.js). What is gathered is written before the process exits.
 */
export function gathered(stream: { write(text: string): unknown }): { write(text: string): unknown } {
  return {
    write: (text: string) => {
      pending.push({ stream, text });
      if (!scheduled) {
        scheduled = true;
        setImmediate(flushPendingOutput);
      }
      return true;
    },
  };
}

/**
 * Resolves once everything written to `stream` so far is out (at once when nothing waits), so the process can exit
 * without cutting it; also when the stream fails or is closed. An empty write's callback runs after every write
 * before it: 'drain' alone comes only after a write that filled the buffer, which many small ones to a slow reader
 * never do.
 */
export function writtenOut(
  stream: NodeJS.WritableStream & { writableLength?: number; destroyed?: boolean },
): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed === true || stream.writableLength === 0) return resolve();
    stream.once('error', () => resolve());
    stream.once('close', () => resolve());
    stream.write('', () => resolve());
  });
}

/**
 * stdout whose reader went away (`scrapeform plan | head -1`): further output is dropped instead of crashing the
 * command with an unhandled EPIPE, so an apply in flight still finishes and saves state. Another failure (a full
 * disk under `state pull > backup.json`) drops it too, and the exit says so (outputFailure).
 */
export function quietOnClosedPipe(stream: NodeJS.WritableStream): { write(text: string): unknown } {
  let closed = false;
  stream.on('error', () => {
    closed = true;
  });
  return { write: (text: string) => (closed ? false : stream.write(text)) };
}

/** Why a write of wholeToFile stopped, for outputFailure. */
let fileFailure: NodeJS.ErrnoException | undefined;

function isRegularFile(fd: number): boolean {
  try {
    return fstatSync(fd).isFile();
  } catch {
    return false;
  }
}

/**
 * stdout that is a file (`state pull > backup.json`), written to the end of each text. Node's stream for a file
 * writes once and drops what a short write leaves: past a file size limit (`ulimit -f`) the backup was cut short
 * and the command exited 0. The write after a short one fails (EFBIG, ENOSPC), which ends the output and the exit
 * says so (outputFailure).
 */
function wholeToFile(fd: number): { write(text: string): unknown } {
  return {
    write: (text: string) => {
      if (fileFailure !== undefined) return false;
      const bytes = Buffer.from(text);
      try {
        for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done);
        return true;
      } catch (error) {
        fileFailure = error as NodeJS.ErrnoException;
        return false;
      }
    },
  };
}

/**
 * Why what was written to `stream` did not all get out, other than a reader that went away (EPIPE: it took what it
 * wanted). A file of stdout is written synchronously and its error is set at once, but emitted only after the
 * process has exited: without this, a backup cut short by a full disk exited 0.
 */
export function outputFailure(stream: { errored?: Error | null }): NodeJS.ErrnoException | undefined {
  if (fileFailure !== undefined) return fileFailure;
  const error = stream.errored as NodeJS.ErrnoException | null | undefined;
  return error === null || error === undefined || error.code === 'EPIPE' ? undefined : error;
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

/**
 * A user error on stderr, as a command ends with one: `error:` and its `hint:`. Messages quote paths, names and the
 * services' own texts: each line is printed printable, so none can clear the screen or forge a line (a message may
 * hold line breaks of its own).
 */
export function logError(ctx: CommandContext, error: { message: string; hint?: string | undefined }): void {
  ctx.log(`${ctx.colors.red('error:')} ${printableLines(error.message)}`);
  if (error.hint !== undefined) ctx.log(`  ${ctx.colors.cyan('hint:')} ${printableLines(error.hint)}`);
}

/** Runs a command's body with the context built from the global flags; given to each command's register function. */
export type RunCommand = (action: (ctx: CommandContext) => Promise<RunStatus>) => Promise<void>;
