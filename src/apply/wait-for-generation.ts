import type { LiveParserSummary } from '../api/live.js';
import { parserStatusKind } from '../api/parser-status.js';
import { ScrapeformError } from '../errors.js';
import type { ResourceChange } from '../plan/model.js';
import { failureOf } from '../state/model.js';
import type { ParserDefinition, ParserState } from '../state/model.js';
import { abortIfInterrupted } from './apply-context.js';
import type { HandlerContext } from './apply-context.js';
import type { ChangeResult } from './apply-plan.js';

/** Common causes of a FAILED generation (seed 1, States and transitions). */
export const FAILED_GENERATION_CAUSES =
  'example URLs inaccessible or blocked; example URLs of different page types; a domain that needs JavaScript rendering without render set in scraper_params';

/** The first look at a new generation, and the shortest time between two looks (`pollMinMs`). */
export const DEFAULT_POLL_MIN_MS = 250;
/** The longest time between two looks at one generation (`pollMaxMs`). */
export const DEFAULT_POLL_MAX_MS = 15_000;
/**
 * The next look comes after this share of the time already waited: a finish is seen at most ~5% late. Looks are
 * cheap because one list call serves every waiting parser (GenerationPoller), so they can be this frequent.
 */
const POLL_GROWTH = 0.05;
/**
 * A predicted look (GenerationPoller) comes this much after the shortest generation seen finishing. The shortest is
 * the least of many noisy measures (both ends are taken by this process, some ms after the service's own), and
 * generations of one length still end some ms apart: the emulator's 5 s ones took up to 70 ms more under load
 * (bench/scale.js, 200 updates). A look that comes early misses the finish and waits a whole gap for the next one;
 * with 20 ms, about a third of the waves after the first were seen that late there.
 */
export const PREDICTION_MARGIN_MS = 50;

/** The version of a parser to wait for, and the definition state records once it is FINISHED. */
export interface Generation {
  id: string;
  version: number;
  definition: ParserDefinition;
}

/** What a look at one version found: its status and error, or nothing when the list does not show it. */
interface Sighting {
  status: string;
  error: string | null;
}

/**
 * Polls the version until it leaves GENERATING (the first look after `pollMinMs`, then every twentieth of the time
 * already waited, up to `pollMaxMs`, and once generations of this apply have finished, when it has waited as long as
 * the shortest of them: GenerationPoller), records the outcome in state, and throws for FAILED (with the service's
 * error and its usual causes) unless `throwOnFailure` is false. The last look is at the deadline, never before it.
 *
 * While it waits it holds no call slot (`--concurrency` counts calls in flight, not generations): its looks take
 * one each, and it takes one again before it returns to its handler, ahead of changes not yet started.
 */
export async function waitForGeneration(
  change: ResourceChange,
  result: ChangeResult,
  ctx: HandlerContext,
  generation: Generation,
  throwOnFailure = true,
): Promise<string> {
  const { id, version, definition } = generation;
  const min = ctx.options.pollMinMs ?? DEFAULT_POLL_MIN_MS;
  const max = Math.max(min, ctx.options.pollMaxMs ?? DEFAULT_POLL_MAX_MS);
  const started = ctx.now();
  const deadline = started + (ctx.options.waitTimeoutMs ?? 15 * 60_000);
  let delay = min;
  let last = '';
  let seen: Sighting;
  let warned = false;
  ctx.calls.give();
  ctx.waiting?.(change);
  try {
    // An update's or a replace's version is recorded as pending on disk before the long wait (a replace deletes
    // the old parser after it). A create needs no write of its own here: its intent was on disk before its POST,
    // so a run killed now finds it by name, and the record is written in the next coalesced write (50 ms); the
    // write here made every create of a wave of short generations queue behind the others' (bench/scale.js).
    if (change.action !== 'create') await ctx.store.durable();
    for (;;) {
      // Ctrl-C stops the wait; state already records the version as pending.
      abortIfInterrupted(ctx);
      const due = Math.min(ctx.now() + delay, deadline);
      const listed = await ctx.poller.look(id, version, due, started);
      abortIfInterrupted(ctx);
      seen = await sightingOf(ctx, id, version, listed);
      if (seen.status === 'FINISHED') ctx.poller.finished(ctx.now() - started);
      if (seen.status !== last) {
        last = seen.status;
        ctx.emit({
          type: 'generation',
          address: change.address,
          id,
          version,
          status: seen.status,
          elapsedMs: ctx.now() - started,
        });
      }
      // Only FINISHED and FAILED end the wait; any other status is the service still at work (issue 13).
      if (parserStatusKind(seen.status) !== 'working') break;
      if (seen.status !== 'GENERATING' && !warned) {
        warned = true;
        warnUnknownStatus(change, result, ctx, version, seen.status);
      }
      if (ctx.now() >= deadline) {
        throw new ScrapeformError(
          'apply.wait-timeout',
          `${change.address}: version ${version} still ${seen.status} after ${Math.round((ctx.now() - started) / 1000)}s`,
          {
            hint: 'the calls were made and recorded; run plan later to see it finish, or raise --wait-timeout',
          },
        );
      }
      delay = Math.min(max, Math.max(min, Math.round((ctx.now() - started) * POLL_GROWTH)));
    }
  } finally {
    await ctx.calls.take(true);
  }
  result.version = version;
  result.status = seen.status;
  await ctx.store.commit((state) => {
    const current = state.resources[change.address];
    if (current?.kind !== 'Parser') return;
    if (seen.status === 'FINISHED') {
      state.resources[change.address] = {
        ...withoutPending(current),
        version,
        definition,
        descriptionsKnown: true,
      };
      delete (state.resources[change.address] as ParserState).failed;
    } else {
      state.resources[change.address] = {
        ...withoutPending(current),
        failed: failureOf(current.failed, version, seen.error ?? seen.status, definition),
      };
    }
  });
  if (seen.status !== 'FINISHED') {
    result.error = {
      code: 'apply.generation-failed',
      message: `version ${version} FAILED: ${seen.error ?? 'no error given'}`,
    };
    if (throwOnFailure) {
      throw new ScrapeformError(
        'apply.generation-failed',
        `${change.address}: version ${version} FAILED: ${seen.error ?? 'no error given'}`,
        {
          hint: `common causes: ${FAILED_GENERATION_CAUSES}`,
        },
      );
    }
  }
  return seen.status;
}

