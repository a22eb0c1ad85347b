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
