import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { applyPlan } from '../apply/apply-plan.js';
import type { ApplyEvent, ApplyResult } from '../apply/apply-plan.js';
import { runExpectChecks } from '../apply/run-expect-checks.js';
import { renderChecks } from '../output/render-checks.js';
import { formatDuration, parseDuration } from '../duration.js';
import { ScrapeformError } from '../errors.js';
import { DEFAULT_CONCURRENCY } from '../model/vocabulary.js';
import type { Plan } from '../plan/model.js';
import { parsePlanFile, refuseStalePlan } from '../plan/plan-file.js';
import { renderPlan, summarisePlan } from '../output/render-plan.js';
import { refreshState } from '../plan/refresh-state.js';
import type { RunStatus } from './exit-codes.js';
import type { CommandContext, RunCommand } from './io.js';
import { checkRegenerations } from './plan.js';
import { LiveProgress } from './live-progress.js';
import { confirm } from './prompt.js';
import {
  addApiFlags,
  addSelectionFlags,
  openFromFlags,
  planWorkspace,
  pollIntervalFromEnv,
  wholeNumber,
} from './shared-flags.js';
import type { ApiFlags, SelectionFlags } from './shared-flags.js';

interface ApplyFlags extends ApiFlags, SelectionFlags {
  plan?: string;
  autoApprove?: boolean;
  allowDestroy?: boolean;
  concurrency: string;
  waitTimeout: string;
  wait: boolean;
  json?: boolean;
  maxRegenerations?: string;
}

export function registerApply(program: Command, run: RunCommand): void {
  const command = program
    .command('apply')
    .description('make the calls of the plan, wait for parser generation, and record state')
    .argument('[paths...]', 'manifest files or folders', [])
    .option(
      '--plan <file>',
      'apply a plan saved with plan --out, exactly (refused when state or live versions moved)',
    )
    .option('--auto-approve', 'do not ask (needed without a terminal or with CI set)')
    .option('--allow-destroy', 'allow deletes, replaces and archives')
    .option('--concurrency <n>', 'objects in flight at once', String(DEFAULT_CONCURRENCY))
    .option('--wait-timeout <duration>', 'how long to wait for a generation', '15m')
    .option('--no-wait', 'return after the calls instead of waiting for generations (a replace still waits)')
    .option('--json', 'print the result as JSON')
    .option('--max-regenerations <n>', 'refuse (exit 3) a plan that regenerates more parsers than this');
  addSelectionFlags(addApiFlags(command)).action(async (paths: string[], flags: ApplyFlags) =>
    run((ctx) => apply(ctx, paths, flags)),
  );
}

async function apply(ctx: CommandContext, paths: string[], flags: ApplyFlags): Promise<RunStatus> {
  const concurrency = wholeNumber(flags.concurrency, '--concurrency') ?? DEFAULT_CONCURRENCY;
  if (concurrency < 1) throw new ScrapeformError('cli.usage', '--concurrency must be at least 1');
  const waitTimeoutMs = parseDuration(flags.waitTimeout);
  if (waitTimeoutMs === undefined)
    throw new ScrapeformError(
      'cli.usage',
      `--wait-timeout: cannot read "${flags.waitTimeout}" as a duration`,
      { hint: 'write it like 90s, 15m or 1h' },
    );
  const maxRegenerations = wholeNumber(flags.maxRegenerations, '--max-regenerations');
  const show = (text: string): void => (flags.json === true ? ctx.log(text) : ctx.print(text));

  const ws = await openFromFlags(ctx, paths, flags);
  const lock = await ws.backend.lock('apply').catch(async (error: unknown) => {
    await ws.close();
    throw error;
  });
  const stale = ws.backend.staleLockBroken;
  if (stale !== undefined) {
    ctx.log(
      ctx.colors.yellow(
        `warning: took over the lock of ${stale.holder} (pid ${stale.pid}, ${stale.operation}, since ${stale.started}): that process no longer runs`,
      ),
    );
  }
  const controller = new AbortController();
  const onSignal = (): void => {
    if (controller.signal.aborted) return;
    controller.abort();
    ctx.log(ctx.colors.yellow('Interrupted: no new calls; calls in flight finish, then state is saved.'));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const fresh = await planWorkspace(
      ws,
      flags.plan !== undefined ? { target: [], exclude: [], reassert: [] } : flags,
    );
    let plan = fresh.plan;
    if (flags.plan !== undefined) {
      plan = await readSavedPlan(flags.plan);
      refuseStalePlan(plan, fresh.plan, fresh.state);
    }
    // Versions a previous run left generating and that have finished since are recorded first (no call needed).
    const refreshed = refreshState(fresh.state, fresh.live);
    const state = refreshed !== undefined ? await ws.backend.write(refreshed) : fresh.state;
    show(renderPlan(plan, flags.json === true ? ctx.colors : ctx.stdoutColors));
    if (plan.status === 'no_changes') {
      if (flags.json === true) ctx.print(JSON.stringify({ status: 'no_changes', results: [] }, null, 2));
      return 'ok';
    }
    checkRegenerations(plan, maxRegenerations);
    const destructive = plan.resource_changes.filter((c) => c.destructive);
    if (destructive.length > 0 && flags.allowDestroy !== true) {
      const names = destructive.map((c) => `${c.address} (${c.action})`).join(', ');
      if (
        !ctx.interactive ||
        !(await confirm(`This plan destroys: ${names}. Archive and delete cannot be undone. Apply it?`))
      ) {
        throw new ScrapeformError(
          'apply.destroy-not-approved',
          `not applied: the plan has destructive changes (${names}); nothing was sent`,
          {
            status: 'input-needed',
            hint: ctx.interactive
              ? 'answer yes, or pass --allow-destroy'
              : 'pass --allow-destroy to allow deletes, replaces and archives',
          },
        );
      }
    } else if (flags.autoApprove !== true) {
      if (!ctx.interactive || !(await confirm(`${summarisePlan(plan)} Apply it?`))) {
        throw new ScrapeformError('apply.not-approved', 'not applied: approval needed; nothing was sent', {
          status: 'input-needed',
          hint: ctx.interactive
            ? 'answer yes to apply'
            : 'without a terminal (or with CI set) pass --auto-approve',
        });
      }
    }
    const shown = progress(ctx);
    const result = await applyPlan({
      plan,
      clients: ws.clients,
      backend: ws.backend,
      state,
      concurrency,
      waitTimeoutMs,
      noWait: flags.wait === false,
      signal: controller.signal,
      onEvent: shown.onEvent,
      ...pollingFromEnv(ctx.io.env),
    }).finally(() => shown.stop());
    // After apply, the expect blocks of the parsers just applied are checked; a failure makes the exit code 1
    // but rolls nothing back.
    const applied = new Set(result.results.filter((r) => r.ok).map((r) => r.address));
    const toCheck = ws.manifests.parsers.filter((p) => applied.has(p.address) && p.expect.length > 0);
    const checks =
      result.interrupted || flags.wait === false
        ? []
        : await runExpectChecks(ws.clients, toCheck, result.state);
    if (flags.json === true) ctx.print(JSON.stringify({ ...applyJson(result), checks }, null, 2));
    else {
      ctx.print(renderApplyResult(result, ctx));
      if (checks.length > 0) ctx.print(`\nExpect checks:\n${renderChecks(checks, ctx.stdoutColors)}`);
    }
    if (result.interrupted) return 'interrupted';
    return result.results.some((r) => !r.ok) || checks.some((c) => !c.ok) ? 'error' : 'ok';
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await lock.release();
    await ws.close();
  }
}

