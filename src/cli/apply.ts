import type { Command } from 'commander';
import { DEFAULT_MAX_GENERATING } from '../apply/apply-model.js';
import type { ApplyEvent } from '../apply/apply-model.js';
import { ApplyStoppedError } from '../apply/unrecorded-calls.js';
import { formatDuration } from '../duration.js';
import { ScrapeformError } from '../errors.js';
import { DEFAULT_CONCURRENCY } from '../model/vocabulary.js';
import { printable } from '../output/escape-text.js';
import { callText } from '../output/call-text.js';
import type { ApplyReport } from '../output/render-apply.js';
import { renderApprovalQuestion } from '../output/render-approval.js';
import { renderOutput } from '../output/render-output.js';
import { heldBack, planParts } from '../output/render-plan.js';
import { applyWorkspace } from '../workspace/apply-workspace.js';
import { tuneForCalls } from './v8-flags.js';
import { using } from '../workspace/open-workspace.js';
import type { RunStatus } from './exit-codes.js';
import type { CommandContext, RunCommand } from './io.js';
import { writeOutputFile } from './write-output.js';
import { LiveProgress } from './live-progress.js';
import { PlanInParts } from './plan-in-parts.js';
import { collect, wholeNumber } from './options.js';
import { confirm } from './prompt.js';
import { stopOnSignals } from './stop-signals.js';
import { readSavedPlan } from './saved-plan.js';
import {
  addApiFlags,
  addLockFlags,
  addSelectionFlags,
  durationFlag,
  openFromFlags,
  durationFromEnv,
  pollIntervalFromEnv,
  selectionOf,
} from './shared-flags.js';
import type { ApiFlags, SelectionFlags } from './shared-flags.js';

interface ApplyFlags extends ApiFlags, SelectionFlags {
  plan?: string;
  autoApprove?: boolean;
  allowDestroy?: boolean;
  allowAdopt?: boolean;
  recreate?: string[];
  forget?: string[];
  concurrency: string;
  maxGenerating: string;
  waitTimeout: string;
  wait: boolean;
  json?: boolean;
  markdownReport?: string;
  maxRegenerations?: string;
}

export function registerApply(program: Command, run: RunCommand): void {
  const command = program
    .command('apply')
    .description('make the calls of the plan, wait for parser generation, and record state')
    .argument('[paths...]', 'manifest files or folders (default: the current folder)')
    .option(
      '--plan <file>',
      'apply a plan saved with plan --out, exactly (refused when state or live versions moved)',
    )
    .option('--auto-approve', 'do not ask (needed without a terminal or with CI set)')
    .option('--allow-destroy', 'allow deletes, replaces and archives')
    .option('--allow-adopt', 'allow taking over live objects no state manages (found by name)')
    .option(
      '--recreate <address>',
      'send again a create or PATCH an earlier apply could not confirm and no answer shows yet, or create again an object scrapeform created and has not seen since that answers 404 (repeatable; check the service first)',
      collect,
    )
    .option(
      '--forget <address>',
      'drop from state an object no manifest declares, held back because the service shows none of its kind or has not shown it since its create (repeatable; check the account first)',
      collect,
    )
    .option(
      '--concurrency <n>',
      'calls in flight at once (a parser waiting for its generation holds none)',
      String(DEFAULT_CONCURRENCY),
    )
    .option(
      '--max-generating <n>',
      'parser generations in flight at once (each costs credits before its outcome is known)',
      String(DEFAULT_MAX_GENERATING),
    )
    .option('--wait-timeout <duration>', 'how long to wait for a generation', '15m')
    .option('--no-wait', 'return after the calls instead of waiting for generations (a replace still waits)')
    .option('--json', 'print the result as JSON')
    .option(
      '--markdown-report <file>',
      'also write the result, the expect checks and what each regeneration changed in the data as Markdown',
    )
    .option('--max-regenerations <n>', 'refuse (exit 3) a plan that regenerates more parsers than this');
  addLockFlags(addSelectionFlags(addApiFlags(command))).action(async (paths: string[], flags: ApplyFlags) =>
    run((ctx) => apply(ctx, paths, flags)),
  );
}

