import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import type { ApiError } from '../../src/api/api-error.js';
import { runScrapeform } from '../helpers/cli.js';
import { contractFolder } from '../helpers/contract-folder.js';
import {
  KEY_QUERY,
  NOCK_ENV,
  PARSER_ORIGIN,
  PIPELINE_ORIGIN,
  SENTINEL_KEY,
  createTestApi,
  useNock,
} from '../helpers/api.js';
import { booksProjectYaml, liveBooksProject } from '../helpers/books-project.js';

/**
 * A DELETE answered with a success status whose body says the call failed (`{"error": "..."}`, `{"success":
 * false}`), as services behind a framework that answers every error 200 do. Only the status was read: the archive
 * was taken as done and state dropped a project that still ran on its schedule, paid per page, with no plan ever
 * looking at it again; a parser delete so answered left the parser live and unmanaged.
 */
useNock();

const folder = contractFolder('scrapeform-delete-failure-body-');
const { statePath, readState } = folder;

function apply() {
  return runScrapeform(
    ['apply', '--auto-approve', '--allow-destroy', '--allow-adopt', '--state', statePath(), folder.dir()],
    { env: NOCK_ENV },
  );
}

async function writeStateOf(resources: Record<string, unknown>): Promise<void> {
  await mkdir(path.join(folder.dir(), '.scrapeform'), { recursive: true });
  await writeFile(statePath(), JSON.stringify({ format_version: 1, serial: 1, lineage: 'l', resources }));
}

describe('apply: a project archive answered 200 with a body that says it failed', () => {
  it('is not taken as archived: the change fails naming the field, and state keeps the project', async () => {
    await writeStateOf({
      'project.nightly': { kind: 'Project', id: 7, name: 'nightly', definition: { name: 'nightly' } },
    });
    await writeFile(path.join(folder.dir(), 'other.yaml'), booksProjectYaml('other'));
    const other = liveBooksProject(8, 'other');
    const nightly = { id: 7, name: 'nightly', schedulingEnabled: true, scrapingInterval: 'daily' };
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, [nightly, other]);
    nock(PIPELINE_ORIGIN)
      .delete('/api/projects/7')
      .query(KEY_QUERY)
      .reply(200, { error: 'Project has a running job' });
    const run = await apply();
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toContain(
      'unexpected response from DELETE /api/projects/7: field error: the 200 answer says the call failed ("Project has a running job"); it is not taken as done',
    );
    expect((await readState()).resources['project.nightly']?.id).toBe(7);
    expect(run.stdout + run.stderr).not.toContain(SENTINEL_KEY);
  });
});

describe('apply: a parser delete answered 200 with a body that says it failed', () => {
  it('is not taken as deleted: the change fails naming the field, and state keeps the parser', async () => {
    const definition = {
      urls: ['https://books.example/a.html'],
      scraperParams: {},
      fields: [{ name: 'title', description: 'Book title' }],
    };
    await writeStateOf({
      'parser.books': {
        kind: 'Parser',
        id: 'p-1',
        name: 'books',
        version: 0,
        definition,
        descriptionsKnown: true,
      },
    });
    await writeFile(path.join(folder.dir(), 'p.yaml'), booksProjectYaml('other'));
    const listed = {
      id: 'p-1',
      name: 'books',
      status: 'FINISHED',
      error: null,
      generated_at: null,
      version: 0,
    };
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, [listed]);
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, [liveBooksProject(8, 'other')]);
    nock(PARSER_ORIGIN)
      .delete('/parsers/p-1')
      .query(KEY_QUERY)
      .reply(200, { success: false, message: 'parser is in use' });
    const run = await apply();
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toContain(
      'unexpected response from DELETE /parsers/p-1: field success: the 200 answer says the call failed (false); it is not taken as done',
    );
    expect((await readState()).resources['parser.books']?.id).toBe('p-1');
  });
});

describe('DELETE answers: only a body that says the call failed is refused', () => {
  it.each([
    [{ errors: [{ detail: 'locked' }] }, 'errors', '[{"detail":"locked"}]'],
    [{ ok: 'false' }, 'ok', '"false"'],
    [{ error: { code: 409 } }, 'error', '{"code":409}'],
  ])('%j: api.bad-response naming %s', async (body, field, shown) => {
    nock(PIPELINE_ORIGIN).delete('/api/projects/522').query(KEY_QUERY).reply(200, body);
    const error = (await createTestApi()
      .projects.archive(522)
      .then(
        () => undefined,
        (e: unknown) => e,
      )) as ApiError | undefined;
    expect(error?.code).toBe('api.bad-response');
    expect(error?.message).toBe(
      `DELETE ${PIPELINE_ORIGIN}/api/projects/522?api_key=***: 200: unexpected response from DELETE /api/projects/522: field ${field}: the 200 answer says the call failed (${shown}); it is not taken as done`,
    );
  });

  it.each([
    { message: 'Project archived' },
    { error: null, success: true },
    { error: '', errors: [] },
    { ok: 1 },
    'OK',
  ])('%j: a delete that landed', async (body) => {
    nock(PARSER_ORIGIN).delete('/parsers/p-1').query(KEY_QUERY).reply(200, body);
    expect(await createTestApi().parsers.delete('p-1')).toEqual({ status: 200 });
  });

  it.each([
    [
      { id: 'p-1', name: 'books', status: 'FAILED', error: 'could not find the fields', version: 0 },
      '"could not find the fields"',
    ],
    [{ name: 'books', status: 'failed', error: 'generation timed out' }, '"generation timed out"'],
    [{ version: 2, status: 'FINISED', error: 'an earlier version failed' }, '"an earlier version failed"'],
  ])(
    '%j: the parser echoed as its own record: no failure of the delete, its error given for a look by id',
    async (body, error) => {
      nock(PARSER_ORIGIN).delete('/parsers/p-1').query(KEY_QUERY).reply(200, body);
      expect(await createTestApi().parsers.delete('p-1')).toEqual({ status: 200, recordError: error });
    },
  );

  it.each([
    [{ status: 'error', error: 'parser is locked' }, 'error', '"parser is locked"'],
    [{ id: 'p-1', status: 'FAILED', success: false }, 'success', 'false'],
    [{ id: 'p-2', error: 'not yours' }, 'error', '"not yours"'],
    [{ id: 'p-1', error: 'locked' }, 'error', '"locked"'],
    [
      { status: 'failed', error: 'Parser is locked by a running job' },
      'error',
      '"Parser is locked by a running job"',
    ],
    [{ id: 'p-2', name: 'books', status: 'FAILED', error: 'x' }, 'error', '"x"'],
  ])(
    '%j: a parser body that is no record of p-1, or says so in another field, is refused',
    async (body, field, shown) => {
      nock(PARSER_ORIGIN).delete('/parsers/p-1').query(KEY_QUERY).reply(200, body);
      const error = (await createTestApi()
        .parsers.delete('p-1')
        .then(
          () => undefined,
          (e: unknown) => e,
        )) as ApiError | undefined;
      expect(error?.code).toBe('api.bad-response');
      expect(error?.message).toContain(
        `field ${field}: the 200 answer says the call failed (${shown}); it is not taken as done`,
      );
    },
  );
});
