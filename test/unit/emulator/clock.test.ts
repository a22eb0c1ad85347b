import v8 from 'node:v8';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EmulatorClock } from '../../../src/emulator/clock.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('EmulatorClock timers', () => {
  it('fires many timers inserted in any order by time, and in insertion order at the same time', () => {
    const clock = new EmulatorClock(() => 0);
    const fired: string[] = [];
    // A fixed shuffle of 200 times with repeats, so equal times test the insertion order.
    const times = Array.from({ length: 200 }, (_, i) => ((i * 7919) % 50) * 10);
    times.forEach((at, i) => clock.at(at, () => fired.push(`${at}:${i}`)));
    clock.advance(1000);
    const expected = times
      .map((at, i) => ({ at, i }))
      .sort((a, b) => a.at - b.at || a.i - b.i)
      .map(({ at, i }) => `${at}:${i}`);
    expect(fired).toEqual(expected);
    clock.stop();
  });

  it('drops a cancelled timer unfired and keeps the others in order', () => {
    const clock = new EmulatorClock(() => 0);
    const fired: string[] = [];
    const times = Array.from({ length: 200 }, (_, i) => ((i * 7919) % 50) * 10);
    const cancels = times.map((at, i) => clock.at(at, () => fired.push(`${at}:${i}`)));
    cancels.forEach((cancel, i) => {
      if (i % 3 === 0) cancel();
    });
    cancels[0]?.();
    expect(clock.pending).toBe(times.filter((_, i) => i % 3 !== 0).length);
    clock.advance(1000);
    const expected = times
      .map((at, i) => ({ at, i }))
      .filter(({ i }) => i % 3 !== 0)
      .sort((a, b) => a.at - b.at || a.i - b.i)
      .map(({ at, i }) => `${at}:${i}`);
    expect(fired).toEqual(expected);
    clock.stop();
  });

  it('fireDue fires what real time has reached before the real timer does, and nothing later', () => {
    let now = 0;
    const clock = new EmulatorClock(() => now);
    const fired: number[] = [];
    for (const at of [20, 5, 50]) clock.at(at, () => fired.push(at));
    now = 30;
    clock.fireDue();
    expect(fired).toEqual([5, 20]);
    expect(clock.pending).toBe(1);
    clock.stop();
    now = 60;
    clock.fireDue();
    expect(fired).toEqual([5, 20]);
  });

  it('fires only what an advance reaches, and the rest on a later advance', () => {
    const clock = new EmulatorClock(() => 0);
    const fired: number[] = [];
    for (const at of [500, 100, 300, 900]) clock.at(at, () => fired.push(at));
    clock.advance(400);
    expect(fired).toEqual([100, 300]);
    expect(clock.now()).toBe(400);
    clock.advance(600);
    expect(fired).toEqual([100, 300, 500, 900]);
    clock.stop();
  });

  it('fires on real time: an earlier timer added later is not held behind a later one', () => {
    vi.useFakeTimers();
    const clock = new EmulatorClock();
    const fired: string[] = [];
    clock.after(50, () => fired.push('late'));
    clock.after(5, () => fired.push('early'));
    vi.advanceTimersByTime(5);
    expect(fired).toEqual(['early']);
    clock.after(100, () => fired.push('later still'));
    vi.advanceTimersByTime(45);
    expect(fired).toEqual(['early', 'late']);
    vi.advanceTimersByTime(100);
    expect(fired).toEqual(['early', 'late', 'later still']);
    clock.stop();
  });

  it('forgets every timer on clear', () => {
    const clock = new EmulatorClock(() => 0);
    const fired: number[] = [];
    clock.at(10, () => fired.push(10));
    clock.clear();
    clock.at(20, () => fired.push(20));
    clock.advance(100);
    expect(fired).toEqual([20]);
    clock.stop();
  });
});

/**
 * How many of Node's internal timer lists (one per distinct duration) exist. Node drops an emptied list at once only
 * for a ref'd timer: an unref'd one cleared before it fires leaves its list until the list's time comes.
 */
function timerListCount(): number {
  const probe = setTimeout(() => undefined, 987_654);
  const TimersList = (probe as unknown as { _idlePrev: { constructor: new () => unknown } })._idlePrev
    .constructor;
  clearTimeout(probe);
  return v8.queryObjects(TimersList, { format: 'count' }) as number;
}

describe('EmulatorClock real timers', () => {
  it('leaves no timer list of Node behind for each re-arm, nor after clear', () => {
    const clock = new EmulatorClock();
    const before = timerListCount();
    // Each timer is earlier than the one armed, so each insert clears the real timer and arms one of another length.
    for (let i = 0; i < 300; i++) clock.at(clock.now() + 7 * 24 * 3_600_000 - i * 13, () => undefined);
    expect(timerListCount() - before).toBeLessThanOrEqual(2);
    clock.clear();
    expect(timerListCount() - before).toBeLessThanOrEqual(1);
    clock.stop();
  });
});
