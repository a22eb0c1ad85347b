import { describe, expect, it } from 'vitest';
import { ScrapeformError } from '../../../src/errors.js';
import type { LockInfo, StateBackend, StateLock } from '../../../src/state/backend.js';
import { waitingForLock } from '../../../src/state/lock-wait.js';
import type { LockWaitEvent } from '../../../src/state/lock-wait.js';
import { emptyState } from '../../../src/state/model.js';

const HOLDER: LockInfo = {
  holder: 'ci@runner-1',
  host: 'runner-1',
  pid: 42,
  started: '2025-01-01T00:00:00.000Z',
  operation: 'apply',
};

/** A backend whose lock is held for the first `busy` attempts, on a clock the test moves. */
function heldFor(busy: number): { backend: StateBackend; attempts: () => number } {
  let attempts = 0;
  const lock = async (): Promise<StateLock> => {
    attempts++;
    if (attempts <= busy)
      throw new ScrapeformError(
        'state.locked',
        'the state s.json is locked by ci@runner-1 (pid 42, apply, since …)',
        {
          details: { lock: HOLDER },
        },
      );
    return { info: HOLDER, release: async () => undefined };
  };
  const backend: StateBackend = {
    location: 's.json',
    read: async () => emptyState(''),
    write: async (state) => state,
    lock,
    forceUnlock: async () => undefined,
  };
  return { backend, attempts: () => attempts };
}

function clock(): { now: () => number; sleep: (ms: number) => Promise<void>; slept: number[] } {
  let t = 0;
  const slept: number[] = [];
  return { now: () => t, sleep: async (ms) => void (slept.push(ms), (t += ms)), slept };
}

describe('waitingForLock', () => {
  it('tries again while the lock is held, telling who holds it, and takes it once free', async () => {
    const { backend, attempts } = heldFor(3);
    const c = clock();
    const events: LockWaitEvent[] = [];
    const waiting = waitingForLock(backend, {
      timeoutMs: 60_000,
      pollMs: 1000,
      onWait: (e) => events.push(e),
      ...c,
    });
    const lock = await waiting.lock('apply');
    expect(lock.info).toBe(HOLDER);
    expect(attempts()).toBe(4);
    expect(c.slept).toEqual([1000, 1000, 1000]);
    expect(events.map((e) => [e.holder?.holder, e.waitedMs])).toEqual([
      ['ci@runner-1', 0],
      ['ci@runner-1', 1000],
      ['ci@runner-1', 2000],
    ]);
  });

  it('gives up after the timeout with state.lock-timeout naming the holder', async () => {
    const { backend } = heldFor(1000);
    const waiting = waitingForLock(backend, { timeoutMs: 2500, pollMs: 1000, ...clock() });
    const error = (await waiting.lock('apply').catch((e: unknown) => e)) as ScrapeformError;
    expect(error.code).toBe('state.lock-timeout');
    expect(error.message).toBe(
      'the state s.json is locked by ci@runner-1 (pid 42, apply, since …); gave up after waiting 3s (--lock-timeout)',
    );
    expect(error.details.lock).toEqual(HOLDER);
  });

  it('without a timeout the backend is returned as it is: a held lock fails at once', async () => {
    const { backend, attempts } = heldFor(1);
    expect(waitingForLock(backend, { timeoutMs: 0 })).toBe(backend);
    await expect(backend.lock('apply')).rejects.toThrow('is locked by ci@runner-1');
    expect(attempts()).toBe(1);
  });

  it('other failures are not waited on', async () => {
    const backend: StateBackend = {
      ...heldFor(0).backend,
      lock: async () => {
        throw new ScrapeformError('state.unreachable', 'cannot connect');
      },
    };
    const c = clock();
    await expect(waitingForLock(backend, { timeoutMs: 60_000, ...c }).lock('apply')).rejects.toThrow(
      'cannot connect',
    );
    expect(c.slept).toEqual([]);
  });

  it('Ctrl-C (the signal) ends the wait at once, mid-pause, with exit status interrupted and no more attempts', async () => {
    const { backend, attempts } = heldFor(Number.POSITIVE_INFINITY);
    const controller = new AbortController();
    const waiting = waitingForLock(backend, {
      timeoutMs: 300_000,
      // A pause that never ends by itself: only the signal can end it.
      sleep: () => new Promise<void>(() => undefined),
      onWait: () => setImmediate(() => controller.abort()),
      signal: controller.signal,
    });
    const error = (await waiting.lock('apply').catch((e: unknown) => e)) as ScrapeformError;
    expect(error).toBeInstanceOf(ScrapeformError);
    expect(error.code).toBe('state.lock-interrupted');
    expect(error.status).toBe('interrupted');
    expect(error.message).toBe('interrupted while waiting for the state lock: nothing was done');
    expect(attempts()).toBe(1);
  });

  it('a signal already aborted takes no lock', async () => {
    const { backend, attempts } = heldFor(0);
    const controller = new AbortController();
    controller.abort();
    const waiting = waitingForLock(backend, { timeoutMs: 60_000, ...clock(), signal: controller.signal });
    await expect(waiting.lock('apply')).rejects.toThrow('interrupted while waiting for the state lock');
    expect(attempts()).toBe(0);
  });
});
