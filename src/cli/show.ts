import type { Command } from 'commander';
import { renderOutput } from '../output/render-output.js';
import type { RenderFormat } from '../output/render-output.js';
import type { RunCommand } from './io.js';
import { readSavedPlan } from './saved-plan.js';

/** `scrapeform show PLANFILE`: a saved plan rendered again, in any format (as `terraform show`). */
export function registerShow(program: Command, run: RunCommand): void {
  program
    .command('show')
    .description('print a plan saved with plan --out, for people, as JSON or as Markdown')
    .argument('<planfile>', 'the file plan --out wrote')
    .option('--json', 'print it as JSON (the public plan format)')
    .option('--markdown', 'print it as Markdown for a pull-request comment')
    .action(async (file: string, flags: { json?: boolean; markdown?: boolean }) =>
      run(async (ctx) => {
        const plan = await readSavedPlan(file);
        const format: RenderFormat =
          flags.json === true ? 'json' : flags.markdown === true ? 'markdown' : 'human';
        ctx.print(renderOutput('plan', format, plan, ctx.stdoutColors));
        return 'ok';
      }),
    );
}
