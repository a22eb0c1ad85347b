import type { Command } from 'commander';
import { manifestJsonSchema } from '../manifest/json-schema.js';
import type { RunCommand } from './io.js';
import { renderJson } from '../output/render-json.js';

export function registerSchema(program: Command, run: RunCommand): void {
  program
    .command('schema')
    .description('print the manifest JSON Schema (for editors)')
    .action(async () =>
      run(async (ctx) => {
        ctx.print(renderJson(manifestJsonSchema()));
        return 'ok';
      }),
    );
}
