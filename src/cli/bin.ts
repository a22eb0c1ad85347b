#!/usr/bin/env node
import { runCli } from './main.js';
import { flushPendingOutput, outputFailure, processIo, writtenOut } from './io.js';

// The bundle is CommonJS (rolldown.config.js: Node 20 loads it faster than ES modules), which has no top-level
// await: the command runs in main().
async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  // zod compiles each schema into a function on its first use; a CLI process validates a few schemas once, for which
  // that costs more than it saves (about 60 ms on `validate` of one file, no gain at 20,000 objects). A bare
  // `--version` or `--help` does not load zod at all. Only `config` is named: the bundled CLI then keeps only the
  // parts of zod it uses (a namespace used whole would keep its 70 locale modules, most of zod's start-up).
  if (argv.some((arg) => !arg.startsWith('-'))) {
    const { config } = await import('zod');
    config({ jitless: true });
  }
  // Ctrl-C and SIGTERM end every command with 130 (README, exit codes); Node's own ending would say 143 for SIGTERM. A
  // command that stops gracefully (apply, watch: stop-signals.ts) has listeners of its own, and this one then leaves
  // the signal to them. A lock the command held is taken over by the next run on this machine, as after a kill.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (process.listenerCount(signal) === 1) process.exit(130);
    });
  }
  process.exitCode = await runCli(argv, processIo());
  // The command is over and has closed what it opened: exit now rather than when the event loop drains, which for a
  // large apply also tears its heap down (about 40 ms after 1,000 creates, bench/scale.js). Output still gathered
  // (io.ts) or still going out to a slow reader is written first.
  flushPendingOutput();
  await Promise.all([process.stdout, process.stderr].map(writtenOut));
  const failed = outputFailure(process.stdout);
  if (failed !== undefined) {
    process.stderr.write(
      `error: the output could not be written (${failed.message}): what stdout got is incomplete\n  hint: free space where stdout goes (or write it elsewhere), then run the command again\n`,
    );
    process.exitCode = 1;
  }
  process.exit();
}

void main();
