import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { KEY_QUERY, PARSER_ORIGIN, PIPELINE_ORIGIN, SENTINEL_KEY, useNock } from '../helpers/api.js';

/**
 * A service that refuses a key may quote it back in its error in another case, or base64-encoded as it would read
 * a Basic credential or a token: the CLI quotes the body of an error, so each form must be gone from what it prints.
 */

useNock();

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

/** `scrapeform ARGS` in the test's folder against the nock origins, with `key` (the sentinel unless given). */
function scrapeform(args: string[], key = SENTINEL_KEY): ReturnType<typeof runScrapeform> {
  return runScrapeform(args, {
    env: {
      SCRAPERAPI_API_KEY: key,
      SCRAPEFORM_PARSER_URL: PARSER_ORIGIN,
      SCRAPEFORM_PIPELINE_URL: PIPELINE_ORIGIN,
    },
  });
}

/** `scrapeform plan` of the test's folder, with its state beside it. */
const plan = (key?: string) => scrapeform(['plan', '--state', path.join(dir, 'state.json'), dir], key);

describe('plan: an error body that echoes the key', () => {
  it('upper-cased or base64-encoded, the key never reaches stderr', async () => {
    const upper = SENTINEL_KEY.toUpperCase();
    const encoded = Buffer.from(SENTINEL_KEY).toString('base64');
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(401, `Invalid API key ${upper} (Basic ${encoded})`);
    const run = await plan();
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

describe('plan: an error body that echoes the key inside an encoded credential', () => {
  const base64 = (text: string): string => Buffer.from(text).toString('base64');

  it('base64 of user:KEY or KEY: (Basic, Proxy-Authorization) at any alignment never reaches stderr', async () => {
    // `user:` puts the key at byte 5 of what is encoded, `ab:` at byte 3, `u:` at byte 2: the three alignments of
    // base64, of which only the one at a multiple of three holds the key's own base64.
    const credentials = [
      `user:${SENTINEL_KEY}`,
      `ab:${SENTINEL_KEY}`,
      `u:${SENTINEL_KEY}`,
      `${SENTINEL_KEY}:`,
    ];
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(401, `denied; ${credentials.map((c) => `Basic ${base64(c)}`).join(', ')}`);
    const run = await plan();
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')[0]).toBe(
      'error: GET https://aiparser.test/parsers?api_key=***: 401: the AI Parser service refused the API key: denied; Basic dXNlcjp***w==, Basic YWI6***, Basic dTp***w==, Basic ***6',
    );
    // Six characters of the key's base64 at each alignment would still spell a part of it: none is left.
    const shown = run.stdout + run.stderr;
    for (const offset of [0, 1, 2]) {
      const encoded = base64('\0'.repeat(offset) + SENTINEL_KEY);
      expect(shown).not.toContain(encoded.slice(4, 10));
    }
  });
});

describe('plan: an error body that holds only a part of the key', () => {
  it('a key the service cut short, or quoted from its middle on, never reaches stderr', async () => {
    const head = SENTINEL_KEY.slice(0, 20);
    const tail = SENTINEL_KEY.slice(3);
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(401, { error: `invalid key ${head}… (…${tail.toUpperCase()})` });
    const run = await plan();
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')[0]).toBe(
      'error: GET https://aiparser.test/parsers?api_key=***: 401: the AI Parser service refused the API key: invalid key ***… (…***)',
    );
    expect(run.stderr).not.toContain(head);
    expect(run.stderr.toLowerCase()).not.toContain(tail.toLowerCase());
  });

  it('a key across the cut of the message and of the body excerpt is taken out before either cut', async () => {
    // The message quotes 200 characters of the body's first line, the excerpt 500 of the body: the key starts 10
    // before each cut, so a cut made first would leave its first 10 characters, too few to be known as the key.
    const line = `${'x'.repeat(190)}${SENTINEL_KEY} refused`;
    const body = `${line}\n${'y'.repeat(490 - line.length - 1)}${SENTINEL_KEY} and more`;
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(401, body);
    const run = await plan();
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')[0]).toBe(
      `error: GET https://aiparser.test/parsers?api_key=***: 401: the AI Parser service refused the API key: ${'x'.repeat(190)}*** refuse`,
    );
    expect(run.stderr).not.toContain(SENTINEL_KEY.slice(0, 10));
  });
});

describe('plan: an error body that quotes a key JSON escapes, escaped another way', () => {
  // A key with characters JSON escapes or may escape: a quote, a slash, a letter outside ASCII.
  const key = 'sk_live/"SENTINEL"/é5f3a9c';
  const KEY_QUERY = { api_key: key };

  it('escaped as PHP and Python write JSON (\\/ and \\u00e9), in a body cut short, never reaches stderr', async () => {
    const escaped = JSON.stringify(key).slice(1, -1).replace(/\//g, '\\/').replace(/é/g, '\\u00e9');
    // Cut short, the body is no JSON, and is quoted as text.
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(401, `{"error":"bad key ${escaped}","deta`);
    const run = await plan(key);
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')[0]).toBe(
      'error: GET https://aiparser.test/parsers?api_key=***: 401: the AI Parser service refused the API key: {"error":"bad key ***","deta',
    );
  });

  it('inside a JSON text that is itself a string of the answer, never reaches stderr', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(401, { error: JSON.stringify({ detail: `bad key ${key}` }) });
    const run = await plan(key);
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')[0]).toBe(
      'error: GET https://aiparser.test/parsers?api_key=***: 401: the AI Parser service refused the API key: {"detail":"bad key ***"}',
    );
  });
});

