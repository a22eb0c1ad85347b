import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { MAX_TIMER_MS } from '../../../src/duration.js';
import type { Alarm } from '../../../src/apply/generation-poller.js';
import { LookCutoff, LookGivenUp } from '../../../src/apply/look-cutoff.js';

/** Alarms rung by the test, in the order set; what each was set for is kept. */
function alarms() {
  const set: { ms: number; ring: () => void; cancelled: boolean }[] = [];
  const alarm: Alarm = (ms) => {
    const entry = { ms, ring: () => undefined as void, cancelled: false };
    const done = new Promise<void>((resolve) => (entry.ring = resolve));
    set.push(entry);
    return { done, cancel: () => (entry.cancelled = true) };
  };
  return { alarm, set };
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('LookCutoff', () => {
  it('gives up a look in flight at the cut and calls its read off; a look that ended before keeps its outcome', async () => {
    const { alarm, set } = alarms();
    const cut = new LookCutoff(1000, alarm);
    await expect(cut.bound(Promise.resolve('answered'))).resolves.toBe('answered');
    const hanging = cut.bound(new Promise<never>(() => undefined));
    set[0]?.ring();
    await expect(hanging).rejects.toBeInstanceOf(LookGivenUp);
    expect([cut.passed, cut.signal.aborted]).toEqual([true, true]);
    // A look asked for after the cut is not waited for.
    await expect(cut.bound(Promise.resolve('late'))).rejects.toBeInstanceOf(LookGivenUp);
  });

  it('a cut further off than a timer can wait is reached in steps, not at once', async () => {
    const { alarm, set } = alarms();
    const cut = new LookCutoff(MAX_TIMER_MS + 5, alarm);
    set[0]?.ring();
    await settle();
    expect(cut.passed).toBe(false);
    set[1]?.ring();
    await settle();
    expect(set.map((a) => a.ms)).toEqual([MAX_TIMER_MS, 5]);
    expect(cut.passed).toBe(true);
  });

  it('Ctrl-C aborts its signal without passing the cut; cancel calls the timer off', async () => {
    const { alarm, set } = alarms();
    const interrupt = new AbortController();
    const cut = new LookCutoff(1000, alarm, interrupt.signal);
    interrupt.abort();
    expect([cut.signal.aborted, cut.passed]).toEqual([true, false]);
    cut.cancel();
    expect(set[0]?.cancelled).toBe(true);
    // An injected sleep cannot be called off: its late ring changes nothing.
    set[0]?.ring();
    await settle();
    expect(cut.passed).toBe(false);
  });

  it('the cuts of many generations waiting at once put one listener on the Ctrl-C signal, not one each', () => {
    // apply waits for up to --max-generating (16 by default) generations at once, each with its cut: a listener
    // each made Node print "MaxListenersExceededWarning: Possible EventTarget memory leak detected" on every
    // apply of 11 creates or more.
    const { alarm } = alarms();
    const interrupt = new AbortController();
    const cuts = Array.from({ length: 40 }, () => new LookCutoff(1000, alarm, interrupt.signal));
    expect(getEventListeners(interrupt.signal, 'abort')).toHaveLength(1);
    cuts[0]?.cancel();
    interrupt.abort('stop');
    expect(cuts.map((c) => [c.signal.aborted, c.passed])).toEqual([
      [false, false],
      ...Array.from({ length: 39 }, () => [true, false]),
    ]);
    expect(cuts[1]?.signal.reason).toBe('stop');
  });
});
