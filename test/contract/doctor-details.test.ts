import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DoctorReport } from '../../src/output/render-doctor.js';
import type { State } from '../../src/state/model.js';
import { runNockDoctor } from '../helpers/nock-doctor.js';
import { parserState, stateOf } from '../helpers/state.js';
import { counted, KEY_QUERY, PARSER_ORIGIN, PIPELINE_ORIGIN, useNock } from '../helpers/api.js';

useNock();

/**
 * doctor against parser details that plan cannot read (ParsersClient.get refuses them as a bad response): the
 * check fails, the others still run, and the exit is 1, never "scrapeform can work with this account".
 */
const item = { id: 'p1', name: 'books', status: 'FINISHED', error: null, generated_at: null, version: 1 };
const details = {
  name: 'books',
  status: 'FINISHED',
  version: 1,
  fields: [{ name: 'title', type: 'text' }],
  example_result: [{ url: 'https://books.example/a.html', result: { title: 'A' } }],
};

/** Project 7 read by id, and its jobs (the queued-jobs reading): one finished job. */
function projectSeven(): void {
  nock(PIPELINE_ORIGIN).get('/api/projects/7').query(KEY_QUERY).reply(200, { id: 7, name: 'nightly' });
  jobsOfSeven();
}

function jobsOfSeven(): void {
  nock(PIPELINE_ORIGIN)
    .get('/api/projects/7/jobs')
    .query(KEY_QUERY)
    .reply(200, [{ id: 1, status: 'Finished' }]);
}

async function doctor(answer: Record<string, unknown>): Promise<{ code: number; report: DoctorReport }> {
  nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, [item]);
  nock(PARSER_ORIGIN).get('/parsers/p1').query(KEY_QUERY).reply(200, answer);
  nock(PIPELINE_ORIGIN)
    .get('/api/projects')
    .query(KEY_QUERY)
    .reply(200, [{ id: 7, name: 'nightly' }]);
  projectSeven();
  return runDoctor();
}

const runDoctor = () => runNockDoctor();

const checkOf = (report: DoctorReport, name: string) => report.checks.filter((c) => c.name === name);

describe('doctor: parser details plan cannot read', () => {
  it('details as the seed describes them: the check passes', async () => {
    const { code, report } = await doctor(details);
    expect(code).toBe(0);
    expect(checkOf(report, 'parsers.details')).toEqual([
      {
        name: 'parsers.details',
        status: 'ok',
        message: 'parser "books" (p1): example_result, fields, name, status, version',
      },
    ]);
  });

  it.each([
    ['no status', { ...details, status: undefined }, 'status'],
    ['a status that is a number', { ...details, status: 3 }, 'status'],
    [
      'example_result an object',
      { ...details, example_result: { url: 'https://books.example/a.html' } },
      'example_result',
    ],
    ['a field without its name', { ...details, fields: [{ type: 'text' }] }, 'fields.0.name'],
  ])(
    '%s: parsers.details fails naming the field, the project checks still run, exit 1',
    async (_what, answer, field) => {
      const { code, report } = await doctor(answer);
      expect(code).toBe(1);
      expect(report.ok).toBe(false);
      const [check, ...others] = checkOf(report, 'parsers.details');
      expect(others).toEqual([]);
      expect(check?.status).toBe('fail');
      expect(check?.message).toMatch(
        new RegExp(
          `^the details of parser "books" \\(p1\\) are not an answer plan can read: field ${field.replace('.', '\\.')}: `,
        ),
      );
      expect(checkOf(report, 'projects.details').map((c) => c.status)).toEqual(['ok']);
    },
  );
});

describe('doctor: children nested under a key plan does not read', () => {
  it('fails naming the path, as ParsersClient.get refuses it (findMiscasedChildren), exit 1', async () => {
    const { code, report } = await doctor({
      ...details,
      fields: [
        { name: 'title', type: 'text' },
        { name: 'authors', type: 'array', Fields: [{ name: 'name', type: 'text' }] },
      ],
    });
    expect(code).toBe(1);
    expect(checkOf(report, 'parsers.details')).toEqual([
      {
        name: 'parsers.details',
        status: 'fail',
        message:
          'the details of parser "books" (p1) are not an answer plan can read: field fields.1.Fields: children listed under "Fields" are not read (only "fields" and "children" are): read without them, they would be planned as new fields, a paid regeneration',
      },
    ]);
  });
});

