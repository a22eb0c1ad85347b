import { ScrapeformError } from '../errors.js';
import { overriding } from './backend.js';
import type { LockInfo, StateBackend, StateLock } from './backend.js';

/** How long `lock()` may wait for a lock another run holds (`--lock-timeout`), and who hears about the wait. */
export interface LockWait {
  /** 0 (the default everywhere) fails at once, naming the holder. */
  timeoutMs: number;
  /** Called before each pause while the lock is held; the CLI prints progress on stderr. */
  onWait?: (event: LockWaitEvent) => void;
  /** Pause between attempts; 1 s unless given (tests pass less). */
  pollMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /**
   * Ctrl-C (apply's signal): the wait ends at once with `state.lock-interrupted` (exit 130). apply handles SIGINT
   * and SIGTERM itself, so without this a cancelled CI job waited out the whole --lock-timeout.
   */
  signal?: AbortSignal;
}

export interface LockWaitEvent {
  holder: LockInfo | undefined;
  waitedMs: number;
  timeoutMs: number;
}

const DEFAULT_POLL_MS = 1000;

/**
 * The backend whose `lock()` tries again while another run holds the lock, until `timeoutMs` has passed. Both
 * backends fail at once with `state.locked` (a file lock created with O_EXCL, a PostgreSQL try-advisory-lock), so
 * waiting is one loop around that for both; everything else is the backend's own.
 */
export function waitingForLock(backend: StateBackend, wait: LockWait): StateBackend {
  if (wait.timeoutMs <= 0) return backend;
  const sleep = wait.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = wait.now ?? Date.now;
  const pause = interruptible(sleep, wait.signal);
  const lock = async (operation: string): Promise<StateLock> => {
    const started = now();
    for (;;) {
      throwIfInterrupted(wait.signal);
      try {
        return await backend.lock(operation);
      } catch (error) {
        if (!(error instanceof ScrapeformError) || error.code !== 'state.locked') throw error;
        const waitedMs = now() - started;
        const holder = error.details.lock as LockInfo | undefined;
        if (waitedMs >= wait.timeoutMs) {
          throw new ScrapeformError(
            'state.lock-timeout',
            `${error.message}; gave up after waiting ${Math.round(waitedMs / 1000)}s (--lock-timeout)`,
            {
              hint: 'raise --lock-timeout, or if that run died, break the lock with scrapeform force-unlock',
              details: { lock: holder },
              cause: error,
            },
          );
        }
        wait.onWait?.({ holder, waitedMs, timeoutMs: wait.timeoutMs });
        await pause(Math.min(wait.pollMs ?? DEFAULT_POLL_MS, wait.timeoutMs - waitedMs));
      }
    }
  };
  return overriding(backend, { lock });
}

function throwIfInterrupted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw lockInterrupted();
}

/** Ctrl-C while a command waited for the state lock (held by another run, or by a database that did not answer). */
export function lockInterrupted(): ScrapeformError {
  return new ScrapeformError(
    'state.lock-interrupted',
    'interrupted while waiting for the state lock: nothing was done',
    { status: 'interrupted' },
  );
}

/** `sleep`, cut short when the signal aborts (the loop then throws before trying again). */
function interruptible(
  sleep: (ms: number) => Promise<void>,
  signal: AbortSignal | undefined,
): (ms: number) => Promise<void> {
  if (signal === undefined) return sleep;
  return (ms) =>
    new Promise<void>((resolve, reject) => {
      const done = (): void => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      signal.addEventListener('abort', done, { once: true });
      sleep(ms).then(done, (error: unknown) => {
        signal.removeEventListener('abort', done);
        reject(error instanceof Error ? error : new Error(String(error)));
      });
    });
}
