import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { PARSER_ORIGIN, PIPELINE_ORIGIN, SENTINEL_KEY, useNock } from '../helpers/api.js';

useNock();

const keyQuery = { api_key: SENTINEL_KEY };
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-hostile-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const parserManifest = (name: string) =>
  `kind: Parser\nname: ${name}\nurls: [https://books.example/a.html]\nfields:\n  title: { description: Book title }\n`;

function apply(extra: string[] = []) {
  return runScrapeform(['apply', '--auto-approve', ...extra, dir], {
    env: {
      SCRAPERAPI_API_KEY: SENTINEL_KEY,
      SCRAPEFORM_PARSER_URL: PARSER_ORIGIN,
      SCRAPEFORM_PIPELINE_URL: PIPELINE_ORIGIN,
    },
    cwd: dir,
  });
}

describe('apply: answers that must stop or hold back paid calls', () => {
  it('a 403 to a create (exhausted credits): no further paid call is sent, and each one held back says why', async () => {
    for (const n of ['a', 'b', 'c']) await writeFile(path.join(dir, `${n}.yaml`), parserManifest(n));
    nock(PARSER_ORIGIN).get('/parsers').query(keyQuery).reply(200, []).persist();
    let posts = 0;
    nock(PARSER_ORIGIN)
      .post('/parsers')
      .reply(() => {
        posts++;
        return [403, 'You have exhausted the API Credits available in this monthly cycle.'];
      })
      .persist();
    const run = await apply(['--concurrency', '1']);
    expect(posts).toBe(1);
    expect(run.code).toBe(1);
    const held =
      'not sent: the service refused the paid call of parser.a (HTTP 403), so no further paid call (a parser create or regeneration, a project create) was made';
    expect(run.stderr).toContain(`parser.b  failed: ${held}`);
    expect(run.stderr).toContain(`parser.c  failed: ${held}`);
    expect(run.stdout + run.stderr).not.toContain(SENTINEL_KEY);
  });
});
