import { describe, expect, it } from 'vitest';
import { getEventListeners } from 'node:events';
import type { LiveParserSummary } from '../../../src/api/live.js';
import { FINE_LOOK_MIN_MS, GenerationPoller } from '../../../src/apply/generation-poller.js';
import type { Alarm } from '../../../src/apply/generation-poller.js';

/** Time that moves only when the test says; alarms ring in order, each once the time reaches it. */
class FakeClock {
  now = 0;
  private alarms: { at: number; resolve: () => void; cancelled: boolean }[] = [];
  readonly alarm: Alarm = (ms) => {
    const entry: { at: number; resolve: () => void; cancelled: boolean } = {
      at: this.now + ms,
      resolve: () => undefined,
      cancelled: false,
    };
    const done = new Promise<void>((resolve) => (entry.resolve = resolve));
    this.alarms.push(entry);
    return { done, cancel: () => (entry.cancelled = true) };
  };

  /** Rings every alarm due up to `until`, in order, letting each list and its answers settle. */
  async advance(until: number): Promise<void> {
    for (;;) {
      await settle();
      this.alarms = this.alarms.filter((a) => !a.cancelled);
      this.alarms.sort((a, b) => a.at - b.at);
      const next = this.alarms[0];
      if (next === undefined || next.at > until) break;
      this.alarms.shift();
      this.now = Math.max(this.now, next.at);
      next.resolve();
    }
    this.now = Math.max(this.now, until);
    await settle();
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Generations that finish at a chosen time; the list is read at once and counted. */
function setup(finishAt: Record<string, number>, minGapMs = 250) {
  const clock = new FakeClock();
  const lists: number[] = [];
  const list = async (): Promise<LiveParserSummary[]> => {
    lists.push(clock.now);
    return Object.entries(finishAt).map(([id, at]) => ({
      id,
      name: id,
      version: 0,
      error: null,
      status: clock.now >= at ? 'FINISHED' : 'GENERATING',
    }));
  };
  const poller = new GenerationPoller(list, () => clock.now, clock.alarm, minGapMs);
  const answers: Record<string, { at: number; status: string | undefined }> = {};
  const look = (id: string, due: number, started = clock.now): void => {
    void poller.look(id, 0, due, started).then((listed) => {
      answers[id] = { at: clock.now, status: listed?.status };
    });
  };
  return { clock, lists, poller, answers, look };
}

describe('GenerationPoller: fine looks near the predicted finish', () => {
  const fine = FINE_LOOK_MIN_MS;

  it('with no generation finished yet, looks only when a waiter is due, as before', async () => {
    const { clock, lists, answers, look } = setup({ a: 3010, b: 3010 });
    look('a', 1000);
    look('b', 1100);
    await clock.advance(5000);
    // One list for both (b is due within half a gap of a), and nothing at 3010.
    expect(lists).toEqual([1000]);
    expect(answers).toEqual({ a: { at: 1000, status: 'GENERATING' }, b: { at: 1000, status: 'GENERATING' } });
  });

  it('once a generation finished, looks every fine gap from a gap before the shortest to four past it', async () => {
    // z never finishes: it keeps the fine looks going to the end of their window.
    const { clock, lists, poller, answers, look } = setup({ a: 3010, b: 3500, z: Infinity });
    poller.finished(3000);
    look('a', 10_000);
    look('b', 10_000);
    look('z', 60_000);
    await clock.advance(20_000);
    // Nothing bounds the finish from below: the looks start a gap (250 ms) before 3000. a is seen a fine gap after
    // it finished; b, slower than the window, at its due time.
    expect(fine).toBeLessThan(250 / 2);
    expect(lists).toEqual([
      2750 + fine,
      2800 + fine,
      2850 + fine,
      2900 + fine,
      2950 + fine,
      3000 + fine,
      3000 + 2 * fine,
      3000 + 3 * fine,
      3000 + 4 * fine,
      10_000,
    ]);
    expect(answers.a).toEqual({ at: 3000 + fine, status: 'FINISHED' });
    expect(answers.b).toEqual({ at: 10_000, status: 'FINISHED' });
  });

  it('bounds the finish from below by the last look that saw a generation still running', async () => {
    // The shortest generation seen is 3200 ms, a cadence's gap late (it was seen at a look a gap after it ended);
    // a list at 2950 saw these still running. Before, the only look came at 3200 plus a margin.
    const { clock, lists, poller, answers, look } = setup({ a: 3010, b: 3010, z: Infinity });
    look('a', 2950, 0);
    look('b', 60_000, 0);
    look('z', 60_000, 0);
    await clock.advance(2950);
    expect(answers.a).toEqual({ at: 2950, status: 'GENERATING' });
    poller.finished(3200);
    await clock.advance(3100);
    // From 2950 on, a fine gap apart: at 3000 b still runs (and that bounds it again), at 3050 it is seen done.
    expect(lists).toEqual([2950, 3000, 3050]);
    expect(answers.b).toEqual({ at: 3050, status: 'FINISHED' });
  });

  it('a look that comes too early is followed a fine gap later, not a gap later', async () => {
    const { clock, lists, poller, answers, look } = setup({ a: 2000, b: 2100, z: Infinity });
    look('a', 2000, 0);
    look('b', 60_000, 100);
    look('z', 60_000, 100);
    await clock.advance(2000);
    expect(answers.a).toEqual({ at: 2000, status: 'FINISHED' });
    // a finished 2000 ms after it started; b, started 100 ms later, was seen running 1900 ms after its start.
    poller.finished(2000);
    await clock.advance(10_000);
    // Then z alone waits: its details are read, not a list.
    expect(lists).toEqual([2000, 2000 + fine, 2100]);
    expect(answers.b).toEqual({ at: 2100, status: 'FINISHED' });
  });

  it('a later wave is seen by a fine look a fine gap past the lower bound', async () => {
    // Generations of 3000 ms: a first wave seen at the cadence, then one started later.
    const { clock, lists, poller, answers, look } = setup({ a: 3000, b: 3000, c: 13_030, d: 13_040 });
    look('a', 2990, 0);
    look('b', 2990, 0);
    await clock.advance(2990);
    look('a', 3240, 0);
    look('b', 3240, 0);
    await clock.advance(3240);
    poller.finished(3240);
    // The next wave starts at 10,000: the bounds (2990, 3240] put its finish between 12,990 and 13,240.
    await clock.advance(10_000);
    lists.length = 0;
    look('c', 60_000, 10_030);
    look('d', 60_000, 10_040);
    await clock.advance(14_000);
    // Both are seen done by the first fine look, a fine gap past the lower bound, which before came at 13,040 + 3240.
    expect(answers.c).toEqual({ at: 10_030 + 2990 + fine, status: 'FINISHED' });
    expect(answers.d).toEqual({ at: 10_030 + 2990 + fine, status: 'FINISHED' });
    expect(lists).toEqual([10_030 + 2990 + fine]);
  });

  it('for generations of a minute the fine looks are a hundredth of it apart', async () => {
    const { clock, lists, poller, answers, look } = setup({ a: 60_300, b: 61_000, z: Infinity });
    poller.finished(60_000);
    look('a', 200_000);
    look('b', 200_000);
    look('z', 200_000);
    await clock.advance(100_000);
    // 600 ms apart from five of them before 60 s (nothing bounds it closer), where the cadence alone would have seen
    // a at 63 s; once b is seen, z waits alone and its details are read instead of a list.
    expect(lists).toEqual(Array.from({ length: 7 }, (_, i) => 57_600 + 600 * i));
    expect(answers.a).toEqual({ at: 60_600, status: 'FINISHED' });
    expect(answers.b).toEqual({ at: 61_200, status: 'FINISHED' });
  });

  it('a single waiter has one look, a fine gap after its predicted finish, without a list', async () => {
    // Alone, each look is a details read of its own that narrows nothing: fine looks would cost a read each.
    const { clock, lists, poller, answers, look } = setup({ a: 3100 });
    poller.finished(3000);
    look('a', 10_000);
    await clock.advance(3000 + fine);
    expect(lists).toEqual([]);
    expect(answers.a).toEqual({ at: 3000 + fine, status: undefined });
    // Still generating by its details: asked again, it is next answered at its due time, not a fine gap later.
    look('a', 10_000, 0);
    await clock.advance(20_000);
    expect(answers.a).toEqual({ at: 10_000, status: undefined });
  });

  it('a waiter that has waited past the prediction when it asks gets no early look', async () => {
    const { clock, lists, poller, look } = setup({ a: 9000, b: 9000 });
    poller.finished(3000);
    await clock.advance(5000);
    look('a', 6000, 0);
    look('b', 6000, 0);
    await clock.advance(7000);
    expect(lists).toEqual([6000]);
  });
});

describe('GenerationPoller: a waiter that gives up (its wait reached its cut)', () => {
  /** A list that answers only when the test says, or fails once called off; each call's signal is kept. */
  function unanswered() {
    const clock = new FakeClock();
    const signals: AbortSignal[] = [];
    let answer: (listed: LiveParserSummary[]) => void = () => undefined;
    const list = (signal: AbortSignal): Promise<LiveParserSummary[]> => {
      signals.push(signal);
      return new Promise((resolve, reject) => {
        answer = resolve;
        signal.addEventListener('abort', () => reject(new Error('called off')), { once: true });
      });
    };
    const poller = new GenerationPoller(list, () => clock.now, clock.alarm, 250);
    const answers: Record<string, { at: number; status: string | undefined }> = {};
    const look = (id: string, due: number, signal?: AbortSignal): void => {
      void poller.look(id, 0, due, 0, signal).then((listed) => {
        answers[id] = { at: clock.now, status: listed?.status };
      });
    };
    const finished = (id: string): LiveParserSummary => ({
      id,
      name: id,
      version: 0,
      error: null,
      status: 'FINISHED',
    });
    return {
      clock,
      signals,
      answer: (listed: LiveParserSummary[]) => answer(listed),
      poller,
      answers,
      look,
      finished,
    };
  }

  it('is answered at once; the others keep the list under way and get its answer', async () => {
    const { clock, signals, answer, answers, look, finished } = unanswered();
    const gaveUp = new AbortController();
    look('a', 1000, gaveUp.signal);
    look('b', 1000);
    await clock.advance(1500);
    expect(signals).toHaveLength(1);
    gaveUp.abort();
    await settle();
    expect(answers).toEqual({ a: { at: 1500, status: undefined } });
    expect(signals[0]?.aborted).toBe(false);
    answer([finished('a'), finished('b')]);
    await settle();
    expect(answers.b).toEqual({ at: 1500, status: 'FINISHED' });
  });

  it('the last to give up calls off the list under way, and no list is read for nobody', async () => {
    const { clock, signals, answers, look } = unanswered();
    const [a, b] = [new AbortController(), new AbortController()];
    look('a', 1000, a.signal);
    look('b', 1000, b.signal);
    await clock.advance(1500);
    a.abort();
    await settle();
    expect(signals[0]?.aborted).toBe(false);
    b.abort();
    await settle();
    // Nobody waits for it: a list left running would keep the process alive for up to four tries of --timeout.
    expect(signals[0]?.aborted).toBe(true);
    expect(answers.b).toEqual({ at: 1500, status: undefined });
    // Two waiters that give up before they are due leave no alarm behind either: nothing is listed at 3000.
    const [c, d] = [new AbortController(), new AbortController()];
    look('c', 3000, c.signal);
    look('d', 3000, d.signal);
    await clock.advance(2000);
    c.abort();
    d.abort();
    await clock.advance(10_000);
    expect(signals).toHaveLength(1);
  });
});

describe('the interrupt signal', () => {
  it('holds no listener of a poller once it is closed: watch passes one signal to apply after apply', () => {
    const interrupt = new AbortController();
    const clock = new FakeClock();
    const pollers = Array.from(
      { length: 12 },
      () =>
        new GenerationPoller(
          async () => [],
          () => clock.now,
          clock.alarm,
          250,
          interrupt.signal,
        ),
    );
    expect(getEventListeners(interrupt.signal, 'abort')).toHaveLength(12);
    for (const poller of pollers) poller.close();
    expect(getEventListeners(interrupt.signal, 'abort')).toHaveLength(0);
  });
});
