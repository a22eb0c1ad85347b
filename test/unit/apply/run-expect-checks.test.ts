import { describe, expect, it } from 'vitest';
import type { ApiClients } from '../../../src/api/create-clients.js';
import { runExpectChecks } from '../../../src/apply/run-expect-checks.js';
import { desiredParser } from '../../helpers/desired.js';
import { parserState, stateOf } from '../../helpers/state.js';
import { until } from '../../helpers/until.js';

const books = desiredParser('books', [{ name: 'title', description: 'Title' }], {
  expect: [
    { url: 'https://books.example/a.html', result: { title: 'A' } },
    { url: 'https://books.example/b.html', result: { title: 'B' } },
  ],
});

const state = stateOf({
  'parser.books': parserState({ definition: { urls: books.urls, scraperParams: {}, fields: books.fields } }),
});

const listedBooks = { id: 'p-1', name: 'books', status: 'FINISHED', error: null, version: 0 };

describe('expect checks', () => {
  it('Ctrl-C calls off the check under way and starts no other', async () => {
    const interrupt = new AbortController();
    const asked: string[] = [];
    // A service that never answers a parse: only the signal ends the call.
    const parse = (_id: string, _version: unknown, url: string, _params: unknown, signal?: AbortSignal) =>
      new Promise((_resolve, reject) => {
        asked.push(url);
        signal?.addEventListener('abort', () => reject(new Error('The operation was aborted')), {
          once: true,
        });
      });
    const clients = { parsers: { parse, list: async () => [listedBooks] } } as unknown as ApiClients;
    const running = runExpectChecks(clients, [books], state, undefined, interrupt.signal);
    await until('the first check asked for its parse', () => asked.length > 0, { everyMs: 1 });
    interrupt.abort();
    const results = await running;
    expect(asked).toEqual(['https://books.example/a.html']);
    expect(results.map((r) => [r.url, r.ok, r.error])).toEqual([
      [
        'https://books.example/a.html',
        false,
        'interrupted: the parse was sent and may have been charged; its answer was not awaited',
      ],
    ]);
  });

  it('a parser the list does not show, or shows behind state, is read by id: no parse unless FINISHED', async () => {
    const parsed: string[] = [];
    const read: string[] = [];
    const pending = stateOf({
      'parser.books': parserState({
        definition: { urls: books.urls, scraperParams: {}, fields: books.fields },
        pending: { version: 1, definition: { urls: books.urls, scraperParams: {}, fields: books.fields } },
      }),
    });
    const clients = (listed: unknown[], get: () => Promise<unknown>): ApiClients =>
      ({
        parsers: {
          list: async () => listed,
          get: async (id: string) => (read.push(id), get()),
          parse: async (_id: string, _v: unknown, url: string) => (
            parsed.push(url),
            { result: { title: 'A' } }
          ),
        },
      }) as unknown as ApiClients;
    const errors = async (c: ApiClients, s = state): Promise<(string | undefined)[]> =>
      (await runExpectChecks(c, [books], s)).map((r) => r.error);

    // Deleted outside scrapeform (or not visible yet): the read's error, and no parse.
    const gone = clients([], () => Promise.reject(new Error('GET /parsers/p-1 answered 404')));
    expect(await errors(gone)).toEqual([
      'GET /parsers/p-1 answered 404; nothing was parsed',
      'GET /parsers/p-1 answered 404; nothing was parsed',
    ]);
    // The list still shows version 0; state knows of version 1, which the details show generating.
    const behind = clients([listedBooks], async () => ({ ...listedBooks, version: 1, status: 'GENERATING' }));
    expect(await errors(behind, pending)).toEqual([
      'version 1 is still generating; the checks run once it is FINISHED',
      'version 1 is still generating; the checks run once it is FINISHED',
    ]);
    // The details lag as well: the version state knows of is not shown, so it is not taken for FINISHED.
    const lagging = clients([listedBooks], async () => listedBooks);
    expect(await errors(lagging, pending)).toEqual([
      'version 1 is not shown by the service yet (it shows version 0); the checks run once it is FINISHED',
      'version 1 is not shown by the service yet (it shows version 0); the checks run once it is FINISHED',
    ]);
    expect(parsed).toEqual([]);
    // Listed FINISHED at the version state knows: no read by id, each page parsed once.
    expect(await errors(clients([listedBooks], () => Promise.reject(new Error('not read'))))).toEqual([
      undefined,
      undefined,
    ]);
    expect(parsed).toEqual(['https://books.example/a.html', 'https://books.example/b.html']);
    expect(read).toEqual(['p-1', 'p-1', 'p-1']);
  });
});
