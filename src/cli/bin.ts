#!/usr/bin/env node
import { runCli } from './main.js';
import { processIo } from './io.js';

const argv = process.argv.slice(2);
// zod compiles each schema into a function on its first use; a CLI process validates a few schemas once, for which
// that costs more than it saves (about 60 ms on `validate` of one file, no gain at 20,000 objects). A bare
// `--version` or `--help` does not load zod at all.
if (argv.some((arg) => !arg.startsWith('-'))) (await import('zod')).z.config({ jitless: true });
process.exitCode = await runCli(argv, processIo());
