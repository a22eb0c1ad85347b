import type { Command } from 'commander';
import { manifestJsonSchema } from '../manifest/json-schema.js';
import type { RunCommand } from './io.js';

export function registerSchema(program: Command, run: RunCommand): void {
  program
    .command('schema')
    .description('print the manifest JSON Schema (for editors)')
    .action(async () =>
      run(async (ctx) => {
        ctx.print(JSON.stringify(manifestJsonSchema(), null, 2));
        return 'ok';
      }),
    );
}
