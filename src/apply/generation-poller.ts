import type { LiveParserSummary } from '../api/live.js';

/**
 * Near a predicted finish (GenerationPoller) the looks come this far apart (or `pollMinMs` apart when that is
 * shorter), or a hundredth of the shortest generation seen when that is longer: 600 ms for generations of a minute,
 * where the cadence's looks are 3 s apart by then, so that a window of fine looks costs a few lists, not tens. The
 * prediction is only as good as the looks that made it: generations of one length still end tens of ms apart (the
 * emulator's 5 s ones took up to 70 ms more under load, bench/scale.js, 200 updates), and the shortest seen is a
 * gap too long when a wave ended between two looks of the cadence. A single predicted look then either came late
 * or, when early, was followed a whole gap (250 ms) later; looks this close to each other see the finish at most
 * this late, whichever way the prediction errs.
 */
export const FINE_LOOK_MIN_MS = 50;
const FINE_LOOK_SHARE = 0.01;
/** How many fine looks at most come before the shortest generation seen, when no look bounds it closer. */
const FINE_LOOKS_BEFORE = 5;
/**
 * Fine looks go on this many times past the shortest generation seen, for waiters still waiting: most end a little
 * after the shortest, as each wait is measured from the answer to the call that started it, and those answers came
 * up to 100 ms late on a loaded machine (bench/scale.js). A group all seen done has no looks left.
 */
const FINE_LOOKS_AFTER = 4;
/** Running sightings kept to bound the shortest generation from below (the longest ones are what count). */
const RUNNING_KEPT = 4096;

/** A sleep that can be called off: a timer left behind would keep the process alive. */
export type Alarm = (ms: number) => { done: Promise<void>; cancel: () => void };

/** The alarm of real time. */
export const realAlarm: Alarm = (ms) => {
  let timer: NodeJS.Timeout | undefined;
  const done = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return { done, cancel: () => clearTimeout(timer) };
};

/** The alarm of an injected sleep (tests): it cannot be called off, so its late wake-up must change nothing. */
export function sleepAlarm(sleep: (ms: number) => Promise<void>): Alarm {
  return (ms) => ({ done: sleep(ms), cancel: () => undefined });
}

interface Waiter {
  id: string;
  version: number;
  /** When it needs an answer, even "still generating". */
  due: number;
  /** When it asked: a list started before that is older than what it knows. */
  since: number;
  /** When its generation started (as its waitForGeneration measured it): where its fine looks count from. */
  started: number;
  resolve: (listed: LiveParserSummary | undefined) => void;
}

/**
 * Serves every waiting generation with one list call per interval: the list carries each parser's latest version
 * and status. A look resolves at the first list read after it was asked for that shows the version done, or at the
 * first one at or after its due time (whatever it shows). Lists at a waiter's due time are at least `minGapMs`
 * apart. With a single waiter no list is read: its details are (a list is the size of the account).
 *
 * Fine looks near a predicted finish: once this apply has seen a generation finish, the generations of one apply
 * taking about as long as each other, the time a generation takes is bounded from above by the shortest wait that
 * saw one FINISHED and from below by the longest wait that still saw one GENERATING (below that shortest). Around
 * the finish that predicts for each waiter (from its start plus that lower bound to a few fine gaps past its start
 * plus the shortest) it is looked at every fine gap (FINE_LOOK_MIN_MS, or a hundredth of the shortest), not only
 * at the cadence's gaps: a finish is seen that little late, and a look that comes too early costs a fine gap, not
 * a whole one. Each such look narrows the bounds, so later waves need fewer of them, and each also serves the
 * cadence's looks due within half a gap: in bench/scale.js's 200 updates (waves of 64) a run reads one or two more
 * lists a wave than with a single predicted look. Two lists are never closer than a fine gap (or `pollMinMs` when
 * that is shorter). The cadence alone sees a finish up to a twentieth of the time waited late: on the real service,
 * where a generation takes about a minute, up to 3 s a wave. Nothing changes before a first finish: nothing
 * predicts it.
 */