/**
 * The version's status from the list when the list shows that very version; otherwise (a list that lags behind a
 * create or a PATCH, a newer version made by someone else, a single waiter) from its details. A FAILED version the
 * list gives no error for is read in full too, for its error.
 */
async function sightingOf(
  ctx: HandlerContext,
  id: string,
  version: number,
  listed: LiveParserSummary | undefined,
): Promise<Sighting> {
  if (listed !== undefined && listed.version === version) {
    const error = listed.error ?? null;
    if (!(listed.status === 'FAILED' && error === null)) return { status: listed.status, error };
  }
  const details = await ctx.calls.with(() => ctx.clients.parsers.get(id, version, ctx.options.signal), true);
  return { status: details.status, error: details.error };
}

/** Warns once per wait about a status scrapeform does not know: in the result, and as an event while it runs. */
function warnUnknownStatus(
  change: ResourceChange,
  result: ChangeResult,
  ctx: HandlerContext,
  version: number,
  status: string,
): void {
  const message = `version ${version} reports status "${status}", which scrapeform does not know; read as still working, waiting for FINISHED or FAILED`;
  (result.warnings ??= []).push(message);
  ctx.emit({ type: 'warning', address: change.address, message });
}

export function withoutPending(state: ParserState): ParserState {
  const { pending: _pending, ...rest } = state;
  return rest;
}

/** A sleep that can be called off: a timer left behind would keep the process alive. */
export type Alarm = (ms: number) => { done: Promise<void>; cancel: () => void };

/** The alarm of real time. */
export const realAlarm: Alarm = (ms) => {
  let timer: NodeJS.Timeout | undefined;
  const done = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return { done, cancel: () => clearTimeout(timer) };
};

interface Waiter {
  id: string;
  version: number;
  /** When it needs an answer, even "still generating". */
  due: number;
  /** When it asked: a list started before that is older than what it knows. */
  since: number;
  /** When its generation started (as its waitForGeneration measured it): where its predicted look counts from. */
  started: number;
  resolve: (listed: LiveParserSummary | undefined) => void;
}

/**
 * Serves every waiting generation with one list call per interval: the list carries each parser's latest version
 * and status. A look resolves at the first list read after it was asked for that shows the version done, or at the
 * first one at or after its due time (whatever it shows). Lists are at least `minGapMs` apart. With a single
 * waiter no list is read: its details are (a list is the size of the account).
 *
 * Predicted looks: once this apply has seen a generation finish, a waiter is also looked at when it has waited as
 * long as the shortest generation seen finishing (plus PREDICTION_MARGIN_MS). The cadence alone sees a finish up to
 * a twentieth of the time waited late: on the real service, where a generation takes about a minute, up to 3 s a
 * wave, and looking more often costs a call per look; the generations of one apply take about as long as each
 * other, so one look at the predicted time is likely to be the one that sees the finish. It costs at most one list
 * per group of generations started together: the predictions within half a gap of the first are served by one
 * list, a look due after the first expected finish serves as it, and a look due less than a gap before it waits
 * for it rather than push it a gap later. Nothing changes before a first finish.
 */
export class GenerationPoller {
  private readonly waiters = new Set<Waiter>();
  private lastListAt = Number.NEGATIVE_INFINITY;
  /** The time the last look was read for: a waiter expected to finish by then has had its predicted look. */
  private lookedUntil = Number.NEGATIVE_INFINITY;
  /** The shortest time from the start of a generation of this apply to seeing it FINISHED. */
  private shortestMs = Number.POSITIVE_INFINITY;
  private listing: Promise<void> | undefined;
  private alarm: { at: number; cancel: () => void } | undefined;
  private closed = false;

