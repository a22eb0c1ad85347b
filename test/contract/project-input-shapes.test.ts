import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { contractFolder } from '../helpers/contract-folder.js';
import { PARSER_ORIGIN, PIPELINE_ORIGIN, SENTINEL_KEY, useNock, withUnmatched } from '../helpers/api.js';

/**
 * A project's `projectInput.list` is an array of entries (seed 2, "projectInput variants"). The seed shows no
 * project answer, and a service that keeps the entries as one newline-delimited text (as a webhook input's address
 * returns them) would answer a string there. The plan summarises a changed input from the live entries, so an
 * answer of another shape is a bad response naming the field, never an internal error with a stack trace.
 */
useNock();

const folder = contractFolder('scrapeform-input-shapes-');
const env = {
  SCRAPERAPI_API_KEY: SENTINEL_KEY,
  SCRAPEFORM_PARSER_URL: PARSER_ORIGIN,
  SCRAPEFORM_PIPELINE_URL: PIPELINE_ORIGIN,
};

describe('plan: a project whose input entries are not a list', () => {
  it.each([
    ['a newline-delimited string', 'https://books.example/\nhttps://books.example/x', 'string'],
    ['an object', { 0: 'https://books.example/' }, 'object'],
  ])('%s: api.bad-response naming the field, no stack trace, nothing sent', async (_what, list, received) => {
    await writeFile(
      path.join(folder.dir(), 'p.yaml'),
      'kind: Project\nname: nightly\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/] }\nscrapingInterval: daily\n',
    );
    const listed = nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query({ api_key: SENTINEL_KEY })
      .reply(200, [
        {
          id: 522,
          name: 'nightly',
          projectType: 'urls',
          scrapingInterval: 'daily',
          schedulingEnabled: true,
          projectInput: { type: 'list', list },
        },
      ]);
    const { result: run, unmatched } = await withUnmatched(() =>
      runScrapeform(['plan', '--state', path.join(folder.dir(), 'state.json'), folder.dir()], { env }),
    );
    expect([run.code, listed.isDone(), unmatched]).toEqual([1, true, []]);
    expect(run.stderr.split('\n')[0]).toBe(
      `error: GET ${PIPELINE_ORIGIN}/api/projects?api_key=***: 200: unexpected response from GET /api/projects: field 0.projectInput.list: Invalid input: expected array, received ${received}`,
    );
    expect(run.stderr).not.toContain('internal error');
    expect(run.stderr).not.toContain(SENTINEL_KEY);
  });
});
