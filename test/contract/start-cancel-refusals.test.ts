import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { ScrapeformError } from '../../src/errors.js';
import { cancelProjectJob, runProject } from '../../src/workspace/project-jobs.js';
import { KEY_QUERY, PIPELINE_ORIGIN, useNock, withUnmatched } from '../helpers/api.js';
import { nightlyServices } from '../helpers/nightly-services.js';

/**
 * Review: a start the service refuses with a conflict (a job runs) came out as api.unexpected-status, with no
 * `details.started` for a CI wrapper to read; a cancel refusal whose `error` is an object printed "[object Object]".
 */
useNock();
const service = () => nock(PIPELINE_ORIGIN);

describe('a start refused with a conflict', () => {
  it.each([409, 423])('%s: run.already-running, not started (exit 3), the reason shown', async (status) => {
    service().get('/api/projects/522').query(KEY_QUERY).reply(200, { id: 522, name: 'nightly' });
    service()
      .get('/api/projects/522/jobs')
      .query(KEY_QUERY)
      .reply(200, [{ id: 40, status: 'Finished' }]);
    service()
      .patch('/api/projects/522', { scheduledAt: 'now' })
      .query(KEY_QUERY)
      .reply(status, { error: 'a job of this project is already running' });
    const { result: error, unmatched } = await withUnmatched(() =>
      runProject(nightlyServices(), 'nightly', { sleep: async () => {} }).catch((e: unknown) => e),
    );
    expect(unmatched).toEqual([]);
    expect(error).toBeInstanceOf(ScrapeformError);
    const refused = error as ScrapeformError;
    expect([refused.code, refused.status, refused.message, refused.details]).toEqual([
      'run.already-running',
      'input-needed',
      `project.nightly was not started: the service refused the start with ${status} (a job of this project is already running), as it does while a job of the project runs`,
      { started: false, projectId: 522 },
    ]);
  });
});

describe('a cancel refused with an error object', () => {
  it.each([
    [{ error: { code: 'JOB_NOT_RUNNING', message: 'job 91 has finished' } }, 'job 91 has finished'],
    [{ message: 'job 91 has finished' }, 'job 91 has finished'],
    [{ error: 'job 91 has finished' }, 'job 91 has finished'],
  ])('%j: the reason is its text', async (body, reason) => {
    service().delete('/api/projects/522/jobs/91').query(KEY_QUERY).reply(409, body);
    const error = await cancelProjectJob(nightlyServices(), 'nightly', '91').catch((e: unknown) => e);
    expect((error as ScrapeformError).message).toBe(`job 91 of nightly cannot be cancelled: ${reason}`);
  });
});