describe('doctor: an answer that holds the key', () => {
  it('a parser someone named with the key by hand is shown without it', async () => {
    const item = { id: 'p1', name: `books ${SENTINEL_KEY}`, status: 'FINISHED', version: 1 };
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, [item]);
    nock(PARSER_ORIGIN)
      .get('/parsers/p1')
      .query(KEY_QUERY)
      .reply(200, { ...item, urls: ['https://books.example/a.html'], fields: [{ name: 'title' }] });
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, []);
    const run = await scrapeform(['doctor', '--json']);
    const details = (JSON.parse(run.stdout) as { checks: { name: string; message: string }[] }).checks.find(
      (c) => c.name === 'parsers.details',
    );
    expect(details?.message).toBe('parser "books ***" (p1): fields, id, name, status, urls, version');
    expect(run.stdout + run.stderr).not.toContain(SENTINEL_KEY);
  });

  it('a field named with the key, in parser and project details, is quoted without it', async () => {
    const item = { id: 'p1', name: 'books', status: 'FINISHED', version: 1 };
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, [item]);
    nock(PARSER_ORIGIN)
      .get('/parsers/p1')
      .query(KEY_QUERY)
      .reply(200, { ...item, fields: [{ name: 'title' }], [`debug_${SENTINEL_KEY}`]: true });
    const project = { id: 7, name: 'shop', [SENTINEL_KEY.toUpperCase()]: 1 };
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, [project]);
    nock(PIPELINE_ORIGIN).get('/api/projects/7').query(KEY_QUERY).reply(200, project);
    const run = await scrapeform(['doctor', '--json']);
    const messages = (JSON.parse(run.stdout) as { checks: { name: string; message: string }[] }).checks;
    const message = (name: string): string | undefined => messages.find((c) => c.name === name)?.message;
    expect(message('parsers.details')).toBe(
      'parser "books" (p1): debug_***, fields, id, name, status, version',
    );
    expect(message('projects.details')).toBe('project 7 by id: ***, id, name');
    expect((run.stdout + run.stderr).toLowerCase()).not.toContain(SENTINEL_KEY.toLowerCase());
  });
});

describe('plan: a value of the wrong type that holds the key, quoted cut to 40 characters', () => {
  it('the key across the cut leaves none of its characters in the message', async () => {
    // 25 characters before the key: the cut at 40 would leave its first 15, inside a word.
    const version = `${'v'.repeat(25)}${SENTINEL_KEY}`;
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, [{ id: 'p1', name: 'a', status: 'FINISHED', version }]);
    const run = await plan();
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')[0]).toBe(
      `error: GET https://aiparser.test/parsers?api_key=***: 200: unexpected response from GET /parsers: field 0.version: expected a whole number or a string of its digits, received string "${'v'.repeat(25)}***"`,
    );
    expect(run.stderr).not.toContain(SENTINEL_KEY.slice(0, 8));
  });
});
