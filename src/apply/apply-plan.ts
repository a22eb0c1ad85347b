import { ApiError, refusesPayment } from '../api/api-error.js';
import { ScrapeformError } from '../errors.js';
import { DEFAULT_CONCURRENCY } from '../model/vocabulary.js';
import { postsNewObject } from '../plan/model.js';
import type { ResourceChange } from '../plan/model.js';
import { indexLive } from '../plan/plan-context.js';
import { Permits } from '../worker-pool.js';
import type { Handler, HandlerContext } from './apply-context.js';
import { recordIntentsAhead, settleIntents } from './create-intent.js';
import { recordPatchesAhead, settlePatches } from './patch-intent.js';
import { PARSER_HANDLERS } from './parser-handlers.js';
import { PROJECT_HANDLERS } from './project-handlers.js';
import { DEFAULT_MAX_GENERATING } from './apply-model.js';
import type { ApplyOptions, ApplyResult, ChangeResult } from './apply-model.js';
import { HookRunner } from './regeneration-hooks.js';
import { StateStore } from './state-store.js';
import {
  notStartedForState,
  notStartedResult,
  stoppedWith,
  withUnrecordedCalls,
} from './unrecorded-calls.js';
import { GenerationPoller, realAlarm, sleepAlarm } from './generation-poller.js';
import type { Alarm } from './generation-poller.js';
import { DEFAULT_POLL_MIN_MS } from './wait-for-generation.js';

/**
 * Executes a plan: one small handler per action, independent objects concurrently. At most `concurrency` changes
 * make calls at once and at most `maxGenerating` changes are between the call that starts a generation and its
 * outcome; a change waiting for its generation holds only the latter. State is written in coalesced writes, and
 * in full before this returns, even on an error.
 */
export async function applyPlan(options: ApplyOptions): Promise<ApplyResult> {
  const store = new StateStore(
    options.backend,
    options.state,
    options.stateWriteWindowMs,
    options.stateWriteLateMs,
  );
  const results: ChangeResult[] = [];
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  // An injected sleep (tests) drives the poller too; it cannot be called off, which only costs a stale wake-up of
  // at most one poll gap (15 s). A wait's cut chooses its own timer (waitCutoff).
  const alarm: Alarm = options.sleep !== undefined ? sleepAlarm(sleep) : realAlarm;
  const calls = new Permits(Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY));
  const poller = new GenerationPoller(
    // A poll is a call like any other (--concurrency), taken ahead of changes not yet started. Its signal aborts on
    // Ctrl-C too (the poller's own).
    (signal) => calls.with(() => options.clients.parsers.list(signal), true),
    now,
    alarm,
    options.pollMinMs ?? DEFAULT_POLL_MIN_MS,
    options.signal,
  );
  const generations = new Permits(Math.max(1, options.maxGenerating ?? DEFAULT_MAX_GENERATING));
  // A function, read when asked: the signal changes while apply awaits.
  const interrupted = (): boolean => options.signal?.aborted === true;
  // The first paid call the account refused (402, or the 403 ScraperAPI answers for exhausted credits): no paid
  // call starts after it, since each would be refused the same way or, on a service that counts differently,
  // spend what the account was about to run out of.
  let refusal: { address: string; error: ApiError } | undefined;
  const hooks =
    options.hooks !== undefined
      ? new HookRunner(options.hooks, options.plan.resource_changes, generations.limit, calls, interrupted)
      : undefined;
  const ctx: HandlerContext = {
    clients: options.clients,
    store,
    options,
    emit: options.onEvent ?? (() => undefined),
    sleep,
    now,
    calls,
    poller,
    ...(options.live !== undefined ? { planned: indexLive(options.live) } : {}),
    ...(hooks !== undefined ? { waiting: (change: ResourceChange) => hooks.settled(change) } : {}),
  };
  // Ctrl-C: what is done so far is written at once, not at the end of the window.
  const onAbort = (): void => void store.durable().catch(() => undefined);
  options.signal?.addEventListener('abort', onAbort, { once: true });

  const run = async (change: ResourceChange): Promise<void> => {
    const result: ChangeResult = {
      address: change.address,
      action: change.action,
      ok: false,
      calls: [],
      id: change.id,
    };
    results.push(result);
    if (change.regenerates) {
      await generations.take();
      hooks?.grant(change);
    }
    await ctx.calls.take();
    try {
      // A regenerating change first reads what its report compares (hooks never throw). That may wait for a read
      // under way, so Ctrl-C is checked after it: a change interrupted by then has not started.
      if (change.regenerates && !interrupted() && store.failed === undefined)
        await hooks?.beforeFirstCall(change);
      if (interrupted()) {
        result.skipped = true;
        result.error = { code: 'apply.interrupted', message: 'not started: interrupted' };
        return;
      }
      // A state write failed: every change not started yet stays so, and says why (not a failed call).
      if (store.failed !== undefined) {
        result.skipped = true;
        result.error = notStartedForState(store.failed);
        ctx.emit({
          type: 'done',
          address: change.address,
          ok: false,
          error: result.error.message,
          stopped: true,
        });
        return;
      }
      if (refusal !== undefined && spends(change)) {
        result.error = refusedSpending(refusal);
        ctx.emit({ type: 'done', address: change.address, ok: false, error: result.error.message });
        return;
      }
      ctx.emit({ type: 'start', address: change.address, action: change.action });
      try {
        await handlerFor(change)(change, result, ctx);
        result.ok = true;
        ctx.emit({ type: 'done', address: change.address, ok: true });
      } catch (error) {
        result.error = describeError(error);
        if (spends(change) && refusesPaidCall(error)) refusal ??= { address: change.address, error };
        ctx.emit({
          type: 'done',
          address: change.address,
          ok: false,
          error: result.error.message,
          ...(result.error.code === 'apply.interrupted' ? { stopped: true } : {}),
        });
      }
    } finally {
      ctx.calls.give();
      if (change.regenerates) {
        hooks?.settled(change);
        generations.give();
      }
    }
    if (change.regenerates && result.ok && result.status === 'FINISHED' && !interrupted())
      await hooks?.afterFinished(change, result);
  };
  try {
    // One write before the first call carries every create's intent and every update's first PATCH intent,
    // instead of one write per call.
    // Nothing is written ahead once Ctrl-C came: no change starts, and a state database gone silent held the run
    // for a write of intents it would only take back.
    if (!interrupted()) {
      ctx.patchesAhead = await recordPatchesAhead(ctx, options.plan.resource_changes);
      ctx.intentsAhead = await recordIntentsAhead(ctx, options.plan.resource_changes);
      await store.durable();
    }
    // Every change is queued at once, in plan order: the permits decide when each starts, so a change that
    // needs no generation is not held up behind generations.
    await Promise.all(options.plan.resource_changes.map(run));
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    poller.close();
    await settleIntents(ctx, ctx.intentsAhead ?? new Map()).catch(() => undefined);
    await settlePatches(ctx, ctx.patchesAhead ?? new Set()).catch(() => undefined);
    // A write that failed stopped the run: the error names what was sent and is not recorded, and carries the
    // result so far, with every change never reached (the write before the first call failed) as not started.
    await store.flushed().catch(async (error: unknown) => {
      // The changes never reached first: the error names them as not started (all of them when the write before
      // the first call failed).
      const reached = new Set(results.map((result) => result.address));
      for (const change of options.plan.resource_changes.filter((c) => !reached.has(c.address)))
        results.push(notStartedResult(change, error));
      const stopped = await withUnrecordedCalls(error, results, store.current, options.backend);
      throw stoppedWith(stopped, outcome());
    });
  }
  return outcome();

  /** The results in plan order, and what state holds now. */
  function outcome(): ApplyResult {
    const order = new Map(options.plan.resource_changes.map((c, i) => [c.address, i]));
    results.sort((a, b) => (order.get(a.address) ?? 0) - (order.get(b.address) ?? 0));
    return {
      results,
      state: store.current,
      interrupted: options.signal?.aborted === true,
      ...(refusal !== undefined
        ? { paymentRefused: { address: refusal.address, status: refusal.error.status } }
        : {}),
    };
  }
}