async function apply(whole: CommandContext, paths: string[], flags: ApplyFlags): Promise<RunStatus> {
  // Without a prompt, the plan is printed a part at a time once the calls start (plan-in-parts.ts says why); all
  // other output of the command waits for the whole plan.
  const inParts = new PlanInParts((text) => whole.io.stdout.write(text));
  const ctx = inParts.context(whole);
  const concurrency = wholeNumber(flags.concurrency, '--concurrency') ?? DEFAULT_CONCURRENCY;
  if (concurrency < 1) throw new ScrapeformError('cli.usage', '--concurrency must be at least 1');
  const maxGenerating = wholeNumber(flags.maxGenerating, '--max-generating') ?? DEFAULT_MAX_GENERATING;
  if (maxGenerating < 1) throw new ScrapeformError('cli.usage', '--max-generating must be at least 1');
  const waitTimeoutMs = durationFlag(
    flags.waitTimeout,
    '--wait-timeout',
    '90s, 15m or 1h (--no-wait to not wait)',
    1,
  );
  const maxRegenerations = wholeNumber(flags.maxRegenerations, '--max-regenerations');
  const format = flags.json === true ? 'json' : 'human';
  if (flags.plan !== undefined) refuseSelectionWithSavedPlan(flags);
  const savedPlan = flags.plan !== undefined ? await readSavedPlan(flags.plan) : undefined;
  // Read before anything is opened: an unreadable one is a usage error.
  const polling = pollingFromEnv(ctx.io.env);
  const stateWindow = stateWindowFromEnv(ctx.io.env);

  const controller = new AbortController();
  const stopListening = stopOnSignals(
    ctx,
    controller,
    'Interrupted: no new calls; calls in flight finish, then state is saved (again to exit at once).',
  );
  const events = progress(ctx);
  const shown = {
    onEvent: (event: ApplyEvent) => inParts.hold(() => events.onEvent(event)),
    stop: () => {
      inParts.finish();
      events.stop();
    },
  };
  try {
    const outcome = await using(openFromFlags(ctx, paths, flags, controller.signal), (ws) =>
      applyWorkspace(ws, {
        selection: selectionOf(flags),
        ...(savedPlan !== undefined ? { savedPlan } : {}),
        allowDestroy: flags.allowDestroy === true,
        allowAdopt: flags.allowAdopt === true,
        recreate: flags.recreate ?? [],
        forget: flags.forget ?? [],
        autoApprove: flags.autoApprove === true,
        ...(ctx.interactive
          ? { confirm: async (plan, decision) => confirm(renderApprovalQuestion(plan, decision)) }
          : {}),
        onPlan: (plan) => {
          // The plan goes to stdout for a person, to stderr when stdout carries the JSON result.
          if (format === 'json') ctx.log(renderOutput('plan', 'human', plan, ctx.colors));
          else if (!ctx.interactive) inParts.start(planParts(plan, ctx.stdoutColors));
          else ctx.print(renderOutput('plan', 'human', plan, ctx.stdoutColors));
          // Every module the calls use is loaded by now (v8-flags.ts says why that matters).
          if (plan.status === 'changes') tuneForCalls();
        },
        ...(maxRegenerations !== undefined ? { maxRegenerations } : {}),
        concurrency,
        maxGenerating,
        waitTimeoutMs,
        noWait: flags.wait === false,
        signal: controller.signal,
        onEvent: shown.onEvent,
        ...polling,
        ...stateWindow,
      }),
    ).catch(async (error: unknown) => {
      // A state write stopped apply (before, during or after its calls): the result so far (what was made, the calls
      // sent, what was not started, and the error) is still printed and written to --markdown-report, for CI and
      // for the person reading the log; then the error on stderr and exit 1.
      if (error instanceof ApplyStoppedError) {
        shown.stop();
        await showReport(
          ctx,
          format,
          stoppedReport(error),
          flags.markdownReport,
          'apply stopped on the error below',
        ).catch((failure: unknown) => {
          // The state error is what the run ends with: a report that cannot be written is said before it.
          if (!(failure instanceof ScrapeformError)) throw failure;
          ctx.log(ctx.colors.yellow(`warning: ${printable(failure.message)}`));
        });
      }
      throw error;
    });
    shown.stop();
    const report: ApplyReport = {
      result: outcome.result,
      checks: outcome.checks,
      resultDiffs: outcome.resultDiffs,
      // Nothing applied because nothing was planned for the objects held back (lagging parsers) or left out (a
      // partial plan): the report says so rather than that the services matched.
      ...(outcome.result === undefined ? heldBack(outcome.plan) : {}),
    };
    await showReport(
      ctx,
      format,
      report,
      flags.markdownReport,
      'the apply itself is over and state records what it did',
    );
    // Interrupted while its calls ran, during the expect checks after them (the rest were not run), or after reading
    // the services with nothing to do: Ctrl-C and SIGTERM end every command with 130 (README, exit codes).
    if (outcome.result?.interrupted === true || controller.signal.aborted) return 'interrupted';
    if (outcome.result === undefined) return 'ok';
    return outcome.result.results.some((r) => !r.ok) || outcome.checks.some((c) => !c.ok) ? 'error' : 'ok';
  } finally {
    shown.stop();
    stopListening();
  }
}

/**
 * Prints the apply result and writes it to the --markdown-report file, if one was asked for (`done`: what the
 * write failure says of the apply). The result first: the calls are made (and paid for), so a report file that
 * cannot be written must not cost CI the result on stdout (`--json`: what was applied, the ids made, what failed), as
 * plan prints before --out.
 */
async function showReport(
  ctx: CommandContext,
  format: 'json' | 'human',
  report: ApplyReport,
  markdownReport: string | undefined,
  done: string,
): Promise<void> {
  const text = renderOutput('apply', format, report, ctx.stdoutColors);
  if (text !== '') ctx.print(text);
  if (markdownReport === undefined) return;
  await writeOutputFile(
    markdownReport,
    renderOutput('apply', 'markdown', report, ctx.colors),
    'the apply report',
    done,
  );
  ctx.log(`Wrote the apply report to ${markdownReport}`);
}

