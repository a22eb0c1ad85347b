import type { Command } from 'commander';
import { renderOutput } from '../output/render-output.js';
import type { RunCommand } from './io.js';
import { addFormatFlags, formatOf } from './options.js';
import { readSavedPlan } from './saved-plan.js';

/** `scrapeform show PLANFILE`: a saved plan rendered again, in any format (as `terraform show`). */
export function registerShow(program: Command, run: RunCommand): void {
  addFormatFlags(
    program
      .command('show')
      .description('print a plan saved with plan --out, for people, as JSON or as Markdown')
      .argument('<planfile>', 'the file plan --out wrote'),
    {
      json: 'print it as JSON (the public plan format)',
      markdown: 'print it as Markdown for a pull-request comment',
    },
  ).action(async (file: string, flags: { json?: boolean; markdown?: boolean }) =>
    run(async (ctx) => {
      const plan = await readSavedPlan(file);
      const format = formatOf(flags);
      ctx.print(renderOutput('plan', format, plan, ctx.stdoutColors));
      return 'ok';
    }),
  );
}
