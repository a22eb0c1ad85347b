import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { contractFolder } from '../helpers/contract-folder.js';
import { KEY_QUERY, NOCK_ENV, PARSER_ORIGIN, SENTINEL_KEY, useNock } from '../helpers/api.js';

/**
 * A parser DELETE answered 202 Accepted (seed 1 says 204): the service took the delete, perhaps not done yet. It
 * was an api.unexpected-status: apply failed on a delete that landed, and state kept a parser the service was
 * removing. Now it is a delete that landed, read by id once to see whether it is gone.
 */
useNock();

const folder = contractFolder('scrapeform-delete-accepted-');
const { statePath, readState } = folder;

const listed = { id: 'p-1', name: 'books', status: 'FINISHED', error: null, generated_at: null, version: 0 };
const other = { ...listed, id: 'p-2', name: 'other' };
const details = {
  name: 'books',
  status: 'FINISHED',
  error: null,
  version: 0,
  fields: [{ name: 'title', type: 'text' }],
};

const STILL_SHOWN =
  'warning: the service accepted the delete of parser books (p-1) (202 Accepted) but still shows it when read by id: it may still be deleting it; scrapeform no longer manages it and records it as being deleted: no plan adopts, deletes or counts it as unmanaged, and each plan says while the service still shows it';

/**
 * State holding parser.books (p-1), which no manifest declares any more, and parser.other (p-2), still declared:
 * the workspace goes on using the parser service, so each plan reads its list.
 */
async function booksDropped(): Promise<void> {
  await mkdir(path.join(folder.dir(), '.scrapeform'), { recursive: true });
  const definition = {
    urls: ['https://books.example/a.html'],
    scraperParams: {},
    fields: [{ name: 'title', description: 'Book title' }],
  };
  const recorded = (id: string, name: string) => ({
    kind: 'Parser',
    id,
    name,
    version: 0,
    definition,
    descriptionsKnown: true,
  });
  const resources = { 'parser.books': recorded('p-1', 'books'), 'parser.other': recorded('p-2', 'other') };
  await writeFile(statePath(), JSON.stringify({ format_version: 1, serial: 1, lineage: 'l', resources }));
  await writeFile(
    path.join(folder.dir(), 'other.yaml'),
    'kind: Parser\nname: other\nurls: [https://books.example/a.html]\nfields:\n  title: { description: Book title }\n',
  );
}

function run(command: 'apply' | 'plan', extra: string[] = []) {
  const flags = command === 'apply' ? ['--auto-approve', '--allow-destroy'] : [];
  return runScrapeform([command, ...flags, ...extra, '--state', statePath(), folder.dir()], {
    env: NOCK_ENV,
  });
}

/** The list a plan reads (no project is declared or recorded, so only the parsers'): `parsers` and parser.other. */
function lists(parsers: unknown[]): void {
  nock(PARSER_ORIGIN)
    .get('/parsers')
    .query(KEY_QUERY)
    .reply(200, [...parsers, other]);
}

/** A status, and a body (JSON) when there is one. */
type Answer = [number, Record<string, unknown>?];

/**
 * parser.books dropped (booksDropped), the list showing it; its DELETE answered `deleted` and its read by id `read`
 * (each a status and a body); the apply, with `extra` flags.
 */
async function deleteAnswered(deleted: Answer, read: Answer, extra: string[] = []) {
  await booksDropped();
  lists([listed]);
  nock(PARSER_ORIGIN)
    .delete('/parsers/p-1')
    .query(KEY_QUERY)
    .reply(...deleted);
  nock(PARSER_ORIGIN)
    .get('/parsers/p-1')
    .query(KEY_QUERY)
    .reply(...read);
  return run('apply', extra);
}