describe('doctor: a list item plan cannot read', () => {
  it('gives one parsers.list line, the failure with the count, and reads no details', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, [{ id: 'p1', status: 'FINISHED', version: 1 }]);
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, [{ id: 7, name: 'nightly' }]);
    projectSeven();
    const { code, report } = await runDoctor();
    expect(code).toBe(1);
    expect(report.ok).toBe(false);
    expect(checkOf(report, 'parsers.list')).toEqual([
      {
        name: 'parsers.list',
        status: 'fail',
        message:
          'the key works; 1 parsers on the first answer, a bare array, but item 0 of the parser list does not have id, name, status and version as the seed describes; plan cannot read it',
      },
    ]);
    expect(checkOf(report, 'parsers.details')).toEqual([]);
  });
});

describe('doctor: a project plan cannot read names the field', () => {
  it.each([
    [
      'without an id',
      { name: 'nightly' },
      'id: expected a whole number or a string of its digits, received undefined',
    ],
    [
      'with an archive flag of neither meaning',
      { id: 7, name: 'nightly', archived: 'maybe' },
      'archived: expected true or false, got "maybe"',
    ],
  ])(
    'the first project of the list %s: one projects.list line, the failure naming the field',
    async (_what, first, problem) => {
      nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, [item]);
      nock(PARSER_ORIGIN).get('/parsers/p1').query(KEY_QUERY).reply(200, details);
      nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, [first]);
      const { code, report } = await runDoctor();
      expect(code).toBe(1);
      expect(checkOf(report, 'projects.list')).toEqual([
        {
          name: 'projects.list',
          status: 'fail',
          message: `the key works; 1 projects on the first answer, a bare array, but the first project of the list is not one plan can read: field ${problem}`,
        },
      ]);
      expect(checkOf(report, 'projects.details')).toEqual([]);
    },
  );

  it('the project read by id with an archive flag of neither meaning: projects.details fails naming it', async () => {
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, [item]);
    nock(PARSER_ORIGIN).get('/parsers/p1').query(KEY_QUERY).reply(200, details);
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, [{ id: 7, name: 'nightly' }]);
    nock(PIPELINE_ORIGIN)
      .get('/api/projects/7')
      .query(KEY_QUERY)
      .reply(200, { id: 7, name: 'nightly', is_archived: 2 });
    jobsOfSeven();
    const { code, report } = await runDoctor();
    expect(code).toBe(1);
    expect(checkOf(report, 'projects.details')).toEqual([
      {
        name: 'projects.details',
        status: 'fail',
        message: 'project 7 by id is not one plan can read: field is_archived: expected true or false, got 2',
      },
    ]);
  });
});

describe('doctor: a list under two keys that differ', () => {
  it('parsers.list fails as plan refuses it (an empty data beside the parsers), and no details are read', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, { data: [], parsers: [item] });
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, [{ id: 7, name: 'nightly' }]);
    projectSeven();
    const { code, report } = await runDoctor();
    expect(code).toBe(1);
    expect(checkOf(report, 'parsers.list')).toEqual([
      {
        name: 'parsers.list',
        status: 'fail',
        message:
          'the list answer is an object holding a different list under each of data, parsers; which one is the list cannot be told, so plan cannot read it',
      },
    ]);
    expect(checkOf(report, 'parsers.details')).toEqual([]);
  });
});

describe('doctor: a list whose has_more plan cannot read', () => {
  it.each([
    ['has_more "maybe"', { data: [item], has_more: 'maybe' }, 'has_more', '"maybe"'],
    ['hasMore 2 under meta', { data: [item], meta: { hasMore: 2 } }, 'hasMore', '2'],
  ])(
    '%s: parsers.list fails naming the field and value, reads no details, exit 1',
    async (_what, body, key, value) => {
      nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, body);
      nock(PIPELINE_ORIGIN)
        .get('/api/projects')
        .query(KEY_QUERY)
        .reply(200, [{ id: 7, name: 'nightly' }]);
      projectSeven();
      const { code, report } = await runDoctor();
      expect(code).toBe(1);
      expect(checkOf(report, 'parsers.list')).toEqual([
        {
          name: 'parsers.list',
          status: 'fail',
          message: `the key works; 1 parsers on the first answer, an object holding the items under "data", with paging fields, but field ${key}: expected true or false, got ${value}; plan refuses such a list as incomplete`,
        },
      ]);
      expect(report.readings.find((r) => r.name === 'paged-lists')).toEqual({
        name: 'paged-lists',
        seen: true,
        message: `parsers: paged, but ${key} cannot be read, so plan cannot follow it; projects: one answer`,
      });
      expect(checkOf(report, 'parsers.details')).toEqual([]);
    },
  );

  it('has_more written as "1" is read as plan reads it: the list passes, every page followed', async () => {
    // The first answer, then the whole list as plan reads it: the first page again, and the next.
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .times(2)
      .reply(200, { data: [item], has_more: '1', page: 1 });
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query({ ...KEY_QUERY, page: '2' })
      .reply(200, { data: [{ ...item, id: 'p2', name: 'other' }], has_more: '0', page: 2 });
    nock(PARSER_ORIGIN).get('/parsers/p1').query(KEY_QUERY).reply(200, details);
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, [{ id: 7, name: 'nightly' }]);
    projectSeven();
    const { code, report } = await runDoctor();
    expect(code).toBe(0);
    expect(checkOf(report, 'parsers.list')).toEqual([
      {
        name: 'parsers.list',
        status: 'ok',
        message:
          'the key works; 1 parsers on the first answer, an object holding the items under "data", with paging fields; 2 in all, every page followed as plan follows them',
      },
    ]);
  });
});

