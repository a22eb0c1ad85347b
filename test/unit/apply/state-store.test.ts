import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { StateStore } from '../../../src/apply/state-store.js';
import type { StateBackend } from '../../../src/state/backend.js';
import type { State } from '../../../src/state/model.js';
import { stateOf } from '../../helpers/state.js';

/** A backend whose writes wait until the test ends them (`finish`, or `fail` with an error); each is recorded. */
function heldBackend(): StateBackend & {
  writes: number[];
  started: number;
  finish(): void;
  fail(error: Error): void;
} {
  let serial = 1;
  let pending: { resolve: () => void; reject: (error: Error) => void } | undefined;
  const backend = {
    location: 'memory',
    writes: [] as number[],
    started: 0,
    read: async (): Promise<State> => stateOf({}),
    write: async (state: State): Promise<State> => {
      backend.started++;
      const count = Object.keys(state.resources).length;
      await new Promise<void>((resolve, reject) => (pending = { resolve, reject }));
      backend.writes.push(count);
      return { ...state, serial: ++serial };
    },
    lock: async () => ({
      info: { holder: 't', host: 'h', pid: 1, started: '', operation: 'apply' },
      release: async () => undefined,
    }),
    forceUnlock: async () => undefined,
    finish: () => pending?.resolve(),
    fail: (error: Error) => pending?.reject(error),
  };
  return backend;
}

const add = (name: string) => (state: State) => {
  state.resources[`project.${name}`] = { kind: 'Project', id: 1, name, definition: {} };
};

/** Whether a promise has settled by now (after a turn of the event loop). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await sleep(0);
  return done;
}

/** Until the first write has started and hangs for longer than a window of 5 ms. */
async function lateWrite(backend: { started: number }): Promise<void> {
  while (backend.started === 0) await sleep(1);
  await sleep(20);
}

describe('StateStore: a write slower than lateMs', () => {
  it('a commit resolves at once while the write under way has taken less than lateMs', async () => {
    const backend = heldBackend();
    const store = new StateStore(backend, stateOf({}), 5, 10_000);
    await store.commit(add('a'));
    const during = store.durable();
    expect(await settled(store.commit(add('b')))).toBe(true);
    backend.finish();
    await sleep(0);
    backend.finish();
    await during;
    expect(backend.writes).toEqual([1, 2]);
  });

  it('holds back every commit made while it is late, until the commit is written: the calls stop', async () => {
    const backend = heldBackend();
    const store = new StateStore(backend, stateOf({}), 5, 5);
    await store.commit(add('a'));
    await lateWrite(backend);
    const held = store.commit(add('b'));
    expect(await settled(held)).toBe(false);
    backend.finish(); // the first write ends; the commit of b is written next
    expect(await settled(held)).toBe(false);
    backend.finish();
    await held;
    expect(backend.writes).toEqual([1, 2]);
  });

  it('a late write that fails rejects the commits it held back (the lock was lost): nothing more is sent', async () => {
    const backend = heldBackend();
    const store = new StateStore(backend, stateOf({}), 5, 5);
    await store.commit(add('a'));
    await lateWrite(backend);
    const held = store.commit(add('b'));
    backend.fail(new Error('the lock was lost'));
    await expect(held).rejects.toThrow('the lock was lost');
    await expect(store.commit(add('c'))).rejects.toThrow('the lock was lost');
  });
});
