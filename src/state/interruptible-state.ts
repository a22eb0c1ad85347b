import { ScrapeformError } from '../errors.js';
import type { StateBackend, StateLock } from './backend.js';
import type { State } from './model.js';
import { lockInterrupted } from './lock-wait.js';

/**
 * `backend.read()`, given up at once when `signal` (the command's Ctrl-C) aborts: a state database that takes the
 * connection and never answers held apply and watch until SCRAPEFORM_STATE_TIMEOUT (30 s by default), Ctrl-C or
 * not, and apply then ended 1 with a state error instead of 130. Throws `state.read-interrupted` (exit 130).
 */
export async function readUnlessInterrupted(backend: StateBackend, signal?: AbortSignal): Promise<State> {
  const state = await unlessAborted(backend.read(), signal);
  if (state === undefined)
    throw new ScrapeformError(
      'state.read-interrupted',
      'interrupted while reading the state: nothing was sent',
      {
        status: 'interrupted',
      },
    );
  return state;
}

/**
 * `backend.write(state)` of what apply records before its first call, given up at once when `signal` aborts, as a
 * read is: nothing was sent, and everything that write holds is read again from the services by the next run. A
 * write that still lands after that changes nothing that run needs. Throws `state.write-interrupted` (exit 130).
 */
export async function writeUnlessInterrupted(
  backend: StateBackend,
  state: State,
  signal?: AbortSignal,
): Promise<State> {
  const written = await unlessAborted(backend.write(state), signal);
  if (written === undefined)
    throw new ScrapeformError(
      'state.write-interrupted',
      'interrupted while writing the state before the first call: nothing was sent',
      { status: 'interrupted' },
    );
  return written;
}

/**
 * `backend.lock(operation)`, given up at once when `signal` aborts, as `readUnlessInterrupted` gives up a read:
 * `state.lock-interrupted` (exit 130), worded as the lock wait's own (lock-wait.ts), which this race may overtake
 * while another run holds the lock. A lock the backend still takes after that is released as soon as it is held,
 * so a Ctrl-C before the lock is held leaves none behind.
 */
export async function lockUnlessInterrupted(
  backend: StateBackend,
  operation: string,
  signal?: AbortSignal,
): Promise<StateLock> {
  const taking = backend.lock(operation);
  const lock = await unlessAborted(taking, signal);
  if (lock === undefined) {
    void taking.then((late) => late.release()).catch(() => undefined);
    throw lockInterrupted();
  }
  return lock;
}

/**
 * What `work` gives, or undefined once `signal` aborts first (a failure of `work` after that is left unheard): `test`
 * reads its state so, and reports every check not run.
 */
export async function unlessAborted<T>(
  work: Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T | undefined> {
  if (signal === undefined) return work;
  if (signal.aborted) {
    work.catch(() => undefined);
    return undefined;
  }
  let stop: (() => void) | undefined;
  const aborted = new Promise<undefined>((resolve) => {
    stop = () => resolve(undefined);
    signal.addEventListener('abort', stop, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    if (stop !== undefined) signal.removeEventListener('abort', stop);
    work.catch(() => undefined);
  }
}
