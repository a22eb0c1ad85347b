import { describe, expect, it } from 'vitest';
import { ApplyStoppedError } from '../../../src/apply/unrecorded-calls.js';
import { ScrapeformError } from '../../../src/errors.js';
import { newLockInfo, whileHolding } from '../../../src/state/backend.js';
import type { StateLock } from '../../../src/state/backend.js';

/** A lock whose release fails with `failure` (or succeeds), counting the releases. */
function lockFailing(failure?: Error): StateLock & { releases: number } {
  const lock = {
    info: newLockInfo('apply'),
    releases: 0,
    release: async () => {
      lock.releases++;
      if (failure !== undefined) throw failure;
    },
  };
  return lock;
}

const cannotRemove = new ScrapeformError(
  'state.io',
  'cannot remove the lock file .scrapeform/state.json.lock: read-only file system (EROFS); the lock stays: remove it by hand once no run is active',
);

describe('whileHolding', () => {
  it('returns what the work returns and releases the lock once', async () => {
    const lock = lockFailing();
    expect(await whileHolding(lock, () => Promise.resolve(42))).toBe(42);
    expect(lock.releases).toBe(1);
  });

  it('throws the work’s own error, with the failed release added, not the release’s error', async () => {
    const lock = lockFailing(cannotRemove);
    const stopped = new ApplyStoppedError(
      new ScrapeformError(
        'state.io',
        'cannot write the state file .scrapeform/state.json: read-only file system',
      ),
      { results: [], interrupted: false } as unknown as ConstructorParameters<typeof ApplyStoppedError>[1],
    );
    const thrown = await whileHolding(lock, () => Promise.reject(stopped)).catch((error: unknown) => error);
    expect(thrown).toBe(stopped);
    expect((thrown as ApplyStoppedError).result).toBeDefined();
    expect((thrown as Error).message).toBe(
      'cannot write the state file .scrapeform/state.json: read-only file system; the lock was not released either: cannot remove the lock file .scrapeform/state.json.lock: read-only file system (EROFS); the lock stays: remove it by hand once no run is active',
    );
    expect(lock.releases).toBe(1);
  });

  it('throws the release’s error when the work succeeded', async () => {
    const lock = lockFailing(cannotRemove);
    await expect(whileHolding(lock, () => Promise.resolve('done'))).rejects.toBe(cannotRemove);
    expect(lock.releases).toBe(1);
  });

  it('turns a release that fails after the work succeeded as asked, with what the work returned', async () => {
    const lock = lockFailing(cannotRemove);
    const thrown = await whileHolding(
      lock,
      () => Promise.resolve({ made: 3 }),
      (release, result) => new Error(`${result.made} made; ${(release as Error).message}`),
    ).catch((error: unknown) => error);
    expect((thrown as Error).message).toBe(`3 made; ${cannotRemove.message}`);
    expect(lock.releases).toBe(1);
  });
});
