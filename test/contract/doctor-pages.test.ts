import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DoctorReport } from '../../src/output/render-doctor.js';
import { runNockDoctor } from '../helpers/nock-doctor.js';
import { parserState, stateOf } from '../helpers/state.js';
import { KEY_QUERY, PARSER_ORIGIN, PIPELINE_ORIGIN, useNock } from '../helpers/api.js';

/**
 * doctor read the first answer of each list only: a paged list it called "paged; scrapeform follows every page"
 * without following one, so a paging plan refuses passed here and failed the first plan, and a parser state records
 * on a later page was said "not on the first list answer" and never read. A paged list is now read whole as plan
 * reads it (readList).
 */
useNock();

const item = (id: string, name: string) => ({
  id,
  name,
  status: 'FINISHED',
  error: null,
  generated_at: null,
  version: 1,
});
const details = (name: string) => ({
  name,
  status: 'FINISHED',
  version: 1,
  fields: [{ name: 'title', type: 'text' }],
});
const linkTo = (query: string) => ({ Link: `<${PARSER_ORIGIN}/parsers?${query}>; rel="next"` });

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-doctor-pages-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * A parser list of two pages by a Link header, p1 then p2, the second answered with `secondHeaders`: the first
 * answer, then the whole list as plan reads it (the first page again, and the second).
 */
function pagedParsers(secondHeaders: Record<string, string>): void {
  nock(PARSER_ORIGIN)
    .get('/parsers')
    .query(KEY_QUERY)
    .times(2)
    .reply(200, [item('p1', 'books')], linkTo('page=2'));
  nock(PARSER_ORIGIN)
    .get('/parsers')
    .query({ ...KEY_QUERY, page: '2' })
    .reply(200, [item('p2', 'shelves')], secondHeaders);
}

/** The project service's answers: a one-page list, project 7 by id, its jobs. */
function projects(): void {
  nock(PIPELINE_ORIGIN)
    .get('/api/projects')
    .query(KEY_QUERY)
    .reply(200, [{ id: 7, name: 'nightly' }]);
  nock(PIPELINE_ORIGIN).get('/api/projects/7').query(KEY_QUERY).reply(200, { id: 7, name: 'nightly' });
  nock(PIPELINE_ORIGIN)
    .get('/api/projects/7/jobs')
    .query(KEY_QUERY)
    .reply(200, [{ id: 1, status: 'Finished' }]);
}

/** `doctor --json --state` with parser.books (p1) and parser.shelves (p2) recorded. */
async function doctorManaging(): Promise<{ code: number; report: DoctorReport }> {
  const statePath = path.join(dir, 'state.json');
  const resources = {
    'parser.books': parserState({ id: 'p1', name: 'books', definition: null }),
    'parser.shelves': parserState({ id: 'p2', name: 'shelves', definition: null }),
  };
  await writeFile(statePath, JSON.stringify(stateOf(resources)));
  return runNockDoctor(['--state', statePath]);
}

const parserChecks = (report: DoctorReport) => report.checks.filter((c) => c.name.startsWith('parsers.'));

describe('doctor: a paged parser list', () => {
  it('is read whole: a parser state records on the second page has its details read, exit 0', async () => {
    pagedParsers({});
    nock(PARSER_ORIGIN).get('/parsers/p1').query(KEY_QUERY).reply(200, details('books'));
    nock(PARSER_ORIGIN).get('/parsers/p2').query(KEY_QUERY).reply(200, details('shelves'));
    projects();
    const { code, report } = await doctorManaging();
    expect(code).toBe(0);
    expect(parserChecks(report)).toEqual([
      {
        name: 'parsers.list',
        status: 'ok',
        message:
          'the key works; 1 parsers on the first answer, a bare array paged by a Link header; 2 in all, every page followed as plan follows them',
      },
      {
        name: 'parsers.details',
        status: 'ok',
        message: 'parser "books" (p1, managed as parser.books): fields, name, status, version',
      },
      {
        name: 'parsers.managed',
        status: 'ok',
        message:
          'read the details of 2 of the 2 parsers state records (each one the list shows FINISHED): each as plan reads them',
      },
    ]);
  });

  it('whose next page points back to the first: parsers.list fails as plan would, no details read, exit 1', async () => {
    pagedParsers(linkTo('page=2'));
    projects();
    const { code, report } = await doctorManaging();
    expect(code).toBe(1);
    expect(report.ok).toBe(false);
    expect(parserChecks(report)).toEqual([
      {
        name: 'parsers.list',
        status: 'fail',
        message:
          'the key works; 1 parsers on the first answer, a bare array paged by a Link header, but following its pages as plan does failed: GET https://aiparser.test/parsers?page=2&api_key=***: 200: unexpected response from GET /parsers: the answer points back to a page already read (https://aiparser.test/parsers?page=2); the list is incomplete and nothing is planned from it (the list answer pages in a way scrapeform cannot follow safely, so the list is incomplete and nothing is planned from it: report it with the message)',
      },
    ]);
    // The project service is still checked.
    expect(report.checks.find((c) => c.name === 'projects.list')?.status).toBe('ok');
  });
});

describe('doctor: a paged project list', () => {
  it('is read whole as plan reads it, and the first project is the one read by id', async () => {
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, []);
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .times(2)
      .reply(200, { projects: [{ id: 7, name: 'nightly' }], next_page: 2 });
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query({ ...KEY_QUERY, page: '2' })
      .reply(200, { projects: [{ id: 8, name: 'weekly' }], next_page: null });
    nock(PIPELINE_ORIGIN).get('/api/projects/7').query(KEY_QUERY).reply(200, { id: 7, name: 'nightly' });
    nock(PIPELINE_ORIGIN)
      .get('/api/projects/7/jobs')
      .query(KEY_QUERY)
      .reply(200, [{ id: 1, status: 'Finished' }]);
    const { code, report } = await runNockDoctor();
    expect(code).toBe(0);
    expect(report.checks.find((c) => c.name === 'projects.list')).toEqual({
      name: 'projects.list',
      status: 'ok',
      message:
        'the key works; 1 projects on the first answer, an object holding the items under "projects", with paging fields; 2 in all, every page followed as plan follows them',
    });
  });
});