/** Every kind and action has its handler: a missing one is a type error here. */
const HANDLERS = { Parser: PARSER_HANDLERS, Project: PROJECT_HANDLERS } satisfies {
  [K in ResourceChange['kind']]: {
    [A in Extract<ResourceChange, { kind: K }>['action']]: Handler<
      Extract<ResourceChange, { kind: K; action: A }>
    >;
  };
};

/** The handler of a change's kind and action. */
export function handlerFor(change: ResourceChange): Handler<ResourceChange> {
  // The table's type ties each key to its own variant; TypeScript cannot carry that through an index by a union
  // (a correlated union), so the lookup is widened here, once.
  const byAction: Record<string, Handler<never>> = HANDLERS[change.kind];
  const handler = byAction[change.action];
  if (handler === undefined) throw new Error(`no handler for ${change.kind} ${change.action}`);
  return handler as Handler<ResourceChange>;
}

/** Whether a change makes a paid call: a parser create or regeneration, or a project create (its runs). */
function spends(change: ResourceChange): boolean {
  return change.regenerates || (change.kind === 'Project' && postsNewObject(change));
}

/** A 402, or 403, to the call that pays (a POST or PATCH), not to a read around it (a poll, a list). */
function refusesPaidCall(error: unknown): error is ApiError {
  return refusesPayment(error) && (error.method === 'POST' || error.method === 'PATCH');
}

/** Why a paid change was not started: an earlier one was refused for credits or access. */
function refusedSpending(refusal: { address: string; error: ApiError }): ChangeResult['error'] & object {
  return {
    code: 'apply.credits-refused',
    message: `not sent: the service refused the paid call of ${refusal.address} (HTTP ${refusal.error.status}), so no further paid call (a parser create or regeneration, a project create) was made`,
    hint: 'check the credits and plan of the account in the ScraperAPI dashboard, then apply again: state holds what was done',
  };
}

function describeError(error: unknown): { code: string; message: string; hint?: string } {
  if (error instanceof ApiError || error instanceof ScrapeformError) {
    return {
      code: error.code,
      message: error.message,
      ...(error.hint !== undefined ? { hint: error.hint } : {}),
    };
  }
  return { code: 'internal', message: error instanceof Error ? error.message : String(error) };
}