describe('doctor: a FINISHED parser whose details list no fields', () => {
  it('warns what plan does with it, exit 0', async () => {
    const { code, report } = await doctor({ ...details, fields: [] });
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(checkOf(report, 'parsers.details')).toEqual([
      {
        name: 'parsers.details',
        status: 'warn',
        message:
          'parser "books" (p1) is FINISHED but its details list no fields: plan refuses such an answer unless state records the parser declared with no fields (or a manifest declaring none adopts it)',
      },
    ]);
  });
});

describe('doctor: a FINISHED parser whose details carry no fields', () => {
  it('fails naming the parser by name and id, as its neighbours do', async () => {
    const { code, report } = await doctor({ ...details, fields: undefined });
    expect(code).toBe(1);
    expect(checkOf(report, 'parsers.details')).toEqual([
      {
        name: 'parsers.details',
        status: 'fail',
        message:
          'parser "books" (p1) is FINISHED but its details have no fields: plan refuses such answers rather than send every field again',
      },
    ]);
  });
});

describe('doctor: the details of every FINISHED parser this workspace manages', () => {
  const listed = (id: string, name: string, status: string) => ({ ...item, id, name, status });
  const managed = (id: string, name: string) => parserState({ id, name, definition: null });
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-doctor-state-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /**
   * `doctor --json` with a state file holding `resources`, given by SCRAPEFORM_STATE or by `--state`: nock holds the
   * project answers, each test the parser answers.
   */
  async function doctorWithState(
    resources: State['resources'],
    by: 'variable' | 'flag' = 'variable',
  ): Promise<{ code: number; report: DoctorReport }> {
    const statePath = path.join(dir, 'state.json');
    await writeFile(statePath, JSON.stringify(stateOf(resources)));
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, [{ id: 7, name: 'nightly' }]);
    projectSeven();
    return by === 'flag'
      ? runNockDoctor(['--state', statePath])
      : runNockDoctor([], { SCRAPEFORM_STATE: statePath });
  }

  it('two broken managed parsers are both reported; none is read that is not FINISHED, unlisted or unmanaged', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, [
        listed('p1', 'books', 'FINISHED'),
        listed('p2', 'shelves', 'FINISHED'),
        listed('p3', 'prices', 'GENERATING'),
        listed('p4', 'others', 'FINISHED'),
      ]);
    // One interceptor each: a second read of either, or a read of p3, p4 or p9, is a call nock does not match.
    const reads = [
      counted(nock(PARSER_ORIGIN).get('/parsers/p1').query(KEY_QUERY), [
        200,
        { ...details, fields: undefined },
      ]),
      counted(nock(PARSER_ORIGIN).get('/parsers/p2').query(KEY_QUERY), [
        200,
        { ...details, name: 'shelves', fields: [{ type: 'text' }] },
      ]),
    ];
    const { code, report } = await doctorWithState({
      'parser.books': managed('p1', 'books'),
      'parser.shelves': managed('p2', 'shelves'),
      'parser.prices': managed('p3', 'prices'),
      'parser.gone': managed('p9', 'gone'),
    });
    expect(code).toBe(1);
    expect(report.ok).toBe(false);
    expect(reads.map((r) => r.n)).toEqual([1, 1]);
    expect(checkOf(report, 'parsers.details')).toEqual([
      {
        name: 'parsers.details',
        status: 'fail',
        message:
          'parser "books" (p1, managed as parser.books) is FINISHED but its details have no fields: plan refuses such answers rather than send every field again',
      },
      {
        name: 'parsers.details',
        status: 'fail',
        message:
          'the details of parser "shelves" (p2, managed as parser.shelves) are not an answer plan can read: field fields.0.name: Invalid input: expected string, received undefined',
      },
    ]);
    expect(checkOf(report, 'parsers.managed')).toEqual([
      {
        name: 'parsers.managed',
        status: 'fail',
        message:
          'read the details of 2 of the 4 parsers state records (each one the list shows FINISHED): 2 not as plan reads them (above); 1 not FINISHED, not read; 1 not on the list, not read',
      },
    ]);
    expect(checkOf(report, 'projects.details').map((c) => c.status)).toEqual(['ok']);
  });

  it('managed parsers read as plan reads them: one line for the first, the count for all, exit 0', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, [
        listed('p4', 'others', 'GENERATING'),
        listed('p1', 'books', 'FINISHED'),
        listed('p2', 'shelves', 'FINISHED'),
      ]);
    nock(PARSER_ORIGIN).get('/parsers/p1').query(KEY_QUERY).reply(200, details);
    nock(PARSER_ORIGIN)
      .get('/parsers/p2')
      .query(KEY_QUERY)
      .reply(200, { ...details, name: 'shelves' });
    const { code, report } = await doctorWithState({
      'parser.books': managed('p1', 'books'),
      'parser.shelves': managed('p2', 'shelves'),
    });
    expect(code).toBe(0);
    expect(report.checks.filter((c) => c.name.startsWith('parsers.'))).toEqual([
      {
        name: 'parsers.list',
        status: 'ok',
        message: 'the key works; 3 parsers on the first answer, a bare array',
      },
      {
        name: 'parsers.details',
        status: 'ok',
        message:
          'parser "books" (p1, managed as parser.books): example_result, fields, name, status, version',
      },
      {
        name: 'parsers.managed',
        status: 'ok',
        message:
          'read the details of 2 of the 2 parsers state records (each one the list shows FINISHED): each as plan reads them',
      },
    ]);
  });

  it('a managed parser whose state definition declares no fields: FINISHED with fields: [] is ok, as plan reads it', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(KEY_QUERY)
      .reply(200, [listed('p1', 'books', 'FINISHED')]);
    nock(PARSER_ORIGIN)
      .get('/parsers/p1')
      .query(KEY_QUERY)
      .reply(200, { ...details, fields: [] });
    const { code, report } = await doctorWithState({
      'parser.books': parserState({
        id: 'p1',
        name: 'books',
        version: 1,
        definition: { urls: ['https://books.example/a.html'], scraperParams: {}, fields: [] },
      }),
    });
    expect(code).toBe(0);
    expect(report.checks.filter((c) => c.name.startsWith('parsers.') && c.name !== 'parsers.list')).toEqual([
      {
        name: 'parsers.details',
        status: 'ok',
        message:
          'parser "books" (p1, managed as parser.books): example_result, fields, name, status, version (no fields, as state records it declared)',
      },
      {
        name: 'parsers.managed',
        status: 'ok',
        message:
          'read the details of 1 of the 1 parsers state records (each one the list shows FINISHED): each as plan reads them',
      },
    ]);
  });

  it('a state file it cannot read: parsers.managed warns what was not checked and why, the account decides, exit 0', async () => {
    const statePath = path.join(dir, 'state.json');
    await writeFile(statePath, '{ not json');
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, [item]);
    nock(PARSER_ORIGIN).get('/parsers/p1').query(KEY_QUERY).reply(200, details);
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, [{ id: 7, name: 'nightly' }]);
    projectSeven();
    const { code, report } = await runNockDoctor(['--state', statePath]);
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    const [managedLine, ...others] = checkOf(report, 'parsers.managed');
    expect(others).toEqual([]);
    expect(managedLine?.status).toBe('warn');
    expect(managedLine?.message).toMatch(
      /^state could not be read \(.+\): the details of the parsers it records were not checked \(only those of the first FINISHED parser were\); the account's own checks decide the exit code$/,
    );
  });

  it('a state that records no parser: the first FINISHED parser read as before, and said', async () => {
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, [item]);
    nock(PARSER_ORIGIN).get('/parsers/p1').query(KEY_QUERY).reply(200, details);
    const { code, report } = await doctorWithState({}, 'flag');
    expect(code).toBe(0);
    expect(checkOf(report, 'parsers.managed')).toEqual([
      { name: 'parsers.managed', status: 'skipped', message: 'state records no parser' },
    ]);
  });
});
