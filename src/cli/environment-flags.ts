import type { Command } from 'commander';
import { collect } from './options.js';

// Apart from shared-flags.ts, so `validate` and `render` load no client, state or workspace module at start.

/** `--env` and `--var-file`: which environment of scrapeform.yaml, and values for its variables. */
export interface EnvironmentFlags {
  env?: string;
  varFile?: string[];
}

export function addEnvironmentFlags(command: Command): Command {
  return command
    .option(
      '--env <name>',
      'the environment of scrapeform.yaml to act on: its paths, variables, state, key variable and service URLs',
    )
    .option(
      '--var-file <file>',
      'values of declared variables, a YAML map NAME: value (repeatable; later files win)',
      collect,
    );
}

export function environmentOptions(flags: EnvironmentFlags): { environment?: string; varFiles?: string[] } {
  return {
    ...(flags.env !== undefined ? { environment: flags.env } : {}),
    ...(flags.varFile !== undefined ? { varFiles: flags.varFile } : {}),
  };
}
