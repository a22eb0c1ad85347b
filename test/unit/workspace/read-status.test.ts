import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveProject } from '../../../src/api/live.js';
import type { State } from '../../../src/state/model.js';
import { ApiError } from '../../../src/api/api-error.js';
import { parserState, stateOf } from '../../helpers/state.js';
import type { Services } from '../../../src/workspace/open-workspace.js';
import { readStatus } from '../../../src/workspace/read-status.js';

/** A parser's definition as state records it (what status reads of it: nothing but its shape). */
const BOOKS = {
  urls: ['https://books.example/a.html'],
  scraperParams: {},
  fields: [{ name: 'title', description: 'Book title' }],
};

/** Services that answer with one project as given, and no jobs. */
function servicesWith(live: LiveProject): Services {
  const state: State = stateOf({
    'project.weekly': { kind: 'Project', id: live.id, name: 'weekly', definition: {} },
  });
  return {
    backend: { read: async () => state },
    clients: {
      projects: {
        list: async () => [live],
        get: async () => live,
        find: async () => live,
        listJobs: async () => [],
      },
      parsers: { list: async () => [] },
    },
  } as unknown as Services;
}

describe('status of a project whose answer leaves its schedule out', () => {
  it('says the schedule is not reported, never "once" or "scheduled"', async () => {
    const rows = await readStatus(servicesWith({ id: 9, name: 'weekly' }));
    expect(rows).toEqual([
      {
        address: 'project.weekly',
        id: 9,
        status: 'scheduling not reported',
        drift: false,
        schedule: '?',
        nextRun: null,
        lastJob: null,
      },
    ]);
  });

  it('reads a reported schedule as it is', async () => {
    const rows = await readStatus(
      servicesWith({ id: 9, name: 'weekly', scrapingInterval: 'weekly', schedulingEnabled: true }),
    );
    expect(rows[0]).toMatchObject({ status: 'scheduled', schedule: 'weekly' });
  });
});

describe('status of an object the service answers 404 for', () => {
  const gone = (): never => {
    throw new ApiError({
      code: 'api.not-found',
      status: 404,
      method: 'GET',
      url: 'http://127.0.0.1/x',
      retryable: false,
      secrets: [],
    });
  };
  function servicesWithout(resources: State['resources']): Services {
    return {
      backend: { read: async () => stateOf(resources) },
      clients: {
        // find is get with a 404 read as undefined (ProjectsClient.find).
        projects: { list: async () => [], get: gone, find: async () => undefined, listJobs: async () => [] },
        parsers: { list: async () => [], get: gone },
      },
    } as unknown as Services;
  }

  it('shows one seen live since its create as missing, deleted or archived outside scrapeform', async () => {
    const rows = await readStatus(
      servicesWithout({
        'parser.books': parserState({ definition: BOOKS }),
        'project.weekly': { kind: 'Project', id: 9, name: 'weekly', definition: {} },
      }),
    );
    expect(rows.map((r) => [r.address, r.status, r.drift])).toEqual([
      ['parser.books', 'MISSING (deleted outside scrapeform)', true],
      ['project.weekly', 'MISSING (archived outside scrapeform)', true],
    ]);
  });

  it('shows one created and not seen since as not visible yet, never as deleted (plan and drift read it so)', async () => {
    const rows = await readStatus(
      servicesWithout({
        'parser.books': parserState({
          definition: BOOKS,
          version: null,
          pending: { version: 0, definition: BOOKS },
        }),
        'project.weekly': {
          kind: 'Project',
          id: 9,
          name: 'weekly',
          definition: {},
          unseenSince: '2026-11-26T10:00:00.000Z',
        },
      }),
    );
    expect(rows.map((r) => [r.address, r.status, r.drift])).toEqual([
      ['parser.books', 'NOT VISIBLE YET (404 since its create: not visible yet, or deleted)', true],
      ['project.weekly', 'NOT VISIBLE YET (404 since its create: not visible yet, or archived)', true],
    ]);
  });
});

describe('status of a parser the service shows below a version state records', () => {
  it('shows it lagging behind, never as drift (plan and drift read it so)', async () => {
    // A free rename answered 200 recorded version 1; a replica still shows version 0, and answers 404 for version 1.
    const v0 = {
      id: 'p-1',
      name: 'books',
      version: 0,
      status: 'FINISHED',
      error: null,
      createdAt: '2026-11-26T10:00:00.000Z',
      generatedAt: '2026-11-26T10:00:00.000Z',
      exampleResult: null,
      fields: [{ name: 'subtitle', type: 'text' }],
    };
    const services = {
      backend: {
        read: async () => stateOf({ 'parser.books': parserState({ definition: BOOKS, version: 1 }) }),
      },
      clients: {
        projects: { list: async () => [], listJobs: async () => [] },
        parsers: {
          list: async () => [{ ...v0, generated_at: v0.generatedAt }],
          get: async (_id: string, version?: number) => {
            if (version === 1)
              throw new ApiError({
                code: 'api.not-found',
                status: 404,
                method: 'GET',
                url: 'http://127.0.0.1/parsers/p-1/1',
                retryable: false,
                secrets: [],
              });
            return v0;
          },
        },
      },
    } as unknown as Services;
    const rows = await readStatus(services);
    expect(rows.map((r) => [r.address, r.version, r.status, r.drift])).toEqual([
      [
        'parser.books',
        0,
        'LAGGING (shows version 0, below version 1 that state records: not visible yet)',
        false,
      ],
    ]);
  });
});

describe('status of a parser generating', () => {
  const zone = process.env['TZ'];
  beforeAll(() => void (process.env['TZ'] = 'Asia/Kolkata'));
  afterAll(() => void (zone === undefined ? delete process.env['TZ'] : (process.env['TZ'] = zone)));

  it.each(['2026-11-26T10:00:00', '2026-11-26 10:00:00', '2026-11-26T10:00:00Z'])(
    'says for how long from its createdAt %j, a time with no zone read as UTC on any runner',
    async (createdAt) => {
      const generating = { id: 'p-1', name: 'books', version: 1, status: 'GENERATING', error: null };
      const details = { ...generating, createdAt, generatedAt: null, exampleResult: null, fields: [] };
      const services = {
        backend: {
          read: async () => stateOf({ 'parser.books': parserState({ definition: BOOKS, version: 1 }) }),
        },
        clients: {
          projects: { list: async () => [], listJobs: async () => [] },
          parsers: { list: async () => [generating], get: async () => details },
        },
      } as unknown as Services;
      const rows = await readStatus(services, () => Date.UTC(2026, 10, 26, 10, 5));
      expect(rows.map((r) => [r.address, r.generatingForMs])).toEqual([['parser.books', 300_000]]);
    },
  );
});
