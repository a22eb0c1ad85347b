import { describe, expect, it } from 'vitest';
import { trySignal } from '../../../src/api/try-signal.js';

describe('trySignal: the signal of one try', () => {
  it('aborts at the deadline with a TimeoutError, and says the deadline did it', async () => {
    const t = trySignal(20);
    expect(t.signal.aborted).toBe(false);
    await new Promise((resolve) => t.signal.addEventListener('abort', resolve, { once: true }));
    expect(t.timedOut()).toBe(true);
    expect((t.signal.reason as DOMException).name).toBe('TimeoutError');
    t.done();
  });

  it("aborts with the caller's reason when the caller's signal aborts first, not as a timeout", () => {
    const outer = new AbortController();
    const t = trySignal(60_000, outer.signal);
    outer.abort(new Error('interrupted'));
    expect(t.signal.aborted).toBe(true);
    expect((t.signal.reason as Error).message).toBe('interrupted');
    expect(t.timedOut()).toBe(false);
    t.done();
  });

  it("starts aborted when the caller's signal already is", () => {
    const outer = new AbortController();
    outer.abort(new Error('already'));
    const t = trySignal(60_000, outer.signal);
    expect(t.signal.aborted).toBe(true);
    expect((t.signal.reason as Error).message).toBe('already');
    t.done();
  });

  it("once done, neither the deadline nor the caller's signal reaches it", async () => {
    const outer = new AbortController();
    const t = trySignal(10, outer.signal);
    t.done();
    outer.abort(new Error('later'));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(t.signal.aborted).toBe(false);
    expect(t.timedOut()).toBe(false);
  });
});

describe('trySignal: listeners without an AbortSignal', () => {
  it('runs onAbort listeners at the deadline, with the TimeoutError, and once only', async () => {
    const t = trySignal(10);
    const seen: unknown[] = [];
    t.onAbort((reason) => seen.push(reason));
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(seen).toHaveLength(1);
    expect((seen[0] as DOMException).name).toBe('TimeoutError');
    expect(t.aborted).toBe(true);
    t.done();
  });

  it('runs a listener added after the abort at once, and a removed one never', () => {
    const outer = new AbortController();
    const t = trySignal(60_000, outer.signal);
    const seen: string[] = [];
    const off = t.onAbort(() => seen.push('removed'));
    off();
    t.onAbort(() => seen.push('kept'));
    outer.abort(new Error('stop'));
    t.onAbort((reason) => seen.push(`late: ${(reason as Error).message}`));
    expect(seen).toEqual(['kept', 'late: stop']);
    t.done();
  });

  it("reaches every try in flight under one caller's signal, through one listener of its own", () => {
    const outer = new AbortController();
    let added = 0;
    const add = outer.signal.addEventListener.bind(outer.signal);
    outer.signal.addEventListener = ((...args: Parameters<typeof add>) => {
      added++;
      add(...args);
    }) as typeof add;
    const tries = Array.from({ length: 5 }, () => trySignal(60_000, outer.signal));
    tries[4]?.done();
    outer.abort(new Error('interrupted'));
    expect(added).toBe(1);
    expect(tries.map((t) => t.aborted)).toEqual([true, true, true, true, false]);
    for (const t of tries) t.done();
  });

  it('makes its AbortSignal on first use, aborted already when the try is', () => {
    const outer = new AbortController();
    const t = trySignal(60_000, outer.signal);
    outer.abort(new Error('before'));
    expect(t.signal.aborted).toBe(true);
    expect((t.signal.reason as Error).message).toBe('before');
    t.done();
  });
});
