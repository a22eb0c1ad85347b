import { spawn } from 'node:child_process';
import path from 'node:path';

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
