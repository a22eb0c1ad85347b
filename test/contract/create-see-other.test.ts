import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { contractFolder } from '../helpers/contract-folder.js';
import {
  KEY_QUERY,
  NOCK_ENV,
  PARSER_ORIGIN,
  PIPELINE_ORIGIN,
  counted,
  useNock,
  withUnmatched,
} from '../helpers/api.js';

/**
 * A create answered 303 See Other: the POST was processed, and the answer points at where to GET its outcome (RFC
 * 9110 section 15.4.4). The transport does not follow it (a POST is never turned into a GET). What its Location
 * names is read by id and recorded at once when it is an object of the create's name that was not there before the
 * POST; a 303 may as well name an existing object the POST was found equivalent to (RFC 9110 section 9.3.3), so
 * anything else is looked for by name, as after a lost answer, and never sent again blindly.
 */
useNock();

const folder = contractFolder('scrapeform-see-other-');
const { statePath, readState } = folder;

const parserManifest = (urls = 'https://books.example/a.html') =>
  `kind: Parser\nname: a\nurls: [${urls}]\nfields:\n  title: { description: Book title }\n`;

const summary = (id: string, name = 'a', version = 0) => ({
  id,
  name,
  status: 'FINISHED',
  error: null,
  generated_at: null,
  version,
});
const details = (name = 'a', version = 0, status = 'FINISHED') => ({
  name,
  status,
  version,
  fields: status === 'FINISHED' ? [{ name: 'title', type: 'text' }] : null,
  example_result: [],
});

function scrapeform(args: string[]) {
  return withUnmatched(() =>
    runScrapeform([...args, '--state', statePath(), folder.dir()], { env: NOCK_ENV }),
  );
}

/** Every POST to `pathname` answered 303 to `location`, counted. */
function seeOther(origin: string, pathname: string, location: string): { n: number } {
  const posts = { n: 0 };
  nock(origin)
    .post(pathname)
    .query(true)
    .reply(() => {
      posts.n++;
      return [303, 'See Other', { location }];
    })
    .persist();
  return posts;
}

