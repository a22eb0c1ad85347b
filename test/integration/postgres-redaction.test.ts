import { describe, expect, it } from 'vitest';
import { createStateBackend } from '../../src/state/create-backend.js';
import { redactUrl } from '../../src/model/state-url.js';
import { runScrapeform } from '../helpers/cli.js';

describe('a PostgreSQL password is never shown', () => {
  it.each([
    ['postgres://sf:S3cret%2Fpw@db:5432/sf', 'postgres://sf:***@db:5432/sf'],
    [
      'postgres://sf@db/sf?password=QueryPw999&sslmode=require',
      'postgres://sf@db/sf?password=***&sslmode=require',
    ],
    [
      'postgres://sf@db/sf?sslpassword=KeyPw&application_name=x',
      'postgres://sf@db/sf?sslpassword=***&application_name=x',
    ],
    // Not a URL the parser reads: a / or @ of the password not percent-encoded.
    ['postgres://sf:Pr0d/Secret+pw@db:5432/sf', 'postgres://sf:***@db:5432/sf'],
    ['postgres://sf:Pr0d/Se@cret@db:5432/sf?password=x', 'postgres://sf:***@db:5432/sf?password=***'],
    // Read wrongly by the parser: digits, then an unencoded # / or ?, make "sf" the host and "2024" its port.
    ['postgres://sf:2024#Secret@db:5432/sf', 'postgres://sf:***@db:5432/sf'],
    ['postgres://u:12/Secret@db.example/app', 'postgres://u:***@db.example/app'],
    ['postgres://u:12?Secret@db.example/app', 'postgres://u:***@db.example/app'],
  ])('%s is shown as %s', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });

  it('a password the parser reads wrongly (digits, then #) is a usage error too, without the password', () => {
    expect(() => createStateBackend('postgres://sf:2024#Secret@127.0.0.1:1/sf')).toThrow(
      expect.objectContaining({
        code: 'cli.usage',
        message: 'the state URL postgres://sf:***@127.0.0.1:1/sf cannot be read as a URL',
      }),
    );
  });

  it('a URL that cannot be read is a usage error naming it without its password, before any connection', async () => {
    const url = 'postgres://sf:Pr0d/Secret+pw@127.0.0.1:1/sf';
    expect(() => createStateBackend(url)).toThrow(
      expect.objectContaining({
        code: 'cli.usage',
        message: 'the state URL postgres://sf:***@127.0.0.1:1/sf cannot be read as a URL',
      }),
    );
    const run = await runScrapeform(['state', 'pull', '--state', url]);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error: the state URL postgres://sf:***@127.0.0.1:1/sf cannot be read as a URL\n  hint: percent-encode special characters of the user name and password (/ as %2F, @ as %40, # as %23, ? as %3F), or give the password in PGPASSWORD or ~/.pgpass\n',
    });
  });

  it('a password given as ?password= is not in the error of a failed connection', async () => {
    const run = await runScrapeform([
      'state',
      'pull',
      '--state',
      'postgres://sf@127.0.0.1:1/sf?password=QueryPw999',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'error: cannot connect to the state database postgres://sf@127.0.0.1:1/sf?password=***: connect ECONNREFUSED 127.0.0.1:1\n  hint: check --state / SCRAPEFORM_STATE and that the database accepts connections\n',
    );
  });
});
