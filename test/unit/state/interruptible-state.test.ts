import { describe, expect, it } from 'vitest';
import { ScrapeformError } from '../../../src/errors.js';
import type { LockInfo, StateBackend, StateLock } from '../../../src/state/backend.js';
import {
  lockUnlessInterrupted,
  readUnlessInterrupted,
  writeUnlessInterrupted,
} from '../../../src/state/interruptible-state.js';
import { emptyState } from '../../../src/state/model.js';
import type { State } from '../../../src/state/model.js';

const HOLDER: LockInfo = {
  holder: 'ci@runner-1',
  host: 'runner-1',
  pid: 42,
  started: '2025-01-01T00:00:00.000Z',
  operation: 'apply',
};

/** A backend whose read and lock answer only when the test says (a state database that stopped answering). */
function silentBackend(): {
  backend: StateBackend;
  answerRead: (state: State) => void;
  answerLock: () => void;
  released: () => number;
} {
  let answerRead: (state: State) => void = () => undefined;
  let answerLock: () => void = () => undefined;
  let released = 0;
  const lock: StateLock = {
    info: HOLDER,
    release: async () => {
      released++;
    },
  };
  const backend: StateBackend = {
    location: 'postgres://db (workspace default)',
    read: () => new Promise<State>((resolve) => (answerRead = resolve)),
    write: async (state) => state,
    lock: () => new Promise<StateLock>((resolve) => (answerLock = () => resolve(lock))),
    forceUnlock: async () => undefined,
  };
  return {
    backend,
    answerRead: (state) => answerRead(state),
    answerLock: () => answerLock(),
    released: () => released,
  };
}

async function caught(work: Promise<unknown>): Promise<ScrapeformError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ScrapeformError);
  return error as ScrapeformError;
}

describe('state reads and locks that Ctrl-C gives up', () => {
  it('a read the database does not answer ends on the signal: state.read-interrupted, exit status interrupted', async () => {
    const { backend } = silentBackend();
    const controller = new AbortController();
    const reading = readUnlessInterrupted(backend, controller.signal);
    controller.abort();
    const error = await caught(reading);
    expect(error.code).toBe('state.read-interrupted');
    expect(error.message).toBe('interrupted while reading the state: nothing was sent');
    expect(error.status).toBe('interrupted');
  });

  it('the write before the first call of apply, not answered, ends on the signal: state.write-interrupted', async () => {
    const { backend } = silentBackend();
    const silent = { ...backend, write: () => new Promise<State>(() => undefined) };
    const controller = new AbortController();
    const writing = writeUnlessInterrupted(silent, emptyState('L'), controller.signal);
    controller.abort();
    const error = await caught(writing);
    expect(error.code).toBe('state.write-interrupted');
    expect(error.message).toBe('interrupted while writing the state before the first call: nothing was sent');
    expect(error.status).toBe('interrupted');
  });

  it('a read answered before the signal is the state; without a signal it is the backend read itself', async () => {
    const { backend, answerRead } = silentBackend();
    const reading = readUnlessInterrupted(backend, new AbortController().signal);
    answerRead({ ...emptyState(''), serial: 7 });
    expect((await reading).serial).toBe(7);
    const plain = readUnlessInterrupted(backend);
    answerRead({ ...emptyState(''), serial: 8 });
    expect((await plain).serial).toBe(8);
  });

  it('a lock not yet held ends on the signal, and a lock the backend takes after that is released at once', async () => {
    const { backend, answerLock, released } = silentBackend();
    const controller = new AbortController();
    const taking = lockUnlessInterrupted(backend, 'apply', controller.signal);
    controller.abort();
    const error = await caught(taking);
    expect(error.code).toBe('state.lock-interrupted');
    expect(error.message).toBe('interrupted while waiting for the state lock: nothing was done');
    expect(error.status).toBe('interrupted');
    expect(released()).toBe(0);
    answerLock();
    await new Promise((r) => setTimeout(r, 0));
    expect(released()).toBe(1);
  });

  it('a lock held before the signal is the caller’s to release', async () => {
    const { backend, answerLock, released } = silentBackend();
    const controller = new AbortController();
    const taking = lockUnlessInterrupted(backend, 'apply', controller.signal);
    answerLock();
    const lock = await taking;
    controller.abort();
    expect(lock.info).toBe(HOLDER);
    expect(released()).toBe(0);
  });
});
