import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { contractFolder } from '../helpers/contract-folder.js';
import { KEY_QUERY, PARSER_ORIGIN, SENTINEL_KEY, counted, useNock } from '../helpers/api.js';

useNock();

const folder = contractFolder('scrapeform-example-pages-');
const { statePath } = folder;
const env = { SCRAPERAPI_API_KEY: SENTINEL_KEY, SCRAPEFORM_PARSER_URL: PARSER_ORIGIN };
const PAGE_A = 'https://books.example/a.html';
const PAGE_B = 'https://books.example/b.html';

/** A manifest declaring pages a and b, and a live parser of its name whose details give example results for `shown`. */
async function liveParserShowing(shown: string[]): Promise<void> {
  await writeFile(
    path.join(folder.dir(), 'a.yaml'),
    `kind: Parser\nname: a\nurls: [${PAGE_A}, ${PAGE_B}]\nfields:\n  title: { description: Book title }\n`,
  );
  nock(PARSER_ORIGIN)
    .get('/parsers')
    .query(KEY_QUERY)
    .reply(200, [{ id: 'p-1', name: 'a', status: 'FINISHED', error: null, generated_at: null, version: 2 }])
    .persist();
  nock(PARSER_ORIGIN)
    .get('/parsers/p-1')
    .query(KEY_QUERY)
    .reply(200, {
      name: 'a',
      status: 'FINISHED',
      version: 2,
      fields: [{ name: 'title', type: 'text' }],
      example_result: shown.map((url) => ({ url, result: { title: 'T' } })),
    })
    .persist();
}

const UNSHOWN_WARNING = `warning: parser.a: the details of p-1 give example results for 1 of the 2 urls the manifest declares, not for ${PAGE_B}; pages an answer leaves out are not read as a difference, so no replace is planned (if p-1 was made without them, delete it, and the next plan creates the parser with them)`;

describe('adoption: details that give example results for only some of the declared pages', () => {
  it('plan: adopts, and says which pages were not shown; no replace', async () => {
    await liveParserShowing([PAGE_A]);
    const run = await runScrapeform(['plan', '--state', statePath(), folder.dir()], {
      env,
    });
    nock.cleanAll();
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'Plan: 1 to adopt (no regeneration, no credits).\n\n<= parser.a (p-1)  adopt\n',
    );
    expect(run.stdout).toContain(UNSHOWN_WARNING);
    expect(run.stdout).not.toContain('-/+ parser.a');
    expect(run.stdout).not.toContain('POST /parsers');
  });

  it('apply, destroys allowed: no POST and no DELETE; the live parser is recorded as adopted', async () => {
    await liveParserShowing([PAGE_A]);
    const posts = counted(nock(PARSER_ORIGIN).post('/parsers'));
    const deletes = counted(nock(PARSER_ORIGIN).delete('/parsers/p-1').query(true));
    const run = await runScrapeform(
      ['apply', '--auto-approve', '--allow-adopt', '--allow-destroy', '--state', statePath(), folder.dir()],
      { env },
    );
    nock.cleanAll();
    expect([posts.n, deletes.n]).toEqual([0, 0]);
    expect(run.code).toBe(0);
    const state = JSON.parse(await readFile(statePath(), 'utf8')) as {
      resources: Record<string, { id: string; version: number }>;
    };
    expect([state.resources['parser.a']?.id, state.resources['parser.a']?.version]).toEqual(['p-1', 2]);
  });

  it('a page shown that the manifest does not declare still differs: the replace is planned, as before', async () => {
    await liveParserShowing([PAGE_A, 'https://books.example/c.html']);
    const run = await runScrapeform(['plan', '--state', statePath(), folder.dir()], {
      env,
    });
    nock.cleanAll();
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      "    # urls differ from the live parser's example pages: a new parser replaces it\n",
    );
    expect(run.stdout).not.toContain('give example results for');
  });
});
