import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspaceStatePath } from '../../../src/model/state-location.js';
import { readStateLocation } from '../../../src/model/state-url.js';
import { createStateBackend } from '../../../src/state/create-backend.js';
import { checkWorkspaceName } from '../../../src/state/workspace-name.js';
import type { ScrapeformError } from '../../../src/errors.js';

describe('the state file of a workspace', () => {
  it('default keeps the given path; another workspace has its own folder beside it', () => {
    expect(workspaceStatePath(path.join('.scrapeform', 'state.json'), 'default')).toBe(
      path.join('.scrapeform', 'state.json'),
    );
    expect(workspaceStatePath(path.join('.scrapeform', 'state.json'), 'team-a')).toBe(
      path.join('.scrapeform', 'team-a', 'state.json'),
    );
    expect(workspaceStatePath(path.join('ops', 'prod.json'), 'Prod')).toBe(
      path.join('ops', 'Prod', 'prod.json'),
    );
    expect(createStateBackend(undefined, 'staging').location).toBe(
      path.join('.scrapeform', 'staging', 'state.json'),
    );
    expect(createStateBackend(undefined).location).toBe(path.join('.scrapeform', 'state.json'));
  });

  it.each(['', '..', '../prod', 'a/b', 'a\\b', '.hidden', 'x'.repeat(41), 'prod ', 'päd'])(
    'refuses the workspace name %j before any path is made of it',
    (name) => {
      expect(() => checkWorkspaceName(name)).toThrow(
        `workspace "${name}" must be 1 to 40 letters, digits, - or _`,
      );
      expect(() => createStateBackend('state.json', name)).toThrow('must be 1 to 40 letters, digits, - or _');
    },
  );
});

describe('what a state location names (review: a pasted URL became a file named after its password)', () => {
  it.each([
    ' postgres://bob:S3cretPw@db.internal:5432/scrapeform',
    'POSTGRES://bob:S3cretPw@db.internal:5432/scrapeform',
    'PostgreSQL://bob:S3cretPw@db.internal:5432/scrapeform\n',
  ])('%j is the PostgreSQL backend, shown without the password', (location) => {
    const backend = createStateBackend(location);
    expect(backend.constructor.name).toBe('PostgresStateBackend');
    expect(backend.location).toMatch(
      /^postgres(ql)?:\/\/bob:\*\*\*@db\.internal:5432\/scrapeform \(workspace default\)$/,
    );
  });

  it('a URL of another scheme is a usage error, its password hidden, and no file is made of it', () => {
    const refused = (() => {
      try {
        createStateBackend('mysql://bob:S3cretPw@db.internal/scrapeform');
      } catch (error) {
        return error as ScrapeformError;
      }
      return undefined;
    })();
    expect(refused?.code).toBe('cli.usage');
    expect(refused?.message).toBe(
      'the state location mysql://bob:***@db.internal/scrapeform is a URL no state backend reads: state is kept in a file or in PostgreSQL (postgres:// or postgresql://)',
    );
  });

  it.each([
    'postgres:sf:PgS3cret@127.0.0.1/db',
    ' PostgreSQL:/sf:PgS3cret@127.0.0.1/db',
    'postgres:PgS3cret',
  ])('%j (postgres: without //) is refused, not made a file, and its password is not shown', (location) => {
    const refused = (() => {
      try {
        createStateBackend(location);
      } catch (error) {
        return error as ScrapeformError;
      }
      return undefined;
    })();
    expect([refused?.code, refused?.message, refused?.hint]).toEqual([
      'cli.usage',
      'the state location starts with postgres: but is not a URL (not shown: it may hold a password): a PostgreSQL state is postgres://USER:PASSWORD@HOST:PORT/DATABASE',
      'write // after postgres: (percent-encode a /, # or @ in the password), or ./ before the path of a state file of that name',
    ]);
  });

  /** The error createStateBackend throws for a location, as [code, message, hint]. */
  function refusal(location: string): unknown[] {
    try {
      createStateBackend(location);
    } catch (error) {
      const refused = error as ScrapeformError;
      return [refused.code, refused.message, refused.hint];
    }
    return [];
  }

  const NO_COLON_HINT =
    'write postgres:// (percent-encode a /, # or @ in the password), or ./ before the path of a state file in a folder named postgres';

  it.each([
    ['postgres//sf:PgS3cret@127.0.0.1:5432/db', 'postgres//sf:***@127.0.0.1:5432/db'],
    [' postgres//sf:Pg/S3c@ret@db.internal/db\n', 'postgres//sf:***@db.internal/db'],
    ['postgres//:PgS3cret@db.internal/db', 'postgres//:***@db.internal/db'],
    ['postgres//db.internal/db?sslpassword=PgS3cret', 'postgres//db.internal/db?sslpassword=***'],
  ])('%j (postgres// without :) is refused, not made a file, its password hidden', (location, shown) => {
    expect(refusal(location)).toEqual([
      'cli.usage',
      `the state location ${shown} is not a URL: the : after postgres is missing (a PostgreSQL state is postgres://USER:PASSWORD@HOST:PORT/DATABASE)`,
      NO_COLON_HINT,
    ]);
  });

  it('postgresql// without : is named as written', () => {
    expect(refusal('PostgreSQL//sf:PgS3cret@db/x')).toEqual([
      'cli.usage',
      'the state location PostgreSQL//sf:***@db/x is not a URL: the : after PostgreSQL is missing (a PostgreSQL state is postgres://USER:PASSWORD@HOST:PORT/DATABASE)',
      'write PostgreSQL:// (percent-encode a /, # or @ in the password), or ./ before the path of a state file in a folder named PostgreSQL',
    ]);
  });

  it.each([
    ['postgres/sf:PgS3cret@db/x', 'postgres/sf:***@db/x'],
    ['ops/sf:PgS3cret@db.internal/state.json', 'ops/sf:***@db.internal/state.json'],
    ['./postgres//sf:PgS3cret@db/x', './postgres//sf:***@db/x'],
    ['ops\\sf:PgS3cret@db\\state.json', 'ops\\sf:***@db\\state.json'],
  ])('%j (USER:PASSWORD@ in a path) is refused, not made a file, its password hidden', (location, shown) => {
    expect(refusal(location)).toEqual([
      'cli.usage',
      `the state location ${shown} is a file path holding a user name and password (USER:PASSWORD@): a mistyped URL, whose password would become folder names`,
      'a PostgreSQL state is postgres://USER:PASSWORD@HOST:PORT/DATABASE; a state file needs a path with no :…@ in it',
    ]);
  });

  it.each([
    'C:\\Users\\me@corp\\state.json',
    'C:/Users/me@corp/state.json',
    './postgres//state.json',
    'ops/team@corp/state.json',
    'ops/v1:2/state.json',
  ])('%j has no USER:PASSWORD@ and stays a path', (location) => {
    expect(readStateLocation(location)).toEqual({ kind: 'file', path: location });
  });

  it('./postgres:… is a file of that name', () => {
    expect(createStateBackend('./postgres:old.json').location).toBe('./postgres:old.json');
  });

  it('a path stays a path, as written', () => {
    expect(createStateBackend(path.join('ops', 'state.json')).location).toBe(path.join('ops', 'state.json'));
  });
});