async function readSavedPlan(file: string): Promise<Plan> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ScrapeformError(
      'apply.plan-unreadable',
      `cannot read the saved plan ${file}: ${(error as Error).message}`,
    );
  }
  return parsePlanFile(text, file);
}

/**
 * Progress on stderr: on a terminal one live line per object, redrawn in place; in CI or a pipe one plain line per
 * state change, so logs read top to bottom.
 */
function progress(ctx: CommandContext): { onEvent: (event: ApplyEvent) => void; stop: () => void } {
  const { dim, green, red, yellow } = ctx.colors;
  const paint = (status: string): string =>
    status === 'FINISHED' ? green(status) : status === 'FAILED' ? red(status) : yellow(status);
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
        if (event.type === 'call')
          set(event.address, dim(`${event.method} ${event.path} -> ${event.status}`));
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
              : red(`failed: ${event.error ?? ''}`),
          );
        }
      },
      stop: () => live.stop(),
    };
  }
  return {
    onEvent: (event) => {
      if (event.type === 'call')
        ctx.log(dim(`${event.address}  ${event.method} ${event.path} -> ${event.status}`));
      if (event.type === 'generation')
        ctx.log(
          `${event.address}  ${paint(event.status)}  version ${event.version}  ${formatDuration(event.elapsedMs)}`,
        );
      if (event.type === 'done' && !event.ok)
        ctx.log(`${event.address}  ${red('failed')}: ${event.error ?? ''}`);
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

function applyJson(result: ApplyResult): Record<string, unknown> {
  const failed = result.results.some((r) => !r.ok);
  return {
    status: result.interrupted ? 'interrupted' : failed ? 'failed' : 'applied',
    results: result.results,
  };
}

function renderApplyResult(result: ApplyResult, ctx: CommandContext): string {
  const { green, red, bold } = ctx.stdoutColors;
  const ok = result.results.filter((r) => r.ok);
  const failed = result.results.filter((r) => !r.ok);
  const lines = [
    '',
    bold(
      `Apply ${failed.length === 0 ? 'complete' : 'finished with failures'}: ${ok.length} applied, ${failed.length} failed.`,
    ),
  ];
  for (const r of ok) {
    const where = r.id !== null ? ` ${r.id}${r.version !== undefined ? ` version ${r.version}` : ''}` : '';
    lines.push(`  ${green('✓')} ${r.address} ${r.action}${where}`);
  }
  for (const r of failed) {
    lines.push(`  ${red('✗')} ${r.address} ${r.action}: ${r.error?.message ?? 'failed'}`);
    if (r.error?.hint !== undefined) lines.push(`      hint: ${r.error.hint}`);
  }
  if (result.interrupted)
    lines.push('Interrupted: state holds everything that was done; plan again to see what is left.');
  return lines.join('\n');
}
