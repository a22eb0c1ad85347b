import { readdir } from 'node:fs/promises';
import path from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { contractFolder } from '../helpers/contract-folder.js';
import { KEY_QUERY, PARSER_ORIGIN, SENTINEL_KEY, useNock } from '../helpers/api.js';

useNock();

const folder = contractFolder('scrapeform-import-generating-');
const env = { SCRAPERAPI_API_KEY: SENTINEL_KEY, SCRAPEFORM_PARSER_URL: PARSER_ORIGIN };

/**
 * The list lags behind a PATCH: it shows version 0 FINISHED, while the details of the latest version are of version
 * 1, still generating. A service may answer those with the fields it was asked for and the example pages of the
 * version before (the emulator answers none of either): nothing says version 1 will ever have them.
 */
describe('import while the details show a newer version still generating', () => {
  it('passes the parser over: no manifest, and state records no version that has not finished', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, [
        { id: 'p-1', name: 'books', status: 'FINISHED', error: null, generated_at: null, version: 0 },
      ]);
    nock(PARSER_ORIGIN)
      .get('/parsers/p-1')
      .query(KEY_QUERY)
      .reply(200, {
        name: 'books',
        status: 'GENERATING',
        version: 1,
        error: null,
        fields: [
          { name: 'title', type: 'text' },
          { name: 'upc', type: 'text' },
        ],
        example_result: [{ url: 'https://books.example/a.html', result: { title: 'A book' } }],
      });
    const out = path.join(folder.dir(), 'imported');
    const imported = await runScrapeform(
      ['import', '--out', out, '--only', 'parsers', '--state', folder.statePath()],
      {
        env,
      },
    );
    expect([imported.code, imported.stdout, imported.stderr]).toEqual([
      0,
      'Nothing to import: every live object is managed or declared.\n',
      'skipped parser "books" (p-1): its latest version is GENERATING\n',
    ]);
    await expect(readdir(out)).rejects.toThrow(/ENOENT/);
    await expect(folder.readState()).rejects.toThrow(/ENOENT/);
  });
});