  constructor(
    private readonly list: () => Promise<LiveParserSummary[]>,
    private readonly now: () => number,
    private readonly setAlarm: Alarm,
    private readonly minGapMs: number,
    signal?: AbortSignal,
  ) {
    // Ctrl-C answers every look at once, so waiters stop without waiting for their next poll.
    signal?.addEventListener('abort', () => this.answerAll(), { once: true });
  }

  /**
   * What the list shows for `id` once a list read after now and at or after `due` (or earlier: done, or at its
   * predicted time). `started` is when the generation started.
   */
  look(id: string, version: number, due: number, started: number): Promise<LiveParserSummary | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.waiters.add({ id, version, due, since: this.now(), started, resolve });
      this.schedule();
    });
  }

  /** A generation of this apply was seen FINISHED `waitedMs` after it started: later waiters look then too. */
  finished(waitedMs: number): void {
    if (waitedMs >= this.shortestMs) return;
    this.shortestMs = waitedMs;
    this.schedule();
  }

  /** Calls off the alarm and answers every look (apply is over). */
  close(): void {
    this.closed = true;
    this.alarm?.cancel();
    this.alarm = undefined;
    this.answerAll();
  }

  private answerAll(): void {
    for (const waiter of this.waiters) waiter.resolve(undefined);
    this.waiters.clear();
  }

  /**
   * When the waiter's generation is expected to finish (its start plus the shortest generation seen finishing);
   * undefined when none has finished yet, or when a look at or after that time has been made for it.
   */
  private expectedAt(waiter: Waiter): number | undefined {
    if (this.shortestMs === Number.POSITIVE_INFINITY) return undefined;
    const at = waiter.started + this.shortestMs;
    return at > Math.max(waiter.since, this.lookedUntil) ? at : undefined;
  }

  /** When the next look is for: the first due one, or the predicted one when that one would push it a gap later. */
  private nextLookAt(): number {
    let due = Number.POSITIVE_INFINITY;
    let first = Number.POSITIVE_INFINITY;
    for (const waiter of this.waiters) {
      due = Math.min(due, waiter.due);
      first = Math.min(first, this.expectedAt(waiter) ?? Number.POSITIVE_INFINITY);
    }
    if (first === Number.POSITIVE_INFINITY) return due;
    // Generations started together are expected a few ms apart: one list after the last of them serves them all.
    let last = first;
    for (const waiter of this.waiters) {
      const at = this.expectedAt(waiter);
      if (at !== undefined && at <= first + this.minGapMs / 2) last = Math.max(last, at);
    }
    const predicted = last + PREDICTION_MARGIN_MS;
    // A look due after the first expected finish serves as the predicted look. One due before it comes first when
    // the predicted one can still follow a gap later; otherwise it waits for it (less than a gap), as a list just
    // before would see them all still generating and push the predicted look a gap later.
    if (due >= first) return Math.min(due, predicted);
    return due + this.minGapMs <= predicted ? due : predicted;
  }

  private schedule(): void {
    if (this.listing !== undefined || this.waiters.size === 0 || this.closed) return;
    const at = Math.max(this.nextLookAt(), this.lastListAt + this.minGapMs);
    if (this.alarm?.at === at) return;
    this.alarm?.cancel();
    const alarm = this.setAlarm(Math.max(0, at - this.now()));
    const entry = { at, cancel: alarm.cancel };
    this.alarm = entry;
    void alarm.done.then(() => {
      if (this.alarm !== entry) return;
      this.alarm = undefined;
      this.listing = this.poll(at).finally(() => {
        this.listing = undefined;
        this.schedule();
      });
    });
  }

  /** One look, set for `scheduledAt` (a timer may fire a ms before it). */
  private async poll(scheduledAt: number): Promise<void> {
    const at = this.now();
    // Those due now and those due within half a gap are answered by this one read, not one just after it.
    const dueBy = at + this.minGapMs / 2;
    const lookedAt = Math.max(at, scheduledAt);
    if (this.waiters.size === 1) {
      for (const waiter of this.waiters) {
        const expected = this.expectedAt(waiter);
        if (waiter.due > dueBy && (expected === undefined || expected > lookedAt)) return;
        this.lookedUntil = lookedAt;
        this.waiters.delete(waiter);
        waiter.resolve(undefined);
      }
      return;
    }
    this.lastListAt = at;
    this.lookedUntil = lookedAt;
    let byId: Map<string, LiveParserSummary>;
    try {
      byId = new Map((await this.list()).map((p) => [p.id, p]));
    } catch {
      // A failed list (after the transport's retries): those due read their details, which report the error.
      byId = new Map();
    }
    for (const waiter of this.waiters) {
      if (waiter.since > at) continue;
      const listed = byId.get(waiter.id);
      const done =
        listed !== undefined && listed.version === waiter.version && listed.status !== 'GENERATING';
      if (!done && waiter.due > dueBy) continue;
      this.waiters.delete(waiter);
      waiter.resolve(listed);
    }
  }
}
