import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { JournalSession, JournalUnavailable } from '../../../src/state/postgres-journal.js';
import type { JournalConnection } from '../../../src/state/postgres-journal.js';
import type { SentMark } from '../../../src/state/sent-journal.js';

/**
 * The journal's own session (postgres-journal.ts) with a fake client: marks given while an INSERT is under way go
 * together in the next one, a failed INSERT fails its marks and the session is opened again, and closing it ends a
 * session still connecting.
 */
const mark = (address: string): SentMark => ({ address, kind: 'create', sent: 'T', lineage: 'L' });

interface FakeClient {
  inserts: string[][];
  answer: (() => void)[];
  fail: (error: Error) => void;
}

function fakeConnection(options: { connect?: () => Promise<void> } = {}): {
  connection: JournalConnection;
  clients: FakeClient[];
  ended: number[];
} {
  const clients: FakeClient[] = [];
  const ended: number[] = [];
  const connection: JournalConnection = {
    create: () => {
      const fake: FakeClient = { inserts: [], answer: [], fail: () => undefined };
      const index = clients.push(fake) - 1;
      const client = {
        index,
        query: (_sql: string, params: unknown[]) => {
          const marks = JSON.parse(params[1] as string) as SentMark[];
          fake.inserts.push(marks.map((m) => m.address));
          return new Promise<void>((resolve, reject) => {
            fake.answer.push(resolve);
            fake.fail = reject;
          });
        },
      };
      return client as unknown as pg.Client;
    },
    connect: () => options.connect?.() ?? Promise.resolve(),
    end: (client) => {
      ended.push((client as unknown as { index: number }).index);
      return Promise.resolve();
    },
  };
  return { connection, clients, ended };
}

/** Lets the session's awaits run. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('the journal session of a PostgreSQL state', () => {
  it('marks given while an INSERT is under way go together in the next one', async () => {
    const { connection, clients } = fakeConnection();
    const session = new JournalSession('scrapeform_state_prod', connection);
    const first = session.append([mark('a')]);
    await turn();
    const rest = [session.append([mark('b')]), session.append([mark('c'), mark('d')])];
    await turn();
    expect(clients[0]?.inserts).toEqual([['a']]);
    clients[0]?.answer.shift()?.();
    await first;
    await turn();
    expect(clients[0]?.inserts).toEqual([['a'], ['b', 'c', 'd']]);
    clients[0]?.answer.shift()?.();
    await Promise.all(rest);
    expect(clients).toHaveLength(1);
  });

  it('a failed INSERT fails its marks and ends the session; the next marks open another', async () => {
    const { connection, clients, ended } = fakeConnection();
    const session = new JournalSession('scrapeform_state_prod', connection);
    const failed = session.append([mark('a')]);
    await turn();
    clients[0]?.fail(new Error('connection terminated'));
    await expect(failed).rejects.toThrow('connection terminated');
    expect(ended).toEqual([0]);
    const next = session.append([mark('b')]);
    await turn();
    expect(clients[1]?.inserts).toEqual([['b']]);
    clients[1]?.answer.shift()?.();
    await next;
  });

  it('closing it ends a session still connecting, and the marks waiting on it fail', async () => {
    let refuse: (error: Error) => void = () => undefined;
    const { connection, ended } = fakeConnection({
      connect: () => new Promise((_, reject) => (refuse = reject)),
    });
    const session = new JournalSession('scrapeform_state_prod', connection);
    const waiting = session.append([mark('a')]);
    await turn();
    await session.close();
    expect(ended).toEqual([0]);
    // Ending a client that is connecting makes its connect fail, as pg's does when its socket is destroyed.
    refuse(new Error('Connection terminated'));
    await expect(waiting).rejects.toThrow('Connection terminated');
  });

  it('after close no session is opened again: marks waiting, and marks given later, fail', async () => {
    const { connection, clients, ended } = fakeConnection();
    const session = new JournalSession('scrapeform_state_prod', connection);
    const inFlight = session.append([mark('a')]);
    await turn();
    const queued = session.append([mark('b')]);
    await session.close();
    clients[0]?.fail(new Error('Connection terminated'));
    await expect(inFlight).rejects.toThrow('Connection terminated');
    await expect(queued).rejects.toThrow('the journal session was closed');
    await expect(session.append([mark('c')])).rejects.toThrow('the journal session was closed');
    expect(clients).toHaveLength(1);
    expect(ended).toContain(0);
  });

  it('a session that cannot be opened says so (JournalUnavailable), for the backend to use its own', async () => {
    const { connection } = fakeConnection({
      connect: () => Promise.reject(new Error('too many connections for role "ci"')),
    });
    const session = new JournalSession('scrapeform_state_prod', connection);
    const refused = session.append([mark('a')]);
    await expect(refused).rejects.toBeInstanceOf(JournalUnavailable);
    await expect(refused).rejects.toThrow(
      'the journal\'s session could not be opened: too many connections for role "ci"',
    );
  });
});
