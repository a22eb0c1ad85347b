import type { Command } from 'commander';
import { checkRegenerations } from '../plan/approval.js';
import { renderSavedPlan } from '../output/render-saved-plan.js';
import { renderUnmanaged } from '../output/render-unmanaged.js';
import { listUnmanaged } from '../plan/unmanaged.js';
import { renderOutput } from '../output/render-output.js';
import { using } from '../workspace/open-workspace.js';
import { planWorkspace } from '../workspace/plan-workspace.js';
import type { RunStatus } from './exit-codes.js';
import type { CommandContext, RunCommand } from './io.js';
import { addFormatFlags, formatOf, wholeNumber } from './options.js';
import { writeOutputFile } from './write-output.js';
import { addApiFlags, addLockFlags, addSelectionFlags, openFromFlags, selectionOf } from './shared-flags.js';
import type { ApiFlags, SelectionFlags } from './shared-flags.js';

interface PlanFlags extends ApiFlags, SelectionFlags {
  json?: boolean;
  markdown?: boolean;
  out?: string;
  detailedExitcode?: boolean;
  showUnmanaged?: boolean;
  maxRegenerations?: string;
  lock?: boolean;
}

export function registerPlan(program: Command, run: RunCommand): void {
  const command = addFormatFlags(
    program
      .command('plan')
      .description('show the calls that would bring the live services in line with the manifests')
      .argument('[paths...]', 'manifest files or folders (default: the current folder)'),
    {
      json: 'print the plan as JSON (the public plan format)',
      markdown: 'print the plan as Markdown for a pull-request comment',
    },
  )
    .option('--out <file>', 'save the plan, with the fingerprint apply --plan checks')
    .option(
      '--detailed-exitcode',
      'exit 2 when there are changes, 0 when none (drift counts when the plan reverts it; scrapeform drift exits 4 for any)',
    )
    .option('--show-unmanaged', 'also list live objects neither in state nor in manifests')
    .option('--max-regenerations <n>', 'fail (exit 3) when the plan would regenerate more parsers than this')
    .option('--lock', 'hold the state lock while planning');
  addLockFlags(addSelectionFlags(addApiFlags(command))).action(async (paths: string[], flags: PlanFlags) =>
    run((ctx) => plan(ctx, paths, flags)),
  );
}

async function plan(ctx: CommandContext, paths: string[], flags: PlanFlags): Promise<RunStatus> {
  const maxRegenerations = wholeNumber(flags.maxRegenerations, '--max-regenerations');
  const format = formatOf(flags);
  return using(openFromFlags(ctx, paths, flags), async (ws) => {
    const { plan, live, state } = await planWorkspace(ws, selectionOf(flags), {
      lock: flags.lock === true,
      account: true,
    });
    ctx.print(renderOutput('plan', format, plan, ctx.stdoutColors));
    if (flags.out !== undefined) {
      await writeOutputFile(
        flags.out,
        renderSavedPlan(plan),
        'the saved plan',
        'the plan above was not saved',
      );
      ctx.log(`Saved the plan to ${flags.out}; apply it exactly with: scrapeform apply --plan ${flags.out}`);
    }
    if (flags.showUnmanaged === true) {
      ctx.log(renderUnmanaged(listUnmanaged(live, state, ws.manifests)));
    }
    checkRegenerations(plan, maxRegenerations);
    if (flags.detailedExitcode === true) return plan.status === 'changes' ? 'changes' : 'no-changes';
    return 'ok';
  });
}
