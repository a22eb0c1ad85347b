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
  SENTINEL_KEY,
  counted,
  useNock,
  withUnmatched,
} from '../helpers/api.js';

/**
 * A create answered 2xx with the id of an object that was there before the POST: a service that answers a POST
 * of a name it holds with that object (an upsert, or "already exists" as a success) gives no new object. The seed
 * says a create gives a new parser (version 0); what this answer made is unknown, so it is looked for by name, as
 * after a lost answer, and never taken for the new one: a replace would wait on the old parser, then delete it.
 */
useNock();

const folder = contractFolder('scrapeform-names-existing-');
const { statePath, readState } = folder;

const definition = {
  urls: ['https://books.example/a.html'],
  scraperParams: {},
  fields: [{ name: 'title', description: 'Book title' }],
};
const summary = (id: string, version = 1) => ({
  id,
  name: 'a',
  status: 'FINISHED',
  error: null,
  generated_at: null,
  version,
});
const details = (version = 1) => ({
  name: 'a',
  status: 'FINISHED',
  version,
  fields: [{ name: 'title', type: 'text' }],
  example_result: [],
});

async function replaceSetUp(): Promise<void> {
  await mkdir(path.dirname(statePath()), { recursive: true });
  await writeFile(
    statePath(),
    JSON.stringify({
      format_version: 1,
      serial: 1,
      lineage: 'names-existing',
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
  await writeFile(
    path.join(folder.dir(), 'a.yaml'),
    'kind: Parser\nname: a\nurls: [https://books.example/b.html]\nfields:\n  title: { description: Book title }\n',
  );
}

describe('apply: a parser create answered with the id of a parser that was there before it', () => {
  it('the old parser of a replace: never taken for the new one, nor deleted; looked for by name, not sent again', async () => {
    await replaceSetUp();
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .times(2)
      .reply(200, [summary('p-old')]);
    const posts = counted(nock(PARSER_ORIGIN).post('/parsers'), [201, { id: 'p-old', version: 1 }]);
    nock(PARSER_ORIGIN)
      .get(/^\/parsers\/p-old/)
      .query(KEY_QUERY)
      .reply(200, details())
      .persist();
    const deletes = counted(nock(PARSER_ORIGIN).delete(/.*/).query(true), [204, '']);
    const { result: run, unmatched } = await withUnmatched(() =>
      runScrapeform(['apply', '--auto-approve', '--allow-destroy', '--state', statePath(), folder.dir()], {
        env: NOCK_ENV,
      }),
    );
    nock.cleanAll();
    expect([run.code, posts.n, deletes.n, unmatched]).toEqual([1, 1, 0, []]);
    expect(run.stdout).toContain(
      `the create of "a" got no clear answer (POST ${PARSER_ORIGIN}/parsers: 201: unexpected response from POST /parsers: the answer names parser p-old, which was there before the POST, not a new one) and the list does not show it yet; it was not sent again`,
    );
    const state = await readState();
    expect(state.resources['parser.a']).toEqual({
      kind: 'Parser',
      id: 'p-old',
      name: 'a',
      version: 1,
      definition,
      descriptionsKnown: true,
    });
    // Kept as sent and unconfirmed: the next plan takes a new parser of that name once a list shows it.
    expect(state.intents['parser.a'].unconfirmed).toEqual(expect.any(String));
    expect(JSON.stringify([run.stdout, run.stderr, state])).not.toContain(SENTINEL_KEY);
  });
});

describe('apply: a project create answered with the id of a project state manages', () => {
  it('is not recorded at a second address: looked for by name, and the project it names is left as it was', async () => {
    await mkdir(path.dirname(statePath()), { recursive: true });
    const input = { type: 'list', list: ['https://books.example/'] };
    const nightly = {
      name: 'nightly',
      projectType: 'urls',
      projectInput: input,
      scrapingInterval: 'daily',
      schedulingEnabled: true,
    };
    await writeFile(
      statePath(),
      JSON.stringify({
        format_version: 1,
        serial: 1,
        lineage: 'names-existing',
        resources: { 'project.nightly': { kind: 'Project', id: 522, name: 'nightly', definition: nightly } },
      }),
    );
    const manifest = (name: string) =>
      `kind: Project\nname: ${name}\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/] }\nscrapingInterval: daily\n`;
    await writeFile(path.join(folder.dir(), 'nightly.yaml'), manifest('nightly'));
    await writeFile(path.join(folder.dir(), 'weekly.yaml'), manifest('weekly'));
    const live = { id: 522, ...nightly };
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).times(2).reply(200, [live]);
    const posts = counted(nock(PIPELINE_ORIGIN).post('/api/projects').query(KEY_QUERY), [201, live]);
    const { result: run, unmatched } = await withUnmatched(() =>
      runScrapeform(['apply', '--auto-approve', '--state', statePath(), folder.dir()], { env: NOCK_ENV }),
    );
    nock.cleanAll();
    expect([run.code, posts.n, unmatched]).toEqual([1, 1, []]);
    expect(run.stdout).toContain(
      `the create of "weekly" got no clear answer (POST ${PIPELINE_ORIGIN}/api/projects?api_key=***: 201: unexpected response from POST /api/projects: the answer names project 522, which was there before the POST, not a new one) and the list does not show it yet; it was not sent again`,
    );
    const state = await readState();
    expect([Object.keys(state.resources), state.intents['project.weekly'].unconfirmed]).toEqual([
      ['project.nightly'],
      expect.any(String),
    ]);
  });
});

describe('apply: a project create answered with the id of a project an earlier create of the same apply made', () => {
  it('is no new project either: one address records it, the other is looked for by name', async () => {
    const manifest = (name: string) =>
      `kind: Project\nname: ${name}\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/] }\nscrapingInterval: daily\n`;
    await writeFile(path.join(folder.dir(), 'first.yaml'), manifest('first'));
    await writeFile(path.join(folder.dir(), 'second.yaml'), manifest('second'));
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, []);
    // Both POSTs are answered with project 7: the second answer names what the first made.
    const made = (body: { name: string }) => ({ id: 7, ...body });
    const posts = { n: 0 };
    nock(PIPELINE_ORIGIN)
      .post('/api/projects')
      .query(KEY_QUERY)
      .reply((_uri, body) => {
        posts.n++;
        return [201, made(body as { name: string })];
      })
      .persist();
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, [made({ name: 'first' })]);
    nock(PIPELINE_ORIGIN)
      .get('/api/projects/7')
      .query(KEY_QUERY)
      .reply(200, made({ name: 'first' }))
      .persist();
    const { result: run, unmatched } = await withUnmatched(() =>
      runScrapeform(['apply', '--auto-approve', '--concurrency', '1', '--state', statePath(), folder.dir()], {
        env: NOCK_ENV,
      }),
    );
    nock.cleanAll();
    expect([run.code, posts.n, unmatched]).toEqual([1, 2, []]);
    const state = await readState();
    const recorded = Object.entries(state.resources).map(([address, r]) => [
      address,
      (r as { id: number }).id,
    ]);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]?.[1]).toBe(7);
    const other = recorded[0]?.[0] === 'project.first' ? 'second' : 'first';
    expect(run.stdout).toContain(
      `the create of "${other}" got no clear answer (POST ${PIPELINE_ORIGIN}/api/projects?api_key=***: 201: unexpected response from POST /api/projects: the answer names project 7, which was there before the POST, not a new one)`,
    );
    expect(state.intents[`project.${other}`].unconfirmed).toEqual(expect.any(String));
  });
});
