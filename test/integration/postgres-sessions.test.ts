import { Socket, connect, createServer } from 'node:net';
import type { Server } from 'node:net';
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { PostgresStateBackend } from '../../src/state/postgres-backend.js';
import type { ScrapeformError } from '../../src/errors.js';
import { until } from '../helpers/until.js';
import { ADMIN_URL, newDatabase as newSessionDatabase, skipWithoutPostgres } from '../helpers/postgres.js';

/**
 * The PostgreSQL backend's sessions when something goes wrong around them: a lock taken while another session
 * holds its row, a second lock() on one backend. Needs a server as postgres-state.test.ts does
 * (SCRAPEFORM_TEST_POSTGRES, from .ci/postgres.sh); skipped without one unless SCRAPEFORM_REQUIRE_POSTGRES=1.
 */
const SKIP = skipWithoutPostgres('the PostgreSQL session tests');
const newDatabase = (): Promise<string> => newSessionDatabase('sessions');

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

/**
 * A TCP relay to the test server that can stop passing bytes either way, as a network that drops every packet
 * does (no reset, no FIN), from now on or from the first client message that contains some text (a query's SQL);
 * and cut every connection it relayed.
 */
async function startRelay(): Promise<{
  url: (database: string) => string;
  silence(): void;
  silenceFrom(sql: string): void;
  isSilent(): boolean;
  cut(): void;
  close(): void;
}> {
  const target = new URL(ADMIN_URL ?? '');
  const sockets: Socket[] = [];
  let silent = false;
  let silentFrom: string | undefined;
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.push(client, upstream);
    client.on('data', (data) => {
      if (silentFrom !== undefined && data.toString('latin1').includes(silentFrom)) silent = true;
      if (!silent) upstream.write(data);
    });
    upstream.on('data', (data) => void (silent || client.write(data)));
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: (database) => {
      const url = new URL(database);
      url.host = `127.0.0.1:${port}`;
      return url.toString();
    },
    silence: () => {
      silent = true;
    },
    silenceFrom: (sql) => {
      silentFrom = sql;
    },
    isSilent: () => silent,
    cut: () => {
      silent = false;
      for (const socket of sockets.splice(0)) socket.destroy();
    },
    close: () => {
      for (const socket of sockets.splice(0)) socket.destroy();
      server.close();
    },
  };
}

