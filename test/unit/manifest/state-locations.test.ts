import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mistypedStateLocations } from '../../../src/manifest/state-locations.js';
import { tempProjects } from '../../helpers/temp-projects.js';

const project = tempProjects('scrapeform-state-locations-');
const TYPO = 'postgres//ci:S3cretPw@db.internal/scrapeform';

/** Each problem as `file:line:column code path message`. */
function lines(found: ReturnType<typeof mistypedStateLocations>): string[] {
  return found.map((d) => `${path.basename(d.file)}:${d.line}:${d.column} ${d.code} ${d.path} ${d.message}`);
}

describe('mistypedStateLocations (validate)', () => {
  it('finds a state: written through ${VARIABLE}, at its line, the password hidden', async () => {
    const dir = await project({
      'scrapeform.yaml': 'kind: Config\nenvironments:\n  prod: { state: "${DB_URL}" }\n',
    });
    expect(lines(mistypedStateLocations({ paths: [dir], env: { DB_URL: ` ${TYPO}` } }))).toEqual([
      'scrapeform.yaml:3:18 config.state-location environments.prod.state the state location postgres//ci:***@db.internal/scrapeform is not a URL: the : after postgres is missing (a PostgreSQL state is postgres://USER:PASSWORD@HOST:PORT/DATABASE)',
    ]);
  });

  it('reads SCRAPEFORM_STATE only where a run would: no environments, or one naming no state:', async () => {
    const env = { SCRAPEFORM_STATE: 'ftp://ci:S3cretPw@db.internal/state' };
    const message =
      'SCRAPEFORM_STATE:0:0 config.state-location  the state location ftp://ci:***@db.internal/state is a URL no state backend reads: state is kept in a file or in PostgreSQL (postgres:// or postgresql://)';
    const alone = await project({ 'books.yaml': 'kind: Parser\n' });
    expect(lines(mistypedStateLocations({ paths: [alone], env }))).toEqual([message]);
    const mixed = await project({
      'scrapeform.yaml': 'kind: Config\nenvironments:\n  a: { state: a.json }\n  b: { workspace: b }\n',
    });
    expect(lines(mistypedStateLocations({ paths: [mixed], env }))).toEqual([message]);
    expect(lines(mistypedStateLocations({ paths: [mixed], env, environment: 'a' }))).toEqual([]);
    expect(lines(mistypedStateLocations({ paths: [mixed], env, environment: 'b' }))).toEqual([message]);
    // An unknown environment is validate's own error (environment.unknown): nothing to add.
    expect(lines(mistypedStateLocations({ paths: [mixed], env, environment: 'c' }))).toEqual([]);
  });

  it('takes every well-formed location, and a file its schema refuses gives none', async () => {
    const good = await project({
      'scrapeform.yaml':
        'kind: Config\nenvironments:\n  a: { state: "postgresql://ci:pw@db/x" }\n  b: { state: ./postgres/state.json }\n  c: { state: "C:\\\\Users\\\\me@corp\\\\state.json" }\n',
    });
    expect(mistypedStateLocations({ paths: [good], env: { SCRAPEFORM_STATE: TYPO } })).toEqual([]);
    const broken = await project({
      'scrapeform.yaml': `kind: Config\nenvironments:\n  a: { state: "${TYPO}", nope: 1 }\n`,
    });
    expect(mistypedStateLocations({ paths: [broken], env: {} })).toEqual([]);
  });
});
