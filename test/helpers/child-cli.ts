import { spawn } from 'node:child_process';
import path from 'node:path';
import { until } from './until.js';

export const BUILT_CLI = path.resolve(import.meta.dirname, '../../dist/cli/bin.cjs');

export interface ChildRun {
  code: number;
  stdout: string;
  stderr: string;
  /** The process was still running after `exitWithinMs` and was killed: a command that never exits. */
  hung?: boolean;
}

/** The environment a CI job would give the CLI against an emulator: no terminal, CI set, fast polling. */
export function emulatorEnv(url: string, key: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    CI: 'true',
    SCRAPERAPI_API_KEY: key,
    SCRAPEFORM_PARSER_URL: url,
    SCRAPEFORM_PIPELINE_URL: url,
    SCRAPEFORM_POLL_INTERVAL: '20ms',
    ...extra,
  };
}

/** Runs the built CLI as a child process, as users and CI do, to its end. */
export function runBuiltCli(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; exitWithinMs?: number },
): Promise<ChildRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BUILT_CLI, ...args], { cwd: options.cwd, env: options.env });
    let stdout = '';
    let stderr = '';
    let hung = false;
    // A guard against commands that print their answer and never exit (an open pool or socket).
    const guard =
      options.exitWithinMs !== undefined
        ? setTimeout(() => {
            hung = true;
            child.kill('SIGKILL');
          }, options.exitWithinMs)
        : undefined;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code: code ?? 1, stdout, stderr, ...(hung ? { hung } : {}) });
    });
  });
}

/** What a run of the built CLI that was sent a signal printed, how it ended, and how long after the signal. */
export interface SignalledRun {
  /** 'still running' when it had not exited `exitWithinMs` after the signal (it is then killed). */
  code: number | null | 'still running';
  stdout: string;
  stderr: string;
  exitMs: number;
}

/**
 * Runs the built CLI as a child process, sends it `signal` once `ready()` holds (looked at every 25 ms for up to
 * 20 s; the test fails when it never does) and waits for its end, at most `exitWithinMs` (10 s by default).
 */
export async function signalledBuiltCli(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
  ready: () => boolean,
  { signal = 'SIGINT', exitWithinMs = 10_000 }: { signal?: NodeJS.Signals; exitWithinMs?: number } = {},
): Promise<SignalledRun> {
  const child = spawn(process.execPath, [BUILT_CLI, ...args], { cwd: options.cwd, env: options.env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  try {
    await until(`the moment to send ${signal} came`, ready, { everyMs: 25 });
    child.kill(signal);
    const sent = Date.now();
    const code = await Promise.race([
      exited,
      new Promise<'still running'>((r) => setTimeout(r, exitWithinMs, 'still running')),
    ]);
    return { code, stdout, stderr, exitMs: Date.now() - sent };
  } finally {
    child.kill('SIGKILL');
  }
}
