import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import type { CliRun } from '../helpers/cli.js';
import { contractFolder } from '../helpers/contract-folder.js';
import {
  KEY_QUERY,
  PARSER_ORIGIN,
  SENTINEL_KEY,
  createTestApi,
  useNock,
  withUnmatched,
} from '../helpers/api.js';
import type { ApiClients } from '../../src/api/create-clients.js';
import type { ChangeResult } from '../../src/apply/apply-model.js';
import type { ResourceChange } from '../../src/plan/model.js';
import { recordResultDiffs } from '../../src/workspace/result-diffs.js';
import { parserState, stateOf } from '../helpers/state.js';

useNock();

/**
 * diff-results against details answers the emulator never gives: the seed leaves open what example_result holds
 * while a version generates, and a service may answer another version than the path asks for. Only two FINISHED
 * versions, the ones asked for, are compared; anything else is diff.no-results, never a diff of what is not a result.
 */
const folder = contractFolder('scrapeform-diff-results-');
const env = { SCRAPERAPI_API_KEY: SENTINEL_KEY, SCRAPEFORM_PARSER_URL: PARSER_ORIGIN };
const URL_A = 'https://books.example/a.html';

function finished(version: number, price: number): Record<string, unknown> {
  return {
    name: 'books',
    status: 'FINISHED',
    version,
    fields: [{ name: 'price', type: 'text' }],
    example_result: [{ url: URL_A, result: { price } }],
  };
}

async function diffResults(
  from: number,
  to: number,
  answers: [number | 'latest', Record<string, unknown>, number?][],
): Promise<CliRun> {
  await mkdir(path.dirname(folder.statePath()), { recursive: true });
  const definition = { urls: [URL_A], fields: { price: { description: 'Price' } } };
  await writeFile(
    folder.statePath(),
    JSON.stringify(stateOf({ 'parser.books': parserState({ version: 1, definition } as never) })),
  );
  for (const [version, body, status] of answers) {
    const at = version === 'latest' ? '/parsers/p-1' : `/parsers/p-1/${version}`;
    nock(PARSER_ORIGIN)
      .get(at)
      .query(KEY_QUERY)
      .reply(status ?? 200, body);
  }
  const { result, unmatched } = await withUnmatched(() =>
    runScrapeform(
      ['diff-results', 'books', '--from', String(from), '--to', String(to), '--state', folder.statePath()],
      { env },
    ),
  );
  expect(unmatched).toEqual([]);
  expect(result.stdout + result.stderr).not.toContain(SENTINEL_KEY);
  return result;
}

