import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { ScrapeformError } from '../../src/errors.js';
import { cancelProjectJob } from '../../src/workspace/project-jobs.js';
import { KEY_QUERY, PIPELINE_ORIGIN, useNock, withUnmatched } from '../helpers/api.js';
import { nightlyServices } from '../helpers/nightly-services.js';

useNock();

const service = () => nock(PIPELINE_ORIGIN);

describe('cancel: a refusal after a try without a clear answer may be the answer to that try', () => {
  it('the first try lost (502), sent again and refused as not running, and the job reads Cancelled: cancelled, not an error', async () => {
    // Review: the DELETE is retried after a 502 a gateway gave once the service had cancelled the job; the retry
    // was refused ("not running (Cancelled)") and cancel failed with cancel.not-running, exit 1, for a cancel done.
    service().delete('/api/projects/522/jobs/91').query(KEY_QUERY).reply(502, 'Bad Gateway');
    service()
      .delete('/api/projects/522/jobs/91')
      .query(KEY_QUERY)
      .reply(400, { error: 'job 91 is not running (Cancelled)' });
    service()
      .get('/api/projects/522/jobs')
      .query(KEY_QUERY)
      .reply(200, [
        { id: 90, status: 'Finished' },
        { id: 91, status: 'Cancelled' },
      ]);
    const { result, unmatched } = await withUnmatched(() =>
      cancelProjectJob(nightlyServices(), 'nightly', '91'),
    );
    expect(unmatched).toEqual([]);
    expect(result).toEqual({ address: 'project.nightly', jobId: '91', status: 'Cancelled' });
  });

  it('the first try answered with a redirect: not sent again (it would be redirected again); the job list says', async () => {
    service().delete('/api/projects/522/jobs/91').query(KEY_QUERY).reply(302, '', { Location: '/elsewhere' });
    service()
      .get('/api/projects/522/jobs')
      .query(KEY_QUERY)
      .reply(200, [{ id: 91, status: 'Cancelled' }]);
    const { result, unmatched } = await withUnmatched(() =>
      cancelProjectJob(nightlyServices(), 'nightly', '91'),
    );
    expect(unmatched).toEqual([]);
    expect(result).toEqual({ address: 'project.nightly', jobId: '91', status: 'Cancelled' });
    service().delete('/api/projects/522/jobs/91').query(KEY_QUERY).reply(302, '', { Location: '/elsewhere' });
    service()
      .get('/api/projects/522/jobs')
      .query(KEY_QUERY)
      .reply(200, [{ id: 91, status: 'Running' }]);
    const failed = await withUnmatched(() =>
      cancelProjectJob(nightlyServices(), 'nightly', '91').catch((e: unknown) => e),
    );
    expect(failed.unmatched).toEqual([]);
    expect(failed.result).toMatchObject({ code: 'api.redirect', status: 302 });
  });

  it.each([307, 308])(
    'the first try answered with a same-origin %i: not sent there (a cancel that landed would be refused as not running); the job list says',
    async (status) => {
      service()
        .delete('/api/projects/522/jobs/91')
        .query(KEY_QUERY)
        .reply(status, '', { Location: '/v2/jobs/91' });
      service()
        .get('/api/projects/522/jobs')
        .query(KEY_QUERY)
        .reply(200, [{ id: 91, status: 'Cancelled' }]);
      const { result, unmatched } = await withUnmatched(() =>
        cancelProjectJob(nightlyServices(), 'nightly', '91'),
      );
      expect(unmatched).toEqual([]);
      expect(result).toEqual({ address: 'project.nightly', jobId: '91', status: 'Cancelled' });
    },
  );

  it('the first try lost, and the job reads Finished: it ended by itself, cancel.not-running', async () => {
    service().delete('/api/projects/522/jobs/91').query(KEY_QUERY).reply(503, 'unavailable');
    service()
      .delete('/api/projects/522/jobs/91')
      .query(KEY_QUERY)
      .reply(400, { error: 'job 91 is not running (Finished)' });
    service()
      .get('/api/projects/522/jobs')
      .query(KEY_QUERY)
      .reply(200, [{ id: 91, status: 'Finished' }]);
    const error = await cancelProjectJob(nightlyServices(), 'nightly', '91').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScrapeformError);
    expect((error as ScrapeformError).code).toBe('cancel.not-running');
    expect((error as ScrapeformError).message).toBe(
      'job 91 of nightly cannot be cancelled: job 91 is not running (Finished)',
    );
  });

  it('a refusal at the first try is the answer: cancel.not-running, without looking at the jobs', async () => {
    service()
      .delete('/api/projects/522/jobs/91')
      .query(KEY_QUERY)
      .reply(400, { error: 'job 91 is not running (Cancelled)' });
    const { result: error, unmatched } = await withUnmatched(() =>
      cancelProjectJob(nightlyServices(), 'nightly', '91').catch((e: unknown) => e),
    );
    expect(unmatched).toEqual([]);
    expect((error as ScrapeformError).code).toBe('cancel.not-running');
    expect((error as ScrapeformError).message).toBe(
      'job 91 of nightly cannot be cancelled: job 91 is not running (Cancelled)',
    );
  });
});