export class GenerationPoller {
  private readonly waiters = new Set<Waiter>();
  private lastListAt = Number.NEGATIVE_INFINITY;
  /** The time the last look was read for: the fine looks of a waiter go on from there. */
  private lookedUntil = Number.NEGATIVE_INFINITY;
  /** The shortest time from the start of a generation of this apply to seeing it FINISHED. */
  private shortestMs = Number.POSITIVE_INFINITY;
  /** Waits at which a generation was seen still GENERATING, those shorter than `shortestMs` (lower bounds). */
  private running: number[] = [];
  /** The longest of `running`: the time a generation takes is longer than this (when all take about as long). */
  private longestRunningMs = Number.NEGATIVE_INFINITY;
  private listing: Promise<void> | undefined;
  /** Calls off the list under way: nobody waits for it any more, or Ctrl-C. */
  private listCall: AbortController | undefined;
  private alarm: { at: number; cancel: () => void } | undefined;
  private closed = false;

  constructor(
    private readonly list: (signal: AbortSignal) => Promise<LiveParserSummary[]>,
    private readonly now: () => number,
    private readonly setAlarm: Alarm,
    private readonly minGapMs: number,
    private readonly interrupt?: AbortSignal,
  ) {
    // Ctrl-C answers every look at once, so waiters stop without waiting for their next poll. Taken off at close:
    // watch passes one signal to apply after apply, and a listener left on it would keep each apply's poller.
    interrupt?.addEventListener('abort', this.onInterrupt, { once: true });
  }

  private readonly onInterrupt = (): void => {
    this.answerAll();
    this.listCall?.abort(this.interrupt?.reason);
  };

