import { describe, expect, it } from 'vitest';
import type { LiveParserSummary } from '../../../src/api/live.js';
import { GenerationPoller, PREDICTION_MARGIN_MS } from '../../../src/apply/wait-for-generation.js';
import type { Alarm } from '../../../src/apply/wait-for-generation.js';

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

describe('GenerationPoller: the predicted look', () => {
  it('with no generation finished yet, looks only when a waiter is due, as before', async () => {
    const { clock, lists, answers, look } = setup({ a: 3010, b: 3010 });
    look('a', 1000);
    look('b', 1100);
    await clock.advance(5000);
    // One list for both (b is due within half a gap of a), and nothing at 3010.
    expect(lists).toEqual([1000]);
    expect(answers).toEqual({ a: { at: 1000, status: 'GENERATING' }, b: { at: 1000, status: 'GENERATING' } });
  });

  it('once a generation finished, looks when a waiter has waited as long as the shortest one seen', async () => {
    // z never finishes: with one waiter left the poller reads no list (its details are read instead).
    const { clock, lists, poller, answers, look } = setup({ a: 3010, b: 3500, z: Infinity });
    poller.finished(3000);
    look('a', 10_000);
    look('b', 10_000);
    look('z', 60_000);
    await clock.advance(20_000);
    // At 3000 + the margin a is done and answered; b is not, and waits for its due time (no second prediction).
    expect(PREDICTION_MARGIN_MS).toBeGreaterThan(0);
    expect(lists).toEqual([3000 + PREDICTION_MARGIN_MS, 10_000]);
    expect(answers.a).toEqual({ at: 3000 + PREDICTION_MARGIN_MS, status: 'FINISHED' });
    expect(answers.b).toEqual({ at: 10_000, status: 'FINISHED' });
  });

  it('counts from when each generation started, and one list serves those predicted within half a gap', async () => {
    const { clock, lists, poller, answers, look } = setup({
      a: 3000,
      b: 3050,
      c: 3100,
      d: 3400,
      z: Infinity,
    });
    poller.finished(3000);
    look('z', 60_000, 0);
    look('a', 60_000, 0);
    look('b', 60_000, 50);
    look('c', 60_000, 100);
    // d started 300 ms later: more than half a gap after a, so a list of its own.
    look('d', 60_000, 400);
    await clock.advance(10_000);
    const m = PREDICTION_MARGIN_MS;
    expect(lists).toEqual([3100 + m, 3400 + m]);
    expect(Object.values(answers).map((x) => x.status)).toEqual([
      'FINISHED',
      'FINISHED',
      'FINISHED',
      'FINISHED',
    ]);
  });

  it('a look due less than a gap before the prediction waits for it instead of pushing it a gap later', async () => {
    const { clock, lists, poller, answers, look } = setup({ a: 3000, b: 3000 });
    poller.finished(3000);
    look('a', 2900);
    look('b', 60_000);
    await clock.advance(10_000);
    // At 2900 both would still be generating, and the next list could not come before 3150.
    expect(lists).toEqual([3000 + PREDICTION_MARGIN_MS]);
    expect(answers.a?.status).toBe('FINISHED');
    expect(answers.b?.status).toBe('FINISHED');
  });

  it('a look due a gap or more before the prediction goes, and the predicted one follows', async () => {
    const { clock, lists, poller, answers, look } = setup({ a: 3000, b: 3000, z: Infinity });
    poller.finished(3000);
    look('a', 2700);
    look('b', 60_000);
    look('z', 60_000);
    await clock.advance(10_000);
    expect(lists).toEqual([2700, 3000 + PREDICTION_MARGIN_MS]);
    expect(answers.a).toEqual({ at: 2700, status: 'GENERATING' });
    expect(answers.b).toEqual({ at: 3000 + PREDICTION_MARGIN_MS, status: 'FINISHED' });
  });

  it('keeps lists at least the gap apart: a prediction learned just after a list waits for the gap', async () => {
    const { clock, lists, poller, answers, look } = setup({ a: 2000, b: 2100, z: Infinity });
    look('a', 2000, 0);
    look('b', 60_000, 100);
    look('z', 60_000, 100);
    await clock.advance(2000);
    expect(answers.a).toEqual({ at: 2000, status: 'FINISHED' });
    // a finished 2000 ms after it started: b, started 100 ms later, is predicted at 2120, within a gap of the list.
    poller.finished(2000);
    await clock.advance(10_000);
    expect(lists).toEqual([2000, 2250]);
    expect(answers.b).toEqual({ at: 2250, status: 'FINISHED' });
  });

  it('a single waiter is answered at its predicted time without a list (its details are read)', async () => {
    const { clock, lists, poller, answers, look } = setup({ a: 3000 });
    poller.finished(3000);
    look('a', 10_000);
    await clock.advance(20_000);
    expect(lists).toEqual([]);
    expect(answers.a).toEqual({ at: 3000 + PREDICTION_MARGIN_MS, status: undefined });
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
