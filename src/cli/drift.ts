import type { Command } from 'commander';
import { printable } from '../output/escape-text.js';
import { renderOutput } from '../output/render-output.js';
import { acceptDrift } from '../workspace/accept-drift.js';
import { detectWorkspaceDrift } from '../workspace/detect-drift.js';
import { using } from '../workspace/open-workspace.js';
import type { RunStatus } from './exit-codes.js';
import type { CommandContext, RunCommand } from './io.js';
import { addFormatFlags, collect, formatOf } from './options.js';
import { addApiFlags, addLockFlags, openFromFlags } from './shared-flags.js';
import type { ApiFlags } from './shared-flags.js';

interface DriftFlags extends ApiFlags {
  json?: boolean;
  markdown?: boolean;
  accept?: boolean;
  target?: string[];
}

export function registerDrift(program: Command, run: RunCommand): void {
  const command = addFormatFlags(
    program
      .command('drift')
      .description(
        'show what changed in the live services outside scrapeform (compared with state), and what reverting or accepting it costs; exit 4 when something did',
      )
      .argument(
        '[paths...]',
        'manifest files or folders, for --accept and ignore_changes (default: the current folder)',
      ),
    {
      json: 'print the drift as JSON',
      markdown: 'print the drift as Markdown (an issue or a pull-request comment)',
    },
  )
    .option('--accept', 'take the live shape into state and the manifests instead of reverting it')
    .option('--target <address>', 'only this object (repeatable), such as parser.books-product', collect);
  addLockFlags(addApiFlags(command)).action(async (paths: string[], flags: DriftFlags) =>
    run((ctx) => drift(ctx, paths, flags)),
  );
}

async function drift(ctx: CommandContext, paths: string[], flags: DriftFlags): Promise<RunStatus> {
  const format = formatOf(flags);
  const targets = flags.target ?? [];
  return using(openFromFlags(ctx, paths, flags), async (ws) => {
    if (flags.accept !== true) {
      const { report } = await detectWorkspaceDrift(ws, { manifests: ws.manifests, targets });
      ctx.print(renderOutput('drift', format, report, ctx.stdoutColors));
      return report.status === 'drift' ? 'drift' : 'ok';
    }
    const outcome = await acceptDrift(ws, { targets });
    ctx.print(renderOutput('drift', format, outcome.report, ctx.stdoutColors));
    // Why an object was not accepted may quote a live field name (and addresses and paths may hold anything):
    // printable, as the drift report prints them.
    for (const address of outcome.accepted) ctx.log(ctx.colors.green(`accepted ${printable(address)}`));
    for (const file of outcome.files) ctx.log(`rewrote ${printable(file)}`);
    for (const line of outcome.skipped) ctx.log(ctx.colors.yellow(`not accepted: ${printable(line)}`));
    if (outcome.placeholders.length > 0) {
      ctx.log(
        ctx.colors.yellow(
          `The service does not return descriptions: ${outcome.placeholders.map(printable).join(', ')} ${outcome.placeholders.length === 1 ? 'has' : 'have'} a placeholder that validate warns about until you describe ${outcome.placeholders.length === 1 ? 'it' : 'them'}.`,
        ),
      );
    }
    // Drift left as it was (still generating, a renamed project, an edit refused or that did not take) exits 4.
    return outcome.accepted.length < outcome.report.drift.length ? 'drift' : 'ok';
  });
}