describe('apply: a parser create answered 303 See Other', () => {
  it('naming the new parser: read by id and recorded at once, one POST, no list after it, and the next plan is empty', async () => {
    await writeFile(path.join(folder.dir(), 'a.yaml'), parserManifest());
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, []);
    const posts = seeOther(PARSER_ORIGIN, '/parsers', '/parsers/p-9');
    nock(PARSER_ORIGIN)
      .get('/parsers/p-9')
      .query(KEY_QUERY)
      .reply(200, details('a', 0, 'GENERATING'));
    nock(PARSER_ORIGIN).get('/parsers/p-9/0').query(KEY_QUERY).reply(200, details()).persist();
    const { result: run, unmatched } = await scrapeform(['apply', '--auto-approve']);
    nock.cleanAll();
    expect([run.code, posts.n, unmatched]).toEqual([0, 1, []]);
    expect(run.stdout).toContain('✓ parser.a create p-9 version 0');
    const state = await readState();
    expect([state.resources['parser.a'].id, state.resources['parser.a'].version, state.intents]).toEqual([
      'p-9',
      0,
      undefined,
    ]);

    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, [summary('p-9')]);
    const { result: again } = await scrapeform(['plan', '--detailed-exitcode']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No changes.');
  });

  it('naming a parser of another name: not taken; the list is read, and the new parser of the name it shows is', async () => {
    await writeFile(path.join(folder.dir(), 'a.yaml'), parserManifest());
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, []);
    const posts = seeOther(PARSER_ORIGIN, '/parsers', `${PARSER_ORIGIN}/parsers/p-other`);
    const read = nock(PARSER_ORIGIN)
      .get('/parsers/p-other')
      .query(KEY_QUERY)
      .reply(200, details('someone-elses'));
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, [summary('p-other', 'someone-elses'), summary('p-9')]);
    nock(PARSER_ORIGIN).get('/parsers/p-9/0').query(KEY_QUERY).reply(200, details()).persist();
    const { result: run, unmatched } = await scrapeform(['apply', '--auto-approve']);
    nock.cleanAll();
    expect([run.code, posts.n, read.isDone(), unmatched]).toEqual([0, 1, true, []]);
    expect((await readState()).resources['parser.a'].id).toBe('p-9');
  });

  it('naming nothing it can read (a 404, a page of a gateway): looked for by name, and without it not sent again', async () => {
    for (const [location, read] of [
      ['/parsers/p-9', true],
      ['/maintenance', false],
    ] as const) {
      await mkdir(path.dirname(statePath()), { recursive: true });
      await writeFile(
        statePath(),
        JSON.stringify({ format_version: 1, serial: 0, lineage: 'x', resources: {} }),
      );
      await writeFile(path.join(folder.dir(), 'a.yaml'), parserManifest());
      nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, []);
      const posts = seeOther(PARSER_ORIGIN, '/parsers', location);
      if (read) nock(PARSER_ORIGIN).get('/parsers/p-9').query(KEY_QUERY).reply(404, { error: 'Not Found' });
      // The list read to look for it does not show it yet.
      nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, []);
      const { result: run, unmatched } = await scrapeform(['apply', '--auto-approve']);
      nock.cleanAll();
      expect([run.code, posts.n, unmatched]).toEqual([1, 1, []]);
      expect(run.stdout).toContain(
        `the create of "a" got no clear answer (POST ${PARSER_ORIGIN}/parsers: 303: redirected to ${PARSER_ORIGIN}${location} with 303, which would turn the POST into a GET; not followed) and the list does not show it yet; it was not sent again`,
      );
      // Kept as sent and unconfirmed: the next plan records it once a list shows it, and sends it again only with
      // --recreate (it was kept, unmarked, and the apply ended on api.redirect).
      expect((await readState()).intents['parser.a'].unconfirmed).toEqual(expect.any(String));
    }
  });

  it('naming the parser it replaces: never taken for the new one (the replace would then delete it)', async () => {
    await mkdir(path.dirname(statePath()), { recursive: true });
    const definition = {
      urls: ['https://books.example/a.html'],
      scraperParams: {},
      fields: [{ name: 'title', description: 'Book title' }],
    };
    await writeFile(
      statePath(),
      JSON.stringify({
        format_version: 1,
        serial: 1,
        lineage: 'see-other',
        resources: {
          'parser.a': {
            kind: 'Parser',
            id: 'p-old',
            name: 'a',
            version: 1,
            definition,
            descriptionsKnown: true,
          },
        },
      }),
    );
    // Another example page: the service cannot change it, so this is a replace (a new parser, then a delete).
    await writeFile(path.join(folder.dir(), 'a.yaml'), parserManifest('https://books.example/b.html'));
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .times(2)
      .reply(200, [summary('p-old', 'a', 1)]);
    const posts = seeOther(PARSER_ORIGIN, '/parsers', '/parsers/p-old');
    const read = nock(PARSER_ORIGIN).get('/parsers/p-old').query(KEY_QUERY).reply(200, details('a', 1));
    nock(PARSER_ORIGIN).get('/parsers/p-old/1').query(KEY_QUERY).reply(200, details('a', 1)).persist();
    const deletes = counted(nock(PARSER_ORIGIN).delete(/.*/).query(true), [204, '']);
    const { result: run, unmatched } = await scrapeform(['apply', '--auto-approve', '--allow-destroy']);
    nock.cleanAll();
    // Read, and not taken: it was there before the POST.
    expect([run.code, posts.n, read.isDone(), deletes.n, unmatched]).toEqual([1, 1, true, 0, []]);
    expect(run.stdout).toContain('the list does not show it yet; it was not sent again');
    expect((await readState()).resources['parser.a'].id).toBe('p-old');
  });
});

describe('apply: a project create answered 303 See Other', () => {
  it('naming the new project: read by id and recorded at once, and the next plan is empty', async () => {
    await writeFile(
      path.join(folder.dir(), 'p.yaml'),
      'kind: Project\nname: nightly\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/] }\nscrapingInterval: daily\n',
    );
    const project = {
      id: 522,
      name: 'nightly',
      schedulingEnabled: true,
      scrapingInterval: 'daily',
      projectType: 'urls',
      projectInput: { type: 'list', list: ['https://books.example/'] },
    };
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, []);
    const posts = seeOther(PIPELINE_ORIGIN, '/api/projects', `${PIPELINE_ORIGIN}/api/projects/522`);
    nock(PIPELINE_ORIGIN).get('/api/projects/522').query(KEY_QUERY).reply(200, project).persist();
    const { result: run, unmatched } = await scrapeform(['apply', '--auto-approve']);
    nock.cleanAll();
    expect([run.code, posts.n, unmatched]).toEqual([0, 1, []]);
    const state = await readState();
    expect([state.resources['project.nightly'].id, state.intents]).toEqual([522, undefined]);

    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, [project]);
    const { result: again } = await scrapeform(['plan', '--detailed-exitcode']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No changes.');
  });
});
