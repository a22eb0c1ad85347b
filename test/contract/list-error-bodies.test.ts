import { writeFile } from 'node:fs/promises';
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
  createTestApi,
  useNock,
  withUnmatched,
} from '../helpers/api.js';

/**
 * Review: a list answered 200 whose body says the call failed, an empty list beside the error (a framework that
 * answers every error with 200), was read as the list: every object a workspace declares was planned as a create
 * (a generation paid for each parser), and `run` read the jobs list as no job running and started another.
 */
useNock();
const folder = contractFolder('scrapeform-list-error-body-');

const FAILED_BODIES: [string, Record<string, unknown>, string][] = [
  ['success false beside an error', { success: false, error: 'temporarily unavailable', data: [] }, 'error'],
  ['errors listed', { errors: [{ message: 'upstream timeout' }], data: [] }, 'errors'],
  ['ok false', { ok: false, items: [] }, 'ok'],
];

describe('a list answered 200 with a body that says it failed', () => {
  it.each(FAILED_BODIES)('%s: the parsers list is refused, naming the field', async (_what, body, field) => {
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, body);
    await expect(createTestApi().parsers.list()).rejects.toMatchObject({
      code: 'api.bad-response',
      message: expect.stringContaining(
        `unexpected response from GET /parsers: field ${field}: the 200 answer says the call failed`,
      ) as unknown,
    });
  });

  it.each(FAILED_BODIES)('%s: a project jobs list is refused too', async (_what, body) => {
    nock(PIPELINE_ORIGIN).get('/api/projects/522/jobs').query(KEY_QUERY).reply(200, body);
    await expect(createTestApi().projects.listJobs(522)).rejects.toMatchObject({ code: 'api.bad-response' });
  });

  it('plan plans nothing from it and sends nothing else', async () => {
    await writeFile(
      path.join(folder.dir(), 'books.yaml'),
      'kind: Parser\nname: books\nurls: [https://books.example/a.html]\nfields:\n  title: { description: Book title }\n',
    );
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, { success: false, error: 'temporarily unavailable', data: [] });
    const { result, unmatched } = await withUnmatched(() =>
      runScrapeform(['plan', '--state', folder.statePath(), folder.dir()], { env: NOCK_ENV }),
    );
    expect(unmatched).toEqual([]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      'field error: the 200 answer says the call failed ("temporarily unavailable"); it is not taken as done',
    );
  });
});
