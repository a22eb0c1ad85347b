import { runCli } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/io.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process with captured streams, no terminal, and only the environment given. */
export async function runScrapeform(
  argv: string[],
  options: { env?: Record<string, string | undefined> } = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { CI: 'true', ...options.env },
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}