describe('diff-results: a version that is not a FINISHED one is not compared', () => {
  it('two FINISHED versions: their differences', async () => {
    const run = await diffResults(0, 1, [
      [0, finished(0, 1)],
      [1, finished(1, 2)],
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`example_result, version 0 -> 1:\n  ${URL_A}\n    ~ price: 1 -> 2\n`);
  });

  it.each([
    ['GENERATING', { status: 'GENERATING', fields: [] }, 'GENERATING'],
    [
      'FAILED',
      { status: 'FAILED', error: 'pages could not be downloaded', fields: [] },
      'FAILED: pages could not be downloaded',
    ],
    ['QUEUED (a status scrapeform does not know)', { status: 'QUEUED' }, 'QUEUED'],
  ])(
    'a %s version answered with an empty example_result: diff.no-results, not every value removed',
    async (_what, answer, said) => {
      const run = await diffResults(0, 1, [
        [0, finished(0, 1)],
        [1, { name: 'books', version: 1, example_result: [], ...answer }],
      ]);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr.split('\n')[0]).toBe(`error: version 1 has no example_result to compare (${said})`);
    },
  );

  it('a GENERATING version that still shows the example_result of the one before: not read as no difference', async () => {
    const run = await diffResults(1, 2, [
      [1, finished(1, 1)],
      [2, { ...finished(2, 1), status: 'GENERATING', fields: [] }],
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')[0]).toBe('error: version 2 has no example_result to compare (GENERATING)');
  });

  // Review: `fieldless` excused only an empty fields list, so details without `fields` (the published example
  // shows none, API-NOTES) ended diff-results with api.bad-response, though it compares example_result only.
  it.each([
    ['without fields', undefined],
    ['with fields null', null],
  ])('two FINISHED versions answered %s: their differences, no bad response', async (_what, fields) => {
    const bare = (version: number, price: number): Record<string, unknown> => {
      const { fields: _listed, ...rest } = finished(version, price);
      return fields === undefined ? rest : { ...rest, fields };
    };
    const run = await diffResults(0, 1, [
      [0, bare(0, 1)],
      [1, bare(1, 2)],
    ]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toBe(`example_result, version 0 -> 1:\n  ${URL_A}\n    ~ price: 1 -> 2\n`);
  });

  it('an answer of another version than the one asked for: refused, not "No differences"', async () => {
    // A service that ignores the version segment answers its latest for both.
    const run = await diffResults(0, 1, [
      [0, finished(3, 1)],
      [1, finished(3, 1)],
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.split('\n')[0]).toBe(
      'error: asked for version 0 of parser.books, the service answered version 3: nothing is compared',
    );
  });
});

describe("apply's result diffs: details that leave the fields out", () => {
  // Review: the reads excused an empty fields list only, so details without `fields` failed both reads with
  // api.bad-response, and the apply's report said nothing of what the regeneration changed.
  it('are compared all the same: the diff of the base version and the new one', async () => {
    const { fields: _listed, ...before } = finished(1, 1);
    const { fields: _too, ...after } = finished(2, 2);
    nock(PARSER_ORIGIN).get('/parsers/p-1/1').query(KEY_QUERY).reply(200, before);
    nock(PARSER_ORIGIN).get('/parsers/p-1/2').query(KEY_QUERY).reply(200, after);
    const api = createTestApi();
    const recorder = recordResultDiffs(api as unknown as ApiClients, { parsers: [] });
    const change = {
      kind: 'Parser',
      action: 'update',
      address: 'parser.books',
      id: 'p-1',
      baseVersion: 1,
      regenerates: true,
    } as unknown as ResourceChange;
    const done = {
      address: 'parser.books',
      ok: true,
      status: 'FINISHED',
      version: 2,
      id: 'p-1',
    } as ChangeResult;
    const direct = <T>(work: () => Promise<T>): Promise<T> => work();
    await recorder.hooks.beforeFirstCall?.(change, direct);
    await recorder.hooks.afterFinished?.(change, done, direct);
    expect(recorder.diffs()).toEqual([
      {
        address: 'parser.books',
        from: { id: 'p-1', version: 1 },
        to: { id: 'p-1', version: 2 },
        changes: [expect.objectContaining({ url: URL_A })],
        missing: [],
      },
    ]);
    expect(api.events.filter((e) => e.type === 'response').map((e) => e.status)).toEqual([200, 200]);
  });
});

describe('diff-results: a 404 names what was asked for', () => {
  // Review: a version the parser does not have was reported as "the id does not exist", as if the parser were gone.
  it('a version the parser does not have: named with the parser, and its latest version given', async () => {
    const run = await diffResults(0, 5, [
      [0, finished(0, 1)],
      [5, { detail: 'Not found.' }, 404],
      ['latest', finished(3, 1)],
    ]);
    expect([run.code, run.stdout, run.stderr]).toEqual([
      1,
      '',
      'error: parser.books (p-1) has no version 5 (the service answered 404 for it): nothing is compared\n' +
        '  hint: its latest version is 3: pick two FINISHED versions from 0 to 3\n',
    ]);
  });

  it('a parser that is gone: said so, not that one version is missing', async () => {
    const run = await diffResults(0, 1, [
      [0, { detail: 'Not found.' }, 404],
      [1, { detail: 'Not found.' }, 404],
      ['latest', { detail: 'Not found.' }, 404],
    ]);
    expect([run.code, run.stdout, run.stderr]).toEqual([
      1,
      '',
      'error: parser.books (p-1) is not at the service (it answered 404 for the parser and for version 0): nothing is compared\n' +
        '  hint: scrapeform plan re-reads the parser list and says what became of it\n',
    ]);
  });
  it('a parser whose latest version cannot be read: the 404 still named with the parser and the version', async () => {
    const run = await diffResults(0, 5, [
      [0, finished(0, 1)],
      [5, { detail: 'Not found.' }, 404],
      ['latest', { detail: 'not an object of details' }, 200],
    ]);
    expect([run.code, run.stdout, run.stderr]).toEqual([
      1,
      '',
      'error: parser.books (p-1) has no version 5 (the service answered 404 for it): nothing is compared\n' +
        '  hint: pick two FINISHED versions the parser has; scrapeform plan re-reads the parser list and says whether it is still there\n',
    ]);
  });
});

describe('diff-results: a version too large to hold exactly', () => {
  it('is a usage error, never rounded and sent (99999999999999999999 was asked as 100000000000000000000)', async () => {
    const { result, unmatched } = await withUnmatched(() =>
      runScrapeform(
        [
          'diff-results',
          'books',
          '--from',
          '99999999999999999999',
          '--to',
          '1',
          '--state',
          folder.statePath(),
        ],
        { env },
      ),
    );
    expect(unmatched).toEqual([]);
    expect([result.code, result.stdout, result.stderr]).toEqual([
      1,
      '',
      'error: --from takes a whole number, got "99999999999999999999"\n' +
        '  hint: whole numbers up to 9007199254740991 are held exactly\n',
    ]);
  });
});