  /**
   * What the list shows for `id` once a list read after now and at or after `due` (or earlier: done, or at a fine
   * look near its predicted finish). `started` is when the generation started. When `signal` aborts (the wait
   * gave up: LookCutoff) the look is answered `undefined` at once and the others go on; a list that nobody waits
   * for any more is called off.
   */
  look(
    id: string,
    version: number,
    due: number,
    started: number,
    signal?: AbortSignal,
  ): Promise<LiveParserSummary | undefined> {
    if (this.closed || signal?.aborted === true) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter: Waiter = { id, version, due, since: this.now(), started, resolve };
      if (signal !== undefined) {
        const leave = (): void => this.leave(waiter);
        signal.addEventListener('abort', leave, { once: true });
        waiter.resolve = (listed) => {
          signal.removeEventListener('abort', leave);
          resolve(listed);
        };
      }
      this.waiters.add(waiter);
      this.schedule();
    });
  }

  /** A generation of this apply was seen FINISHED `waitedMs` after it started: later waiters look then too. */
  finished(waitedMs: number): void {
    if (waitedMs >= this.shortestMs) return;
    this.shortestMs = waitedMs;
    // Only waits below the shortest bound it from below; a longer one was a slower generation.
    if (this.longestRunningMs >= waitedMs) {
      this.running = this.running.filter((ms) => ms < waitedMs);
      this.longestRunningMs = Math.max(Number.NEGATIVE_INFINITY, ...this.running);
    }
    this.schedule();
  }

  /** Calls off the alarm and any list under way, and answers every look (apply is over). */
  close(): void {
    this.interrupt?.removeEventListener('abort', this.onInterrupt);
    this.closed = true;
    this.stopLooking();
    this.answerAll();
  }

  /**
   * A waiter that gave up: answered at once. The others keep their looks, and the list under way goes on for
   * them; with none left, no alarm or list is kept for nobody (each would keep the process alive, a list for up to
   * four tries of `--timeout`).
   */
  private leave(waiter: Waiter): void {
    if (!this.waiters.delete(waiter)) return;
    waiter.resolve(undefined);
    if (this.waiters.size > 0) this.schedule();
    else this.stopLooking();
  }

  /** No look is left to make: the alarm and the list under way go (either would keep the process alive). */
  private stopLooking(): void {
    this.alarm?.cancel();
    this.alarm = undefined;
    this.listCall?.abort();
  }

  private answerAll(): void {
    for (const waiter of this.waiters) waiter.resolve(undefined);
    this.waiters.clear();
  }

  /** A generation was seen GENERATING `waitedMs` after it started. */
  private stillRunning(waitedMs: number): void {
    if (waitedMs >= this.shortestMs || waitedMs <= this.longestRunningMs - this.windowBeforeMs()) return;
    this.running.push(waitedMs);
    this.longestRunningMs = Math.max(this.longestRunningMs, waitedMs);
    if (this.running.length > RUNNING_KEPT) {
      // The longest are those that bound it: the shorter half goes.
      this.running.sort((a, b) => b - a);
      this.running.length = RUNNING_KEPT / 2;
    }
  }

  /** The gap between fine looks: FINE_LOOK_MIN_MS (or the cadence's own, when shorter), or 1% of the shortest. */
  private fineGapMs(): number {
    return Math.max(Math.min(FINE_LOOK_MIN_MS, this.minGapMs), Math.round(this.shortestMs * FINE_LOOK_SHARE));
  }

  /** How far before the shortest generation seen fine looks may start. */
  private windowBeforeMs(): number {
    if (this.shortestMs === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
    return Math.max(this.minGapMs, FINE_LOOKS_BEFORE * this.fineGapMs());
  }

  /**
   * When the waiter's next fine look is due: a fine gap after the last look that counted for it (or after the
   * lower bound of its finish), while that last look came before the end of its window; undefined when no
   * generation has finished yet, or when its window is past. A waiter alone has one look, just after its predicted
   * finish.
   */
  private fineLookAt(waiter: Waiter): number | undefined {
    if (this.shortestMs === Number.POSITIVE_INFINITY) return undefined;
    const fine = this.fineGapMs();
    // Alone, a waiter's look is a details read of its own, which no other waiter shares and which does not narrow
    // the bounds (no list is read): one look, a fine gap after its predicted finish, and then its cadence.
    if (this.waiters.size === 1) {
      const predicted = waiter.started + this.shortestMs + fine;
      return predicted > Math.max(waiter.since, this.lookedUntil) ? predicted : undefined;
    }
    const from = waiter.started + Math.max(this.longestRunningMs, this.shortestMs - this.windowBeforeMs());
    const until = waiter.started + this.shortestMs + FINE_LOOKS_AFTER * fine;
    const last = Math.max(waiter.since, this.lookedUntil);
    if (last >= until) return undefined;
    return Math.max(last, from) + fine;
  }

  /** When the next list is for: the first due waiter's time (a gap after the last list) or the first fine look. */
  private nextLookAt(): number {
    let due = Number.POSITIVE_INFINITY;
    let fine = Number.POSITIVE_INFINITY;
    for (const waiter of this.waiters) {
      due = Math.min(due, waiter.due);
      fine = Math.min(fine, this.fineLookAt(waiter) ?? Number.POSITIVE_INFINITY);
    }
    const byDue = Math.max(due, this.lastListAt + this.minGapMs);
    if (fine === Number.POSITIVE_INFINITY) return byDue;
    return Math.min(byDue, Math.max(fine, this.lastListAt + this.fineGapMs()));
  }

  private schedule(): void {
    if (this.listing !== undefined || this.waiters.size === 0 || this.closed) return;
    const at = this.nextLookAt();
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
    if (this.waiters.size === 0) return;
    const at = this.now();
    // Those due now and those due within half a gap are answered by this one read, not one just after it.
    const dueBy = at + this.minGapMs / 2;
    const lookedAt = Math.max(at, scheduledAt);
    if (this.waiters.size === 1) {
      for (const waiter of this.waiters) {
        const fine = this.fineLookAt(waiter);
        if (waiter.due > dueBy && (fine === undefined || fine > lookedAt)) return;
        this.lookedUntil = lookedAt;
        this.waiters.delete(waiter);
        waiter.resolve(undefined);
      }
      return;
    }
    this.lastListAt = at;
    this.lookedUntil = lookedAt;
    let byId: Map<string, LiveParserSummary>;
    const call = new AbortController();
    this.listCall = call;
    if (this.interrupt?.aborted === true) call.abort(this.interrupt.reason);
    try {
      byId = new Map((await this.list(call.signal)).map((p) => [p.id, p]));
    } catch {
      // A failed list (after the transport's retries): those due read their details, which report the error.
      byId = new Map();
    } finally {
      if (this.listCall === call) this.listCall = undefined;
    }
    for (const waiter of this.waiters) {
      if (waiter.since > at) continue;
      const listed = byId.get(waiter.id);
      const shown = listed !== undefined && listed.version === waiter.version;
      // Still generating when the list was asked for at the latest: it takes longer than it has waited by then.
      if (shown && listed.status === 'GENERATING') this.stillRunning(at - waiter.started);
      const done = shown && listed.status !== 'GENERATING';
      if (!done && waiter.due > dueBy) continue;
      this.waiters.delete(waiter);
      waiter.resolve(listed);
    }
  }
}
