import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { contractFolder } from '../helpers/contract-folder.js';
import {
  KEY_QUERY,
  NOCK_ENV,
  PARSER_ORIGIN,
  SENTINEL_KEY,
  counted,
  useNock,
  withUnmatched,
} from '../helpers/api.js';

// A version apply did not see end (--no-wait, a wait that timed out, a killed run) that then FAILED is a try like
// one it waited for: a definition that FAILED twice is not sent again by itself, each try paying a generation.
useNock();

const folder = contractFolder('scrapeform-unwaited-');
const { statePath, readState } = folder;

const urls = ['https://books.example/a.html'];
const title = { name: 'title', description: 'Book title' };
const author = { name: 'author', description: 'Author name' };
const wanted = { urls, scraperParams: {}, fields: [title, author] };
const ERROR = 'GenerationError: no author found';

function applyNoWait() {
  return runScrapeform(['apply', '--auto-approve', '--no-wait', '--state', statePath(), folder.dir()], {
    env: NOCK_ENV,
  });
}

function listedFailed(version: number, error: string | null = ERROR): void {
  nock(PARSER_ORIGIN)
    .get('/parsers')
    .query(KEY_QUERY)
    .reply(200, [{ id: 'p-1', name: 'a', status: 'FAILED', error, generated_at: null, version }]);
}

/** parser.a at version 1 (title); an earlier apply --no-wait added author, announced as version 2. */
async function pendingAuthor(): Promise<void> {
  await mkdir(path.join(folder.dir(), '.scrapeform'), { recursive: true });
  const resources = {
    'parser.a': {
      kind: 'Parser',
      id: 'p-1',
      name: 'a',
      version: 1,
      definition: { urls, scraperParams: {}, fields: [title] },
      descriptionsKnown: true,
      pending: { version: 2, definition: wanted },
    },
  };
  await writeFile(statePath(), JSON.stringify({ format_version: 1, serial: 1, lineage: 'l', resources }));
  await writeFile(
    path.join(folder.dir(), 'a.yaml'),
    `kind: Parser\nname: a\nurls: [${urls[0]}]\nfields:\n  title: { description: Book title }\n  author: { description: Author name }\n`,
  );
}

describe('apply --no-wait: a pending version that FAILED counts as a try', () => {
  it('retried once, and then not again by itself: no third paid PATCH of a definition that FAILED twice', async () => {
    await pendingAuthor();

    // Version 2 FAILED: retried once from version 1, as after a wait that saw it fail.
    listedFailed(2);
    nock(PARSER_ORIGIN).patch('/parsers/p-1/1').reply(202, { id: 'p-1', version: 3 });
    const first = await withUnmatched(applyNoWait);
    expect(first.unmatched).toEqual([]);
    expect(first.result.code).toBe(0);
    const recorded = (await readState()).resources['parser.a'];
    expect([recorded.pending, recorded.failed]).toEqual([
      { version: 3, definition: wanted },
      { version: 2, error: ERROR, definition: wanted, attempts: 1 },
    ]);

    // Version 3 FAILED too, with the same definition: held back, said so, and no PATCH sent.
    listedFailed(3);
    const patches = counted(nock(PARSER_ORIGIN).patch((uri) => uri.startsWith('/parsers/p-1')));
    const second = await applyNoWait();
    expect(patches.n).toBe(0);
    // The list was read; only the PATCH that must not go out is left.
    expect(nock.pendingMocks()).toHaveLength(1);
    nock.cleanAll();
    expect(second.code).toBe(0);
    expect(second.stdout + second.stderr).toContain(
      `parser.a: version 3 FAILED 2 times with the definition the manifests ask for (${ERROR}); not retried again by itself: fix the manifest, or try once more with --reassert parser.a`,
    );
    const held = (await readState()).resources['parser.a'];
    expect([held.version, held.pending, held.failed]).toEqual([
      1,
      undefined,
      { version: 3, error: ERROR, definition: wanted, attempts: 2 },
    ]);
    expect(second.stdout + second.stderr).not.toContain(SENTINEL_KEY);
  });

  it('a FAILED version the service gives no error for is said so, not as "(FAILED)", in state and in the plan', async () => {
    await pendingAuthor();
    listedFailed(2, null);
    nock(PARSER_ORIGIN).patch('/parsers/p-1/1').reply(202, { id: 'p-1', version: 3 });
    expect((await withUnmatched(applyNoWait)).result.code).toBe(0);
    expect((await readState()).resources['parser.a'].failed).toEqual({
      version: 2,
      error: 'no error given',
      definition: wanted,
      attempts: 1,
    });

    listedFailed(3, '');
    const second = await applyNoWait();
    expect(second.code).toBe(0);
    expect(second.stdout + second.stderr).toContain(
      'parser.a: version 3 FAILED 2 times with the definition the manifests ask for (no error given); not retried again by itself',
    );
    expect((await readState()).resources['parser.a'].failed?.error).toBe('no error given');
  });
});