describe.skipIf(SKIP)('PostgreSQL state sessions', () => {
  it('a lock whose holder row could not be written is released: a later run is not refused by it', async () => {
    const url = await newDatabase();
    // A long-lived process (watch --heal) takes and releases the lock round after round on one session.
    const watch = new PostgresStateBackend(url, 'prod', 1000);
    const ci = new PostgresStateBackend(url, 'prod', 1000);
    const other = new pg.Client({ connectionString: url });
    try {
      await (await watch.lock('watch --heal')).release();
      // Another session holds the lock row a while (inserted, not committed: a released lock leaves no row): the
      // holder row's INSERT waits for it and times out after the advisory lock.
      await other.connect();
      await other.query('BEGIN');
      await other.query(
        "INSERT INTO scrapeform_locks (workspace, info) VALUES ('scrapeform_state_prod', '{}')",
      );
      const failed = (await watch.lock('watch --heal').catch((e: unknown) => e)) as ScrapeformError;
      expect(failed.code).toBe('state.unreachable');
      expect(failed.message).toMatch(/did not answer: canceling statement due to (statement|lock) timeout/);
      await other.query('ROLLBACK');
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

  it('a refused lock names its holder even when handing back the key granted does not answer in time', async () => {
    const url = await newDatabase();
    const relay = await startRelay();
    const holder = new PostgresStateBackend(url, 'prod');
    // A query timeout of 1 s: the hand-back is given up on (and the connection dropped) after 3 s.
    const refused = new PostgresStateBackend(relay.url(url), 'prod', 1000);
    try {
      const lock = await holder.lock('apply');
      // The second run is granted the earlier versions' key (shared) but not the lock's own; the network drops
      // every packet from its unlock of that key on.
      relay.silenceFrom('pg_advisory_unlock');
      const error = (await refused.lock('plan').catch((e: unknown) => e)) as ScrapeformError;
      expect(relay.isSilent()).toBe(true);
      expect(`${error.code}: ${error.message}`).toBe(
        `state.locked: the state ${refused.location} is locked by ${lock.info.holder} (pid ${process.pid}, apply, since ${lock.info.started}, lock id ${lock.info.id})`,
      );
      expect(error.hint).toBe(
        `wait for that run to finish; a runner that died releases the lock with its connection (else scrapeform force-unlock ${lock.info.id})`,
      );
      await lock.release();
    } finally {
      relay.close();
      await Promise.all([holder.close(), refused.close()]);
    }
  });

  it('a refused lock whose holder row cannot be read is still state.locked, and gives back the key it was granted', async () => {
    const url = await newDatabase();
    const holder = new PostgresStateBackend(url, 'prod');
    const refused = new PostgresStateBackend(url, 'prod', 1000);
    const other = new pg.Client({ connectionString: url });
    try {
      await refused.read();
      const lock = await holder.lock('apply');
      // Another session locks the table of holder rows: reading the holder's row times out after 1 s.
      await other.connect();
      await other.query('BEGIN');
      await other.query('LOCK TABLE scrapeform_locks IN ACCESS EXCLUSIVE MODE');
      const error = (await refused.lock('plan').catch((e: unknown) => e)) as ScrapeformError;
      expect(`${error.code}: ${error.message}`).toBe(
        `state.locked: the state ${refused.location} is locked by another run`,
      );
      expect(error.hint).toBe(
        'wait for that run to finish; a runner that died releases the lock with its connection (else scrapeform force-unlock)',
      );
      await other.query('ROLLBACK');
      // The earlier versions' key it was granted went back: once the holder releases, the same session locks.
      await lock.release();
      expect(await tryLock(refused)).toBe('locked');
    } finally {
      await other.end().catch(() => undefined);
      await Promise.all([holder.close(), refused.close()]);
    }
  });

  it('release never fails: a database that stops answering after the last write ends the session instead', async () => {
    const url = await newDatabase();
    const relay = await startRelay();
    const backend = new PostgresStateBackend(relay.url(url), 'prod', 1000);
    const other = new PostgresStateBackend(url, 'prod');
    try {
      const lock = await backend.lock('apply');
      const state = await backend.read();
      state.resources['project.a'] = { kind: 'Project', id: 1, name: 'a', definition: {} };
      expect((await backend.write(state)).serial).toBe(1);
      // The network drops every packet from here on: the unlock gets no answer. The apply's outcome stands.
      relay.silence();
      await expect(lock.release()).resolves.toBeUndefined();
      // The session the release gave up on ends when its connection does, and its advisory lock with it.
      relay.cut();
      await until('another session can take the lock', async () => (await tryLock(other)) === 'locked', {
        everyMs: 50,
      });
      // The backend dropped that client: its next call connects again.
      expect((await backend.read()).serial).toBe(1);
    } finally {
      await Promise.all([backend.close(), other.close()]);
      relay.close();
    }
  });

  // Review: a database that stopped answering mid-apply was reported with the hint of a restart or a force-unlock.
  it('a write the silent database never answers: the lock is lost, and the hint says the database stopped answering', async () => {
    const url = await newDatabase();
    const relay = await startRelay();
    const backend = new PostgresStateBackend(relay.url(url), 'prod', 1000);
    try {
      const lock = await backend.lock('apply');
      const state = await backend.read();
      relay.silence();
      const lost = (await backend.write(state).catch((e: unknown) => e)) as ScrapeformError;
      expect(lost.code).toBe('state.lock-lost');
      expect(lost.message).toBe(
        `the state lock of ${backend.location} was lost with the database connection that held it: the state was not written`,
      );
      expect(lost.hint).toMatch(
        /^the connection holding it stopped answering or broke \(.+; each query may take 1 s: SCRAPEFORM_STATE_TIMEOUT\) and was dropped, and the lock with it; check that the database runs and answers/,
      );
      expect(lost.hint).not.toContain('force-unlock');
      relay.cut();
      await lock.release();
    } finally {
      await backend.close();
      relay.close();
    }
  });

  it('release gives up on a silent database well before the query timeout: a CI job is not kept waiting 30 s', async () => {
    const url = await newDatabase();
    const relay = await startRelay();
    // The default query timeout (30 s): the unlock is bounded by RELEASE_TIMEOUT_MS (5 s) instead, so this test,
    // whose own limit is 20 s, ends in time only when the release does not wait the query timeout.
    const backend = new PostgresStateBackend(relay.url(url), 'prod');
    try {
      const lock = await backend.lock('apply');
      relay.silence();
      await expect(lock.release()).resolves.toBeUndefined();
      // The session it gave up on is ended (its connection cut here, as PostgreSQL's keep-alive would): unlocked.
      relay.cut();
      const other = new PostgresStateBackend(url, 'prod');
      try {
        // Within this test's own limit (20 s), so that a failure names what never came.
        await until('another session can take the lock', async () => (await tryLock(other)) === 'locked', {
          everyMs: 50,
          withinMs: 10_000,
        });
      } finally {
        await other.close();
      }
    } finally {
      await backend.close();
      relay.close();
    }
  }, 20_000);

  it('jobs using a new database and new workspaces at once all find their tables (created once, under a lock)', async () => {
    const failures: string[] = [];
    for (let round = 0; round < 5; round++) {
      const url = await newDatabase();
      // Three jobs of one workspace and three of others: the workspace's table and the locks table are both new.
      const backends = ['prod', 'prod', 'prod', 'staging', 'team-a', 'team_a'].map(
        (workspace) => new PostgresStateBackend(url, workspace),
      );
      try {
        const outcomes = await Promise.allSettled(backends.map((backend) => backend.lock('apply')));
        for (const outcome of outcomes)
          if (outcome.status === 'rejected' && (outcome.reason as ScrapeformError).code !== 'state.locked')
            failures.push((outcome.reason as Error).message);
        expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(4);
      } finally {
        await Promise.all(backends.map((backend) => backend.close()));
      }
    }
    expect(failures).toEqual([]);
  });

  it('a role granted only what docs/ci.md lists works on tables an admin made; a new workspace says what PostgreSQL said', async () => {
    const url = await newDatabase();
    const role = `scrapeform_ci_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const setUp = new PostgresStateBackend(url, 'prod');
    await setUp.read();
    await setUp.close();
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    await admin.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC');
    await admin.query(`GRANT SELECT, INSERT, UPDATE ON scrapeform_state_prod, scrapeform_locks TO ${role}`);
    await admin.query(`GRANT DELETE ON scrapeform_locks TO ${role}`);
    const asRole = new URL(url);
    asRole.username = role;
    const backend = new PostgresStateBackend(asRole.toString(), 'prod');
    const other = new PostgresStateBackend(asRole.toString(), 'prod');
    const fresh = new PostgresStateBackend(asRole.toString(), 'staging');
    try {
      const lock = await backend.lock('apply');
      const state = await backend.read();
      state.resources['project.a'] = { kind: 'Project', id: 1, name: 'a', definition: {} };
      expect((await backend.write(state)).serial).toBe(1);
      // force-unlock ends a session of the same role.
      expect(await other.forceUnlock({ force: true })).toEqual(lock.info);
      await lock.release();
      expect(Object.keys((await other.read()).resources)).toEqual(['project.a']);
      // A released lock's row is deleted; without DELETE (granted as earlier versions listed) it stays, and the
      // lock is released all the same.
      const rows = async (): Promise<number> =>
        (await admin.query('SELECT 1 FROM scrapeform_locks')).rowCount ?? -1;
      await (await other.lock('apply')).release();
      expect(await rows()).toBe(0);
      await admin.query(`REVOKE DELETE ON scrapeform_locks FROM ${role}`);
      await (await other.lock('apply')).release();
      expect(await rows()).toBe(1);
      await (await backend.lock('apply')).release();
      const refused = (await fresh.read().catch((e: unknown) => e)) as ScrapeformError;
      expect(refused.code).toBe('state.unreachable');
      expect(refused.message).toBe(
        `the state database ${fresh.location.replace(' (workspace staging)', '')} refused a query: permission denied for schema public (SQLSTATE 42501)`,
      );
      expect(refused.hint).toBe('grant the role in the URL what docs/ci.md lists under "Privileges"');
    } finally {
      await Promise.all([backend.close(), other.close(), fresh.close()]);
      await admin.query(`DROP OWNED BY ${role}`);
      await admin.query(`DROP ROLE ${role}`);
      await admin.end();
    }
  });

  it('keep-alive starts after 30 s idle on both ends; the server gives a lost runner about a minute', async () => {
    const url = await newDatabase();
    const setKeepAlive = vi.spyOn(Socket.prototype, 'setKeepAlive');
    const backend = new PostgresStateBackend(url, 'prod');
    try {
      await backend.read();
      expect(setKeepAlive).toHaveBeenCalledWith(true, 30_000);
      // The backend's own session, as the server sees it.
      const client = (backend as unknown as { client: pg.Client }).client;
      const { rows } = await client.query<Record<string, string>>(
        `SELECT current_setting('tcp_keepalives_idle') AS idle, current_setting('tcp_keepalives_interval') AS interval,
                current_setting('tcp_keepalives_count') AS count, current_setting('tcp_user_timeout') AS user_timeout`,
      );
      expect(rows[0]).toEqual({ idle: '30', interval: '10', count: '3', user_timeout: '60000' });
    } finally {
      setKeepAlive.mockRestore();
      await backend.close();
    }
  });

  it('a server that refuses the keep-alive settings is used all the same', async () => {
    const url = await newDatabase();
    const query = pg.Client.prototype.query;
    // As a server on an OS without these settings answers (or a pooler that rejects SET).
    const refuse = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (
      this: pg.Client,
      ...args: unknown[]
    ) {
      if (typeof args[0] === 'string' && args[0].includes('tcp_'))
        return Promise.reject(
          Object.assign(new Error('unrecognized configuration parameter'), { code: '42704' }),
        );
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query);
    const backend = new PostgresStateBackend(url, 'prod');
    try {
      const lock = await backend.lock('apply');
      expect((await backend.write(await backend.read())).serial).toBe(1);
      await lock.release();
      expect(refuse.mock.calls.filter((call) => String(call[0]).includes('tcp_'))).toHaveLength(2);
    } finally {
      refuse.mockRestore();
      await backend.close();
    }
  });
});
