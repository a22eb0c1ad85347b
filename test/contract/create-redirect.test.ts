import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { contractFolder } from '../helpers/contract-folder.js';
import { KEY_QUERY, NOCK_ENV, PARSER_ORIGIN, SENTINEL_KEY, useNock, withUnmatched } from '../helpers/api.js';

/**
 * A create answered with a redirect, which the transport does not follow (a 301 or 302 would turn the POST into a
 * GET; a 307 or 308 would send it again, to another origin with the key; a 3xx without a Location points nowhere):
 * a proxy or load balancer may answer so after forwarding the POST (a 302 is the old Post/Redirect/Get), so it may
 * have landed. It is looked for by name, as after a lost answer, and never sent again blindly: it used to end the
 * apply on the redirect without a look, the object it made unrecorded, and its intent not marked unconfirmed.
 */
useNock();

const folder = contractFolder('scrapeform-create-redirect-');
const { statePath, readState } = folder;

const parserManifest =
  'kind: Parser\nname: a\nurls: [https://books.example/a.html]\nfields:\n  title: { description: Book title }\n';
const summary = (id: string, name = 'a', version = 0) => ({
  id,
  name,
  status: 'FINISHED',
  error: null,
  generated_at: null,
  version,
});
const details = {
  name: 'a',
  status: 'FINISHED',
  version: 0,
  fields: [{ name: 'title', type: 'text' }],
  example_result: [],
};

function scrapeform(args: string[]) {
  return withUnmatched(() =>
    runScrapeform([...args, '--state', statePath(), folder.dir()], { env: NOCK_ENV }),
  );
}

async function freshState(): Promise<void> {
  await mkdir(path.dirname(statePath()), { recursive: true });
  await writeFile(statePath(), JSON.stringify({ format_version: 1, serial: 0, lineage: 'x', resources: {} }));
  await writeFile(path.join(folder.dir(), 'a.yaml'), parserManifest);
}

/** Every POST to `pathname` answered `status` (with `location`, when given), counted. */
function redirected(origin: string, pathname: string, status: number, location?: string): { n: number } {
  const posts = { n: 0 };
  nock(origin)
    .post(pathname)
    .query(true)
    .reply(() => {
      posts.n++;
      return [status, 'moved', location !== undefined ? { location } : {}];
    })
    .persist();
  return posts;
}

describe('apply: a parser create answered with a redirect not followed', () => {
  it('a same-origin 302 (Post/Redirect/Get): looked for by name, and the new parser the list shows is recorded', async () => {
    await freshState();
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, []);
    const posts = redirected(PARSER_ORIGIN, '/parsers', 302, '/parsers/p-9');
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, [summary('p-9')]);
    nock(PARSER_ORIGIN).get('/parsers/p-9/0').query(KEY_QUERY).reply(200, details).persist();
    const { result: run, unmatched } = await scrapeform(['apply', '--auto-approve']);
    nock.cleanAll();
    expect([run.code, posts.n, unmatched]).toEqual([0, 1, []]);
    const state = await readState();
    expect([state.resources['parser.a'].id, state.intents]).toEqual(['p-9', undefined]);
  });

  it.each([307, 308] as const)(
    'a same-origin %i: the POST is not sent again to its Location (it may have landed); looked for by name and recorded',
    async (status) => {
      // A proxy in front of the service may have forwarded the create before redirecting it: sent again to the
      // Location, it was a second parser, paid twice.
      await freshState();
      nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, []);
      const posts = redirected(PARSER_ORIGIN, '/parsers', status, '/v2/parsers');
      const resent = { n: 0 };
      nock(PARSER_ORIGIN)
        .post('/v2/parsers')
        .reply(() => {
          resent.n++;
          return [201, { id: 'p-10', version: 0 }];
        })
        .persist();
      nock(PARSER_ORIGIN)
        .get('/parsers')
        .query(KEY_QUERY)
        .reply(200, [summary('p-9')]);
      nock(PARSER_ORIGIN).get('/parsers/p-9/0').query(KEY_QUERY).reply(200, details).persist();
      const { result: run, unmatched } = await scrapeform(['apply', '--auto-approve']);
      nock.cleanAll();
      expect([run.code, posts.n, resent.n, unmatched]).toEqual([0, 1, 0, []]);
      const state = await readState();
      expect([state.resources['parser.a'].id, state.intents]).toEqual(['p-9', undefined]);
      expect(`${run.stdout}${run.stderr}`).not.toContain(SENTINEL_KEY);
    },
  );

  it.each([
    [301, '/v2/parsers'],
    [307, 'https://elsewhere.test/parsers'],
    [308, 'https://elsewhere.test/parsers'],
    [302, undefined],
  ] as const)(
    '%i to %s: looked for by name; not shown, it is kept unconfirmed and not sent again',
    async (status, location) => {
      await freshState();
      nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, []);
      const posts = redirected(PARSER_ORIGIN, '/parsers', status, location);
      // The list read to look for it does not show it yet.
      const look = nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, []);
      const { result: run, unmatched } = await scrapeform(['apply', '--auto-approve']);
      nock.cleanAll();
      expect([run.code, posts.n, look.isDone(), unmatched]).toEqual([1, 1, true, []]);
      expect(run.stdout).toContain(
        `the create of "a" got no clear answer (POST ${PARSER_ORIGIN}/parsers: ${status}`,
      );
      expect(run.stdout).toContain('and the list does not show it yet; it was not sent again');
      expect((await readState()).intents['parser.a'].unconfirmed).toEqual(expect.any(String));
      expect(`${run.stdout}${run.stderr}`).not.toContain(SENTINEL_KEY);
    },
  );
});
