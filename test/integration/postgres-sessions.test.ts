import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresStateBackend } from '../../src/state/postgres-backend.js';
import type { ScrapeformError } from '../../src/errors.js';

/**
 * The PostgreSQL backend's sessions when something goes wrong around them: a lock taken while another session
 * holds its row, a second lock() on one backend. Needs a server as postgres-state.test.ts does
 * (SCRAPEFORM_TEST_POSTGRES, from .ci/postgres.sh); skipped without one unless SCRAPEFORM_REQUIRE_POSTGRES=1.
 */
const ADMIN_URL = process.env.SCRAPEFORM_TEST_POSTGRES;
const REQUIRED = process.env.SCRAPEFORM_REQUIRE_POSTGRES === '1';
if (ADMIN_URL === undefined && !REQUIRED) {
  console.warn(
    'skipping the PostgreSQL session tests: SCRAPEFORM_TEST_POSTGRES is not set (source .ci/postgres.sh to run them)',
  );
}

let databases = 0;

/** A new empty database of its own for one test. */
async function newDatabase(): Promise<string> {
  if (ADMIN_URL === undefined)
    throw new Error(
      'SCRAPEFORM_REQUIRE_POSTGRES=1 but SCRAPEFORM_TEST_POSTGRES is not set: CI must start PostgreSQL (.ci/postgres.sh)',
    );
  const name = `scrapeform_sessions_${process.pid}_${Date.now()}_${databases++}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** What a lock() ends with: `locked`, or the error's code and message. */
async function tryLock(backend: PostgresStateBackend): Promise<string> {
  return backend.lock('apply').then(
    async (lock) => {
      await lock.release();
      return 'locked';
    },
    (error: ScrapeformError) => `${error.code}: ${error.message}`,
  );
}

describe.skipIf(ADMIN_URL === undefined && !REQUIRED)('PostgreSQL state sessions', () => {
  it('a lock whose holder row could not be written is released: a later run is not refused by it', async () => {
    const url = await newDatabase();
    // A long-lived process (watch --heal) takes and releases the lock round after round on one session.
    const watch = new PostgresStateBackend(url, 'prod', 1000);
    const ci = new PostgresStateBackend(url, 'prod', 1000);
    const other = new pg.Client({ connectionString: url });
    try {
      await (await watch.lock('watch --heal')).release();
      // Another session holds the lock row a while: the holder row's INSERT times out after the advisory lock.
      await other.connect();
      await other.query('BEGIN');
      await other.query(
        "SELECT * FROM scrapeform_locks WHERE workspace = 'scrapeform_state_prod' FOR UPDATE",
      );
      const failed = (await watch.lock('watch --heal').catch((e: unknown) => e)) as ScrapeformError;
      expect(failed.code).toBe('state.unreachable');
      expect(failed.message).toMatch(/did not answer: canceling statement due to (statement|lock) timeout/);
      await other.query('COMMIT');
      for (let round = 0; round < 2; round++) await (await watch.lock('watch --heal')).release();
      expect(await tryLock(ci)).toBe('locked');
    } finally {
      await other.end().catch(() => undefined);
      await Promise.all([watch.close(), ci.close()]);
    }
  });

  it('a second lock() on a backend that holds the lock is refused, as with a state file; one release frees it', async () => {
    const url = await newDatabase();
    const backend = new PostgresStateBackend(url, 'prod');
    const other = new PostgresStateBackend(url, 'prod');
    try {
      const lock = await backend.lock('apply');
      const second = (await backend.lock('apply').catch((e: unknown) => e)) as ScrapeformError;
      expect(second.code).toBe('state.locked');
      expect(second.message).toBe(
        `the state ${backend.location} is locked by ${lock.info.holder} (pid ${process.pid}, apply, since ${lock.info.started}, lock id ${lock.info.id})`,
      );
      // Two at once: the one that comes second is refused too, never granted on the same session.
      await lock.release();
      const both = await Promise.allSettled([backend.lock('apply'), backend.lock('plan')]);
      expect(both.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected']);
      if (both[0].status === 'fulfilled') await both[0].value.release();
      expect(await tryLock(other)).toBe('locked');
    } finally {
      await Promise.all([backend.close(), other.close()]);
    }
  });
});
