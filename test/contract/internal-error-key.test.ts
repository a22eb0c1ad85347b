import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as BuildPlan from '../../src/plan/build-plan.js';
import { runScrapeform } from '../helpers/cli.js';
import { PARSER_ORIGIN, PIPELINE_ORIGIN, SENTINEL_KEY, useNock } from '../helpers/api.js';

/**
 * An internal error (a bug) prints its stack: the one output no code of ours wrote, and so none redacted. A bug's
 * message may quote what it was handling, a keyed URL or a value that held the key: the key is taken out of it too.
 */
const bug = vi.hoisted(() => ({ message: '' }));
vi.mock('../../src/plan/build-plan.js', async (original) => ({
  ...(await original<typeof BuildPlan>()),
  buildPlan: () => {
    throw new TypeError(bug.message);
  },
}));

useNock();

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-internal-error-'));
  await writeFile(
    path.join(dir, 'a.yaml'),
    'kind: Parser\nname: a\nurls: [https://books.example/a.html]\nfields:\n  title: { description: Book title }\n',
  );
  nock(PARSER_ORIGIN).get('/parsers').query(true).reply(200, []);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const urls = { SCRAPEFORM_PARSER_URL: PARSER_ORIGIN, SCRAPEFORM_PIPELINE_URL: PIPELINE_ORIGIN };

describe('an internal error that quotes the key', () => {
  it('read from --api-key-file: the key is gone from the stack printed', async () => {
    bug.message = `Invalid URL: https://books.example/?key=${SENTINEL_KEY}`;
    const keyFile = path.join(dir, 'key.txt');
    await writeFile(keyFile, `${SENTINEL_KEY}\n`, { mode: 0o600 });
    const run = await runScrapeform(
      ['plan', '--api-key-file', keyFile, '--state', path.join(dir, 'state.json'), dir],
      { env: urls },
    );
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')[0]).toBe(
      'internal error: TypeError: Invalid URL: https://books.example/?key=***',
    );
    expect(run.stderr).toContain(
      'This is a bug in scrapeform. Please report it with the output above and the command you ran.',
    );
    expect(run.stdout + run.stderr).not.toContain(SENTINEL_KEY);
  });

  it('from SCRAPERAPI_API_KEY, upper-cased in the message: gone too', async () => {
    bug.message = `cannot read ${SENTINEL_KEY.toUpperCase()} as a version`;
    const run = await runScrapeform(['plan', '--state', path.join(dir, 'state.json'), dir], {
      env: { ...urls, SCRAPERAPI_API_KEY: SENTINEL_KEY },
    });
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')[0]).toBe('internal error: TypeError: cannot read *** as a version');
    expect((run.stdout + run.stderr).toLowerCase()).not.toContain(SENTINEL_KEY.toLowerCase());
  });
});
