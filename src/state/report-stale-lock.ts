import { overriding } from './backend.js';
import type { LockInfo, StateBackend } from './backend.js';

/**
 * The backend whose `lock()` tells `onStaleLock` when it took over the lock of a run that had died on this machine
 * (file-lock.ts): the one place every command that takes the lock (apply, plan --lock, import, drift --accept,
 * state push, watch --heal) reports it, as README promises, rather than each command on its own.
 */
export function reportingStaleLock(
  backend: StateBackend,
  onStaleLock: ((holder: LockInfo) => void) | undefined,
): StateBackend {
  if (onStaleLock === undefined) return backend;
  return overriding(backend, {
    lock: async (operation) => {
      const lock = await backend.lock(operation);
      const stale = backend.staleLockBroken;
      if (stale !== undefined) onStaleLock(stale);
      return lock;
    },
  });
}
