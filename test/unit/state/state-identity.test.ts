import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createStateBackend } from '../../../src/state/create-backend.js';
import { databaseIdentity } from '../../../src/state/database-url.js';

/** What a saved plan records of its state (fingerprint.target.state): the workspace and where, never a credential. */
describe('the identity of a state', () => {
  it('a file: the workspace, and a relative path relative to the working directory, an absolute one as it is', () => {
    expect(createStateBackend(undefined, 'staging').stateIdentity).toEqual({
      workspace: 'staging',
      location: '.scrapeform/staging/state.json',
    });
    expect(createStateBackend(path.join('states', 'prod.json')).stateIdentity).toEqual({
      workspace: 'default',
      location: 'states/prod.json',
    });
    // Review: one absolute state file used by a plan job and an apply job in folders of another depth was recorded
    // as ../../../shared/state.json and ../../../../shared/state.json, and the saved plan refused.
    const shared = path.resolve(path.sep, 'ci', 'shared', 'state.json');
    expect(createStateBackend(shared).stateIdentity).toEqual({
      workspace: 'default',
      location: shared.split(path.sep).join('/'),
    });
  });

  it('a database: host, port and database only; no user name, password or parameter', () => {
    const url = 'postgresql://bob:S3cret%2Fpw@DB.Internal/scrapeform?sslmode=require&sslpassword=Hidden1';
    const backend = createStateBackend(url, 'production');
    expect(backend.stateIdentity).toEqual({
      workspace: 'production',
      location: 'postgres://db.internal:5432/scrapeform',
    });
    expect(JSON.stringify(backend.stateIdentity)).not.toMatch(/bob|S3cret|Hidden1/);
    // The same database however the credentials are given: a rotated password, or none in the URL (PGPASSWORD).
    expect(databaseIdentity('postgres://alice:other@db.internal:5432/scrapeform')).toBe(
      'postgres://db.internal:5432/scrapeform',
    );
    expect(databaseIdentity('postgres://db.internal:6543/other')).toBe('postgres://db.internal:6543/other');
  });
});