/**
 * Progress on stderr: on a terminal one live line per object, redrawn in place; in CI or a pipe one plain line per
 * state change, so logs read top to bottom.
 */
function progress(ctx: CommandContext): { onEvent: (event: ApplyEvent) => void; stop: () => void } {
  const { dim, green, red, yellow } = ctx.colors;
  // A generation's status, a failure's error and the ids in a path are the services' own text (an error quotes
  // the answer's body): printable, so none can drive the terminal or forge a line, on a live line or in a log.
  const paint = (status: string): string =>
    status === 'FINISHED' ? green(status) : status === 'FAILED' ? red(status) : yellow(printable(status));
  const failure = (error: string | undefined): string => printable(error ?? '');
  const ci = ctx.io.env.CI !== undefined && ctx.io.env.CI !== '' && ctx.io.env.CI !== 'false';
  if (ctx.io.stderrIsTTY && !ci) {
    const live = new LiveProgress((text) => ctx.io.stderr.write(text), ctx.colors);
    const last = new Map<string, string>();
    const set = (address: string, text: string, ticking = false): void => {
      last.set(address, text);
      live.set(address, text, ticking);
    };
    return {
      onEvent: (event) => {
        if (event.type === 'start') set(event.address, dim(event.action));
        if (event.type === 'call') set(event.address, dim(printable(callText(event))));
        if (event.type === 'generation') {
          set(
            event.address,
            `${paint(event.status)}  version ${event.version}`,
            event.status === 'GENERATING',
          );
        }
        if (event.type === 'done') {
          set(
            event.address,
            event.ok
              ? `${last.get(event.address) ?? ''}  ${green('✓')}`
              : event.stopped === true
                ? yellow(`stopped: ${failure(event.error)}`)
                : red(`failed: ${failure(event.error)}`),
          );
        }
      },
      stop: () => live.stop(),
    };
  }
  return {
    onEvent: (event) => {
      if (event.type === 'call') ctx.log(dim(`${event.address}  ${printable(callText(event))}`));
      if (event.type === 'generation')
        ctx.log(
          `${event.address}  ${paint(event.status)}  version ${event.version}  ${formatDuration(event.elapsedMs)}`,
        );
      if (event.type === 'done' && !event.ok)
        ctx.log(
          `${event.address}  ${event.stopped === true ? yellow('stopped') : red('failed')}: ${failure(event.error)}`,
        );
    },
    stop: () => undefined,
  };
}

/** Polling bounds for apply: SCRAPEFORM_POLL_INTERVAL as the first wait, growing to at most 15 times that. */
function pollingFromEnv(env: Readonly<Record<string, string | undefined>>): {
  pollMinMs?: number;
  pollMaxMs?: number;
} {
  const ms = pollIntervalFromEnv(env);
  return ms === undefined ? {} : { pollMinMs: ms, pollMaxMs: Math.max(ms, Math.min(15_000, ms * 15)) };
}

/** SCRAPEFORM_STATE_WRITE_WINDOW: how long commits wait in memory before being written together (for tests). */
function stateWindowFromEnv(env: Readonly<Record<string, string | undefined>>): {
  stateWriteWindowMs?: number;
} {
  const ms = durationFromEnv(env, 'SCRAPEFORM_STATE_WRITE_WINDOW', 0);
  return ms === undefined ? {} : { stateWriteWindowMs: ms };
}

/**
 * A saved plan is applied exactly as reviewed: the flags that choose what a plan holds cannot change it, and were
 * silently ignored (as `terraform apply -target` with a plan file is an error).
 */
function refuseSelectionWithSavedPlan(flags: ApplyFlags): void {
  const given = (
    [
      ['--target', flags.target],
      ['--exclude', flags.exclude],
      ['--reassert', flags.reassert],
      ['--accept-unknown', flags.acceptUnknown],
    ] as const
  )
    .filter(([, values]) => values !== undefined && values.length > 0)
    .map(([flag]) => flag);
  if (given.length === 0) return;
  throw new ScrapeformError(
    'cli.usage',
    `--plan applies a saved plan exactly as reviewed: ${given.join(', ')} cannot change it`,
    { hint: `plan again with ${given.join(', ')} and --out, then apply that file` },
  );
}

/** The report of an apply a state error stopped: its results so far, no checks (none ran), and the error. */
function stoppedReport(error: ApplyStoppedError): ApplyReport {
  const unrecorded = error.details.unrecorded;
  return {
    result: error.result,
    checks: [],
    resultDiffs: [],
    error: {
      code: error.code,
      message: error.message,
      ...(error.hint !== undefined ? { hint: error.hint } : {}),
      ...(Array.isArray(unrecorded) ? { unrecorded: unrecorded.map(String) } : {}),
    },
  };
}