describe('apply: a parser delete answered 202 Accepted', () => {
  it('and a read by id answering 404: deleted, dropped from state, the call listed with its 202', async () => {
    const applied = await deleteAnswered([202], [404, { error: 'Not Found' }], ['--json']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const report = JSON.parse(applied.stdout) as {
      results: { ok: boolean; calls: unknown[]; warnings?: string[] }[];
    };
    // The report lists the status the service sent, not the seed's 204.
    expect(report.results).toEqual([
      {
        address: 'parser.books',
        action: 'delete',
        ok: true,
        id: 'p-1',
        calls: [{ method: 'DELETE', path: '/parsers/p-1', status: 202 }],
      },
    ]);
    expect(Object.keys((await readState()).resources)).toEqual(['parser.other']);
  });

  it('while a read by id still shows it: dropped from state and recorded as being deleted, with a warning naming it; the next plan neither deletes nor creates it, nor lists it unmanaged', async () => {
    const applied = await deleteAnswered([202], [200, details]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain(STILL_SHOWN);
    const state = await readState();
    expect(Object.keys(state.resources)).toEqual(['parser.other']);
    expect(Object.keys(state.deleting ?? {})).toEqual(['p-1']);
    expect(state.deleting?.['p-1']?.name).toBe('books');

    // The service still lists it: being deleted, so no second DELETE, no create, and not listed as unmanaged.
    lists([listed]);
    const again = await run('plan', ['--show-unmanaged', '--detailed-exitcode']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain('No changes.');
    expect(again.stdout + again.stderr).toContain(
      `warning: parser books (p-1) is still shown 0 minutes after the service accepted its delete (${state.deleting?.['p-1']?.since}); nothing is planned for it`,
    );
    expect(again.stdout + again.stderr).not.toContain('Unmanaged');
    expect(again.stdout + again.stderr + applied.stdout + applied.stderr).not.toContain(SENTINEL_KEY);
  });

  it('gone by id with a 410: deleted, dropped from state, no warning', async () => {
    const applied = await deleteAnswered([202], [410, { error: 'Gone' }]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout + applied.stderr).not.toContain('warning');
    const state = await readState();
    expect(Object.keys(state.resources)).toEqual(['parser.other']);
    expect(state).not.toHaveProperty('deleting');
  });

  describe("answered 200 with the parser's own record, its error set (a refusal may look so too)", () => {
    const echoed = { ...listed, status: 'FAILED', error: 'could not find the fields' };

    it('a read by id answering 404: deleted, dropped from state, without a warning', async () => {
      const applied = await deleteAnswered([200, echoed], [404, { error: 'Not Found' }]);
      expect(applied.code, applied.stdout + applied.stderr).toBe(0);
      expect(applied.stdout + applied.stderr).not.toContain('warning');
      const state = await readState();
      expect(Object.keys(state.resources)).toEqual(['parser.other']);
      expect(state).not.toHaveProperty('deleting');
    });

    it.each([
      [echoed, '"could not find the fields"'],
      // An error body with a name (a JS error's) reads as a record: the read by id still tells.
      [
        { name: 'ParserLockedError', status: 'failed', error: 'Parser is locked by a running job' },
        '"Parser is locked by a running job"',
      ],
    ])(
      '%j, and a read by id still showing it: not taken as deleted, the change fails and state keeps it',
      async (body, error) => {
        const applied = await deleteAnswered([200, body], [200, details]);
        expect(applied.code, applied.stdout + applied.stderr).toBe(1);
        expect(applied.stdout).toContain(
          `the service answered the delete of parser books (p-1) with 200 and the parser's own record, its error ${error}, and still shows it when read by id: it is not taken as deleted`,
        );
        const state = await readState();
        expect(state.resources['parser.books']?.id).toBe('p-1');
        expect(state).not.toHaveProperty('deleting');
      },
    );

    it('a read by id that fails otherwise: the change fails, and state keeps it', async () => {
      const applied = await deleteAnswered([200, echoed], [400, { error: 'boom' }]);
      expect(applied.code, applied.stdout + applied.stderr).toBe(1);
      expect((await readState()).resources['parser.books']?.id).toBe('p-1');
    });
  });

  it('a later delete of the change failing: the parser accepted first stays managed (never both managed and being deleted), and the next apply finishes', async () => {
    // parser.books (p-1) with p-0 left by a half-done replace: deleting books deletes both, p-1 first.
    await booksDropped();
    const state0 = await readState();
    const books = state0.resources['parser.books'];
    if (books?.kind !== 'Parser') throw new Error('parser.books not in state');
    books.replacing = { oldId: 'p-0' };
    await writeFile(statePath(), JSON.stringify(state0));
    const leftover = { ...listed, id: 'p-0' };
    lists([listed, leftover]);
    nock(PARSER_ORIGIN).delete('/parsers/p-1').query(KEY_QUERY).reply(202);
    nock(PARSER_ORIGIN).get('/parsers/p-1').query(KEY_QUERY).reply(200, details);
    nock(PARSER_ORIGIN).delete('/parsers/p-0').query(KEY_QUERY).reply(400, { error: 'locked' });
    const failed = await run('apply');
    expect(failed.code, failed.stdout + failed.stderr).toBe(1);
    const state1 = await readState();
    expect(state1).not.toHaveProperty('deleting');
    expect(state1.resources['parser.books']?.id).toBe('p-1');

    // The next apply: p-1 is still shown (being deleted), p-0 goes now; state drops books and keeps p-1 as deleting.
    lists([listed, leftover]);
    nock(PARSER_ORIGIN).delete('/parsers/p-1').query(KEY_QUERY).reply(202);
    nock(PARSER_ORIGIN).get('/parsers/p-1').query(KEY_QUERY).reply(200, details);
    nock(PARSER_ORIGIN).delete('/parsers/p-0').query(KEY_QUERY).reply(204);
    const applied = await run('apply');
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const state2 = await readState();
    expect(Object.keys(state2.resources)).toEqual(['parser.other']);
    expect(Object.keys(state2.deleting ?? {})).toEqual(['p-1']);

    lists([listed]);
    const again = await run('plan', ['--detailed-exitcode']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });

  it('and a read by id that fails otherwise: still a delete that landed, with a warning that it could not be seen gone', async () => {
    const applied = await deleteAnswered([202], [400, { error: 'boom' }]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain(
      `warning: the service accepted the delete of parser books (p-1) (202 Accepted), but reading it by id to see whether it is gone failed (GET ${PARSER_ORIGIN}/parsers/p-1?api_key=***: 400: boom): scrapeform no longer manages it and records it as being deleted: each plan says while the service still shows it`,
    );
    const state = await readState();
    expect(Object.keys(state.resources)).toEqual(['parser.other']);
    expect(Object.keys(state.deleting ?? {})).toEqual(['p-1']);
  });
  it('while a read by id shows it without a version (the published details example has none): a parser still shown', async () => {
    await booksDropped();
    lists([listed]);
    nock(PARSER_ORIGIN).delete('/parsers/p-1').query(KEY_QUERY).reply(202);
    const { version: _version, ...unversioned } = details;
    nock(PARSER_ORIGIN).get('/parsers/p-1').query(KEY_QUERY).reply(200, unversioned);
    const applied = await run('apply');
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain(STILL_SHOWN);
    expect(Object.keys((await readState()).resources)).toEqual(['parser.other']);
  });
});

describe('apply: a parser delete answered 404', () => {
  it.each([
    ['without fields', { name: 'books', status: 'FINISHED', version: 0 }],
    ['with neither version nor fields', { name: 'books', status: 'FINISHED' }],
  ])('while a read by id shows it FINISHED %s: not deleted, state keeps it', async (_how, shown) => {
    const applied = await deleteAnswered([404, { error: 'Not Found' }], [200, shown]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(1);
    expect(applied.stdout).toContain(
      '✗ parser.books delete p-1: the service answered 404 to the delete of parser p-1 but still shows it when read by id: it was not deleted',
    );
    expect(Object.keys((await readState()).resources)).toEqual(['parser.books', 'parser.other']);
  });
});

/**
 * A 410 Gone (HTTP's "gone for good"; a service that keeps a deleted parser's id may answer so) was an unexpected
 * status that failed the change every apply. It now reads as a 404 does: a delete done once a read by id says so too.
 */
describe('apply: a parser delete answered 410 Gone', () => {
  it('and a read by id answering 410 too: deleted, dropped from state, the call listed with its 410', async () => {
    const applied = await deleteAnswered([410, { error: 'Gone' }], [410, { error: 'Gone' }], ['--json']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const report = JSON.parse(applied.stdout) as { results: { address: string; calls: unknown[] }[] };
    expect(report.results.find((r) => r.address === 'parser.books')?.calls).toEqual([
      { method: 'DELETE', path: '/parsers/p-1', status: 410 },
    ]);
    expect(Object.keys((await readState()).resources)).toEqual(['parser.other']);
  });

  it('while a read by id still shows it: not deleted, state keeps it, and the message names the 410', async () => {
    const applied = await deleteAnswered([410, { error: 'Gone' }], [200, details]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(1);
    expect(applied.stdout).toContain(
      '✗ parser.books delete p-1: the service answered 410 to the delete of parser p-1 but still shows it when read by id: it was not deleted',
    );
    expect(Object.keys((await readState()).resources)).toEqual(['parser.books', 'parser.other']);
  });
});
