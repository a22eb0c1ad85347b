import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ScrapeformError } from '../../../src/errors.js';
import { PostgresStateBackend } from '../../../src/state/postgres-backend.js';
import type { State } from '../../../src/state/model.js';

/**
 * A state write whose query the database stops answering: pg gives up on it at its query_timeout but keeps it as the
 * query in flight, so a ROLLBACK queued behind it was not sent until its own timeout ran out too (each write took
 * twice the bound, about 64 s instead of 32 with the defaults). The session's end rolls back; no ROLLBACK is asked.
 */
const state: State = { format_version: 1, serial: 1, lineage: 'L', resources: {} };

/** A backend on a stand-in session whose SELECT fails with `failure`; every query asked is listed. */
function backendFailingWith(
  failure: Error,
  failing = 'SELECT',
): { backend: PostgresStateBackend; asked: string[] } {
  const asked: string[] = [];
  const client = {
    query: (text: string) => {
      asked.push(text.split(/\s/)[0] ?? '');
      if (text.startsWith(failing)) return Promise.reject(failure);
      if (text === 'ROLLBACK') return new Promise(() => undefined);
      return Promise.resolve({ rows: [] });
    },
    connection: { stream: { destroy: () => undefined } },
    end: async () => undefined,
  } as unknown as pg.Client;
  const backend = new PostgresStateBackend('postgres://scrapeform@127.0.0.1:1/none');
  Object.assign(backend as unknown as Record<string, unknown>, { client, ready: Promise.resolve() });
  return { backend, asked };
}

describe('a state write whose query fails', () => {
  it("with scrapeform's own refusal inside the transaction: rolled back, not left idle holding the row lock", async () => {
    const { backend, asked } = backendFailingWith(
      new ScrapeformError('state.serial-moved', 'moved'),
      'INSERT',
    );
    const written = backend.write(state).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(asked).toEqual(['BEGIN', 'SELECT', 'INSERT', 'ROLLBACK']);
    void written;
  });

  it('with no answer in time (pg query_timeout): no ROLLBACK is queued behind it, and the write fails at once', async () => {
    const { backend, asked } = backendFailingWith(new Error('Query read timeout'));
    await expect(backend.write(state)).rejects.toMatchObject({ code: 'state.unreachable' });
    expect(asked).toEqual(['BEGIN', 'SELECT']);
  });

  it('with an answer of the server (a serialization failure): rolled back, as before', async () => {
    const refused = Object.assign(new Error('could not serialize access'), { code: '40001' });
    const { backend, asked } = backendFailingWith(refused);
    const written = backend.write(state).catch((error: unknown) => error);
    // The ROLLBACK is asked (and this stand-in never answers it): the write waits for it as it always did.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(asked).toEqual(['BEGIN', 'SELECT', 'ROLLBACK']);
    void written;
  });
});
