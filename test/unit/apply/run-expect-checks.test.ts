import { describe, expect, it } from 'vitest';
import type { ApiClients } from '../../../src/api/create-clients.js';
import { runExpectChecks } from '../../../src/apply/run-expect-checks.js';
import { desiredParser } from '../../helpers/desired.js';
import { parserState, stateOf } from '../../helpers/state.js';

const books = desiredParser('books', [{ name: 'title', description: 'Title' }], {
  expect: [
    { url: 'https://books.example/a.html', result: { title: 'A' } },
    { url: 'https://books.example/b.html', result: { title: 'B' } },
  ],
});

const state = stateOf({
  'parser.books': parserState({ definition: { urls: books.urls, scraperParams: {}, fields: books.fields } }),
});

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
    const clients = { parsers: { parse, list: async () => [] } } as unknown as ApiClients;
    const running = runExpectChecks(clients, [books], state, undefined, interrupt.signal);
    for (let i = 0; i < 100 && asked.length === 0; i++) await new Promise((r) => setTimeout(r, 1));
    interrupt.abort();
    const results = await running;
    expect(asked).toEqual(['https://books.example/a.html']);
    expect(results.map((r) => [r.url, r.ok, r.error])).toEqual([
      ['https://books.example/a.html', false, 'The operation was aborted'],
    ]);
  });
});
