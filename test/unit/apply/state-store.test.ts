import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { applyPlan } from '../../../src/apply/apply-plan.js';
import { StateStore } from '../../../src/apply/state-store.js';
import type { ApiClients } from '../../../src/api/create-clients.js';
import type { Plan, ResourceChange } from '../../../src/plan/model.js';
import type { StateBackend } from '../../../src/state/backend.js';
import type { State } from '../../../src/state/model.js';
import { parserState, stateOf } from '../../helpers/state.js';
import { until } from '../../helpers/until.js';

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
  await until('the first write started', () => backend.started > 0, { everyMs: 1 });
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
    await during;
    // b, committed while the write ran, is written within the window after it.
    await until('the second write started', () => backend.started === 2, { everyMs: 1 });
    backend.finish();
    await store.flushed();
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

describe('StateStore: the write window', () => {
  it('durable() waits for the commits made before it; those made meanwhile go in the next window, not straight after', async () => {
    const backend = heldBackend();
    const store = new StateStore(backend, stateOf({}), 5, 10_000);
    await store.commit(add('a'));
    const first = store.durable();
    await store.commit(add('b'));
    backend.finish();
    // Waiting for b too, it wrote again at once, and went on for as long as commits came (1,000 creates).
    expect(await settled(first)).toBe(true);
    expect(backend.writes).toEqual([1]);
    await until('the window wrote b', () => backend.started === 2, { everyMs: 1 });
    backend.finish();
    await store.flushed();
    expect(backend.writes).toEqual([1, 2]);
  });

  it('a durable() called while a write runs waits for its own commit, written after that write', async () => {
    const backend = heldBackend();
    const store = new StateStore(backend, stateOf({}), 5, 10_000);
    await store.commit(add('a'));
    const first = store.durable();
    await store.commit(add('b'));
    const second = store.durable();
    backend.finish();
    expect(await settled(first)).toBe(true);
    expect(await settled(second)).toBe(false);
    expect(backend.started).toBe(2);
    backend.finish();
    await second;
    expect(backend.writes).toEqual([1, 2]);
  });
});

describe('a call that cannot be undone waits for a state write, which checks the lock', () => {
  const lost = (): Error => new Error('state.lock-lost: the lock of this run was taken over');
  const common = {
    reasons: ['not in the manifests'],
    regenerates: false,
    destructive: true,
    field_changes: [],
    breaking: [],
  };
  const changes: ResourceChange[] = [
    { ...common, address: 'parser.old', kind: 'Parser', name: 'old', action: 'delete', id: 'p-9' },
    { ...common, address: 'project.old', kind: 'Project', name: 'old', action: 'archive', id: 9 },
  ] as unknown as ResourceChange[];

  it.each(changes.map((c) => [c.action, c] as const))(
    '%s: not sent by a run that lost its lock',
    async (_, change) => {
      const sent: string[] = [];
      const backend: StateBackend = {
        location: 'memory',
        read: async () => stateOf({}),
        write: async () => Promise.reject(lost()),
        lock: async () => ({
          info: { holder: 't', host: 'h', pid: 1, started: '', operation: 'apply' },
          release: async () => undefined,
        }),
        forceUnlock: async () => undefined,
      };
      const record = async (what: string): Promise<void> => {
        sent.push(what);
      };
      const clients = {
        parsers: {
          delete: async (id: string) => {
            await record(`DELETE parser ${id}`);
            return { status: 204 };
          },
        },
        projects: { archive: async (id: number) => record(`DELETE project ${id}`) },
        close: async () => undefined,
      } as unknown as ApiClients;
      const state = stateOf({
        'parser.old': parserState({ id: 'p-9', name: 'old', definition: {} as never }),
        'project.old': { kind: 'Project', id: 9, name: 'old', definition: {} },
      });
      const outcome = await applyPlan({
        plan: { resource_changes: [change] } as unknown as Plan,
        clients,
        backend,
        state,
        live: { parsers: [], projects: [] },
      }).catch((error: unknown) => error);
      expect(sent).toEqual([]);
      expect(JSON.stringify(outcome, Object.getOwnPropertyNames(outcome ?? {}))).toContain('taken over');
    },
  );
});
