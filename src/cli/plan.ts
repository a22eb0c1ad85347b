import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { ScrapeformError } from '../errors.js';
import type { Plan } from '../plan/model.js';
import { listUnmanaged } from '../plan/unmanaged.js';
import { renderPlan } from '../output/render-plan.js';
import { renderPlanMarkdown } from '../output/render-plan-markdown.js';
import { renderPlanJson } from '../output/render-plan-json.js';
import type { RunStatus } from './exit-codes.js';
import type { CommandContext, RunCommand } from './io.js';
import {
  addApiFlags,
  addSelectionFlags,
  openFromFlags,
  planWorkspace,
  wholeNumber,
  withLock,
} from './shared-flags.js';
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
  const command = program
    .command('plan')
    .description('show the calls that would bring the live services in line with the manifests')
    .argument('[paths...]', 'manifest files or folders', [])
    .option('--json', 'print the plan as JSON (the public plan format)')
    .option('--markdown', 'print the plan as Markdown for a pull-request comment')
    .option('--out <file>', 'save the plan, with the fingerprint apply --plan checks')
    .option('--detailed-exitcode', 'exit 2 when there are changes, 0 when none')
    .option('--show-unmanaged', 'also list live objects neither in state nor in manifests')
    .option('--max-regenerations <n>', 'fail (exit 3) when the plan would regenerate more parsers than this')
    .option('--lock', 'hold the state lock while planning');
  addSelectionFlags(addApiFlags(command)).action(async (paths: string[], flags: PlanFlags) =>
    run((ctx) => plan(ctx, paths, flags)),
  );
}

async function plan(ctx: CommandContext, paths: string[], flags: PlanFlags): Promise<RunStatus> {
  const maxRegenerations = wholeNumber(flags.maxRegenerations, '--max-regenerations');
  const ws = await openFromFlags(ctx, paths, flags);
  try {
    return await withLock(ws, 'plan', flags.lock === true, async () => {
      const { plan, live, state } = await planWorkspace(ws, flags);
      if (flags.json === true) ctx.print(renderPlanJson(plan));
      else if (flags.markdown === true) ctx.print(renderPlanMarkdown(plan));
      else ctx.print(renderPlan(plan, ctx.stdoutColors));
      if (flags.out !== undefined) {
        await writeFile(flags.out, `${renderPlanJson(plan)}\n`);
        ctx.log(
          `Saved the plan to ${flags.out}; apply it exactly with: scrapeform apply --plan ${flags.out}`,
        );
      }
      if (flags.showUnmanaged === true) {
        const list = listUnmanaged(live, state, ws.manifests);
        ctx.log(
          list.length === 0
            ? 'No unmanaged objects.'
            : `Unmanaged (never touched):\n${list.map((l) => `  ${l}`).join('\n')}`,
        );
      }
      checkRegenerations(plan, maxRegenerations);
      if (flags.detailedExitcode === true) return plan.status === 'changes' ? 'changes' : 'no-changes';
      return 'ok';
    });
  } finally {
    await ws.close();
  }
}

export function checkRegenerations(plan: Plan, max: number | undefined): void {
  if (max !== undefined && plan.summary.regenerations > max) {
    throw new ScrapeformError(
      'plan.too-many-regenerations',
      `the plan regenerates ${plan.summary.regenerations} parsers (~${plan.summary.estimated_credits.toLocaleString('en-US')} credits), more than --max-regenerations ${max}`,
      {
        status: 'input-needed',
        hint: 'split the change, or raise --max-regenerations after checking the cost',
      },
    );
  }
}
