import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/api/api-error.js';
import type { ApiClients } from '../../../src/api/create-clients.js';
import type { LiveParserDetails } from '../../../src/api/live.js';
import type { ParserState } from '../../../src/state/model.js';
import { readLive, servicesUsed } from '../../../src/workspace/read-live.js';
import { desiredParser } from '../../helpers/desired.js';
import { liveDetails } from '../../helpers/live.js';
import { parserState, stateOf } from '../../helpers/state.js';

const definition = { urls: ['https://books.example/a.html'], scraperParams: {}, fields: [] };

/** A list lagging at version 0; details of the latest say no version; `byVersion` answers a read of a version. */
function clients(byVersion: (version: number) => Promise<LiveParserDetails>): {
  clients: ApiClients;
  reads: (number | undefined)[];
} {
  const reads: (number | undefined)[] = [];
  const parsers = {
    list: async () => [
      { id: 'p-1', name: 'books', status: 'FINISHED', error: null, generated_at: null, version: 0 },
    ],
    get: async (_id: string, version: number | undefined, _signal: unknown, known: { version?: number }) => {
      reads.push(version);
      return version === undefined ? liveDetails(known.version ?? 0) : byVersion(version);
    },
  };
  return { clients: { parsers, projects: {} } as unknown as ApiClients, reads };
}

const refused = (status: number) => async (): Promise<never> => {
  throw new ApiError({
    code: 'api.bad-request',
    status,
    method: 'GET',
    url: 'http://127.0.0.1/parsers/p-1/1',
    retryable: false,
    secrets: [],
  });
};

describe('readLive: details below a version state knows, a list lagging behind it', () => {
  const declared = { parsers: [desiredParser('books')], projects: [] };

  it('reads the version state saw by its number, and plans from it', async () => {
    const fake = clients(async (v) => liveDetails(v));
    const state = stateOf({ 'parser.books': parserState({ definition, version: 1 }) });
    const live = await readLive(fake.clients, declared, state);
    expect(fake.reads).toEqual([undefined, 1]);
    expect(live.details['p-1']?.version).toBe(1);
  });

  it('a version a PATCH with a lost answer may have made, answered 400 (not there), is read as absent, not as a failed plan', async () => {
    const fake = clients(refused(400));
    const recorded: ParserState = parserState({
      definition,
      version: 0,
      patching: { from: 0, definition, sent: '2026-11-26T10:00:00.000Z' },
    });
    const live = await readLive(fake.clients, declared, stateOf({ 'parser.books': recorded }));
    expect(fake.reads).toEqual([undefined, 1]);
    expect(live.details['p-1']?.version).toBe(0);
  });

  it('a version state saw, answered 400, fails the plan: nothing is planned from an answer that contradicts it', async () => {
    const fake = clients(refused(400));
    const state = stateOf({ 'parser.books': parserState({ definition, version: 1 }) });
    await expect(readLive(fake.clients, declared, state)).rejects.toThrow('400');
  });
});

describe('servicesUsed: the services whose lists the plan reads', () => {
  it('includes a service state holds only an interrupted create of, so the object it made is recovered', () => {
    const state = stateOf({});
    state.intents = {
      'project.nightly': { kind: 'Project', name: 'nightly', definition: { name: 'nightly' }, sent: 'T' },
    };
    expect(servicesUsed({ parsers: [], projects: [] }, state)).toEqual({ parsers: false, projects: true });
  });
});
