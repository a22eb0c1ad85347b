import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { PARSER_ORIGIN, PIPELINE_ORIGIN, SENTINEL_KEY, useNock } from '../helpers/api.js';

/**
 * A service that refuses a key may quote it back in its error in another case, or base64-encoded as it would read
 * a Basic credential or a token: the CLI quotes the body of an error, so each form must be gone from what it prints.
 */

useNock();

const keyQuery = { api_key: SENTINEL_KEY };
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-echoed-key-'));
  await writeFile(
    path.join(dir, 'a.yaml'),
    'kind: Parser\nname: a\nurls: [https://books.example/a.html]\nfields:\n  title: { description: Book title }\n',
  );
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('plan: an error body that echoes the key', () => {
  it('upper-cased or base64-encoded, the key never reaches stderr', async () => {
    const upper = SENTINEL_KEY.toUpperCase();
    const encoded = Buffer.from(SENTINEL_KEY).toString('base64');
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(keyQuery)
      .reply(401, `Invalid API key ${upper} (Basic ${encoded})`);
    const run = await runScrapeform(['plan', '--state', path.join(dir, 'state.json'), dir], {
      env: {
        SCRAPERAPI_API_KEY: SENTINEL_KEY,
        SCRAPEFORM_PARSER_URL: PARSER_ORIGIN,
        SCRAPEFORM_PIPELINE_URL: PIPELINE_ORIGIN,
      },
      cwd: dir,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      [
        'error: GET https://aiparser.test/parsers?api_key=***: 401: the AI Parser service refused the API key: Invalid API key *** (Basic ***)',
        '  hint: the API key was refused: check SCRAPERAPI_API_KEY (or --api-key-env / --api-key-file)',
        '',
      ].join('\n'),
    );
    expect(run.stdout + run.stderr).not.toContain(upper);
    expect(run.stdout + run.stderr).not.toContain(encoded);
  });
});
