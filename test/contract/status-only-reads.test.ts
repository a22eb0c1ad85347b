import nock from 'nock';
import { afterEach, describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import type { CliRun } from '../helpers/cli.js';
import { KEY_QUERY, NOCK_ENV, PARSER_ORIGIN, useNock, withUnmatched } from '../helpers/api.js';
import { parserState, stateOf } from '../helpers/state.js';
import { tempProjects } from '../helpers/temp-projects.js';
import type { State } from '../../src/state/model.js';

/**
 * `parse` reads a parser's details for its status alone: details that say FINISHED and leave the fields out (the
 * published details example shows none, API-NOTES) are no reason to refuse the parse. Reads that plan from the
 * fields still require them (details-shapes.test.ts).
 */

useNock();

const project = tempProjects('scrapeform-status-only-');
const home = process.cwd();
afterEach(() => process.chdir(home));

async function scrapeform(state: State, args: string[]): Promise<CliRun> {
  const dir = await project({ '.scrapeform/state.json': JSON.stringify(state) });
  return runScrapeform(['--chdir', dir, ...args], {
    env: NOCK_ENV,
  });
}

describe('parse: the details of the version it parses with', () => {
  it.each([
    ['left out', {}],
    ['null', { fields: null }],
  ])('FINISHED with the fields %s: the page is parsed', async (_what, fields) => {
    const parser = nock(PARSER_ORIGIN);
    parser
      .get('/parsers/p-1/0')
      .query(KEY_QUERY)
      .reply(200, { name: 'books', status: 'FINISHED', error: null, version: 0, ...fields });
    const parse = parser
      .get('/parse/p-1/0')
      .query({ ...KEY_QUERY, url: 'https://books.example/a.html' })
      .reply(200, { parser: 'p-1', version: 0, result: { title: 'A Light in the Attic' } });
    const state = stateOf({ 'parser.books': parserState({ definition: null }) });
    const { result: run, unmatched } = await withUnmatched(() =>
      scrapeform(state, ['parse', 'books', 'https://books.example/a.html', '--version', '0']),
    );
    expect([run.code, run.stderr, parse.isDone(), unmatched]).toEqual([0, '', true, []]);
    expect(JSON.parse(run.stdout)).toEqual({
      parser: 'p-1',
      version: 0,
      result: { title: 'A Light in the Attic' },
    });
  });
});

describe('test: the expect checks of a parser the list does not show yet', () => {
  it('details FINISHED with the fields left out: the check runs (nothing is planned from them)', async () => {
    const parser = nock(PARSER_ORIGIN);
    // The list lags behind: the parser's details are read for its status.
    parser.get('/parsers').query(KEY_QUERY).reply(200, []);
    parser
      .get('/parsers/p-1')
      .query(KEY_QUERY)
      .reply(200, { name: 'books', status: 'FINISHED', error: null, version: 0 });
    const parse = parser
      .get(/^\/parse\/p-1/)
      .query({ ...KEY_QUERY, url: 'https://books.example/a.html' })
      .reply(200, { parser: 'p-1', version: 0, result: { title: 'A Light in the Attic' } });
    const state = stateOf({ 'parser.books': parserState({ definition: null }) });
    const dir = await project({
      '.scrapeform/state.json': JSON.stringify(state),
      'books.yaml':
        'kind: Parser\nname: books\nurls: [https://books.example/a.html]\nfields:\n  title: { description: Book title }\nexpect:\n  - url: https://books.example/a.html\n    result: { title: A Light in the Attic }\n',
    });
    const { result: run, unmatched } = await withUnmatched(() =>
      runScrapeform(['--chdir', dir, 'test', '--json'], {
        env: NOCK_ENV,
      }),
    );
    expect([run.code, parse.isDone(), unmatched], run.stdout + run.stderr).toEqual([0, true, []]);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'passed' });
  });
});
