import nock from 'nock';
import { describe, expect, it } from 'vitest';
import type { DoctorReport } from '../../src/output/render-doctor.js';
import { runNockDoctor } from '../helpers/nock-doctor.js';
import { KEY_QUERY, PARSER_ORIGIN, PIPELINE_ORIGIN, useNock } from '../helpers/api.js';

useNock();

/**
 * doctor's queued-jobs reading: whether the first project's jobs show one waiting to run, which `run` holds a start
 * back behind. Read from the first page of the jobs, whatever their shape; a list it cannot read says so.
 */
async function readingFor(jobs: () => nock.Scope): Promise<DoctorReport['readings'][number] | undefined> {
  nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, []);
  nock(PIPELINE_ORIGIN)
    .get('/api/projects')
    .query(KEY_QUERY)
    .reply(200, [{ id: 7, name: 'nightly' }]);
  nock(PIPELINE_ORIGIN).get('/api/projects/7').query(KEY_QUERY).reply(200, { id: 7, name: 'nightly' });
  jobs();
  const { report } = await runNockDoctor();
  return report.readings.find((r) => r.name === 'queued-jobs');
}

const jobsAnswer = (code: number, body: unknown) => () =>
  nock(PIPELINE_ORIGIN)
    .get('/api/projects/7/jobs')
    .query(KEY_QUERY)
    .reply(code, body as nock.Body);

describe('doctor: the queued-jobs reading', () => {
  it('a job listed waiting to run: seen, and what run does with it', async () => {
    const reading = await readingFor(
      jobsAnswer(200, [
        { id: 1, status: 'Finished' },
        { id: 2, status: 'Queued' },
        { id: 3, status: 'scheduled' },
      ]),
    );
    expect(reading).toEqual({
      name: 'queued-jobs',
      seen: true,
      message:
        'jobs listed waiting to run: Queued, scheduled; run holds a start back behind one unless its supposedToRunAt or scheduledAt is more than 5 minutes ahead',
    });
  });

  it('jobs under "data" that only ran: not seen, naming the statuses', async () => {
    const reading = await readingFor(
      jobsAnswer(200, {
        data: [{ id: 1, status: 'Running' }, { id: 2, status: 'Finished' }, { id: 3 }],
      }),
    );
    expect(reading).toEqual({
      name: 'queued-jobs',
      seen: false,
      message: 'job statuses on the first page: (none), Finished, Running',
    });
  });

  it('no job, or a list it cannot read: not known, and why', async () => {
    expect(await readingFor(jobsAnswer(200, []))).toEqual({
      name: 'queued-jobs',
      seen: null,
      message: 'the first project has no job to read',
    });
    expect((await readingFor(jobsAnswer(200, { total: 3 })))?.message).toBe(
      'its job list holds no array scrapeform can find',
    );
    const refused = await readingFor(jobsAnswer(404, { error: 'no such route' }));
    expect(refused?.seen).toBeNull();
    expect(refused?.message).toMatch(
      /^its jobs could not be listed: GET https:\/\/datapipeline\.test\/api\/projects\/7\/jobs\?api_key=\*\*\*: 404/,
    );
  });
});
