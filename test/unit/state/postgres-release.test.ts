import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { keysReleased, unlockPendingError } from '../../../src/state/postgres-lock.js';

const KEYS = { own: 11n, earlier: 22n };

/** A session whose pg_locks looks answer the holders given, one list per look, the last one for ever after. */
function looks(...holders: number[][]): { client: pg.Client; count: () => number } {
  let n = 0;
  const client = {
    query: async () => {
      const pids = holders[Math.min(n, holders.length - 1)] ?? [];
      n++;
      return { rows: pids.map((pid) => ({ pid, holder: 'ci@10.0.0.1', since: null })) };
    },
  } as unknown as pg.Client;
  return { client, count: () => n };
}

function clock(): { now: () => number; sleep: (ms: number) => Promise<void>; slept: number[] } {
  let t = 0;
  const slept: number[] = [];
  return { now: () => t, sleep: async (ms) => void (slept.push(ms), (t += ms)), slept };
}

describe('keysReleased: force-unlock returns once the ended session has let go of the keys', () => {
  it('looks again while an ended session still holds them (it drops its temporary objects first)', async () => {
    const { client, count } = looks([42], [42], []);
    const c = clock();
    expect(await keysReleased(client, KEYS, [42], { withinMs: 30_000, ...c })).toBe(true);
    expect(count()).toBe(3);
    expect(c.slept).toEqual([10, 20]);
  });

  it('a session it did not end holding them (a run that took the lock since) is not waited for', async () => {
    const { client, count } = looks([99]);
    expect(await keysReleased(client, KEYS, [42], { withinMs: 30_000, ...clock() })).toBe(true);
    expect(count()).toBe(1);
  });

  it('one that never lets go: false once the bound passed, the last look made at it', async () => {
    const { client, count } = looks([42]);
    const c = clock();
    expect(await keysReleased(client, KEYS, [42], { withinMs: 1000, ...c })).toBe(false);
    expect(c.slept).toEqual([10, 20, 40, 80, 160, 250, 250, 190]);
    expect(count()).toBe(9);
  });

  it('says the lock may still be found held, and what to do', () => {
    const error = unlockPendingError('postgres://db/x (workspace default)', [42, 43], 30_000);
    expect(error.code).toBe('state.unlock-pending');
    expect(error.message).toBe(
      'force-unlock ended the sessions 42, 43 that held the lock of postgres://db/x (workspace default), but the lock was not let go of within 30 s: a run started now may still find it locked',
    );
    expect(error.hint).toBe(
      'run scrapeform force-unlock again in a moment (it says "was not locked" once the lock is free); SCRAPEFORM_STATE_TIMEOUT sets how long it waits',
    );
  });
});
