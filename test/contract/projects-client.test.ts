import nock from 'nock';
import { describe, expect, it } from 'vitest';
import type { ApiError } from '../../src/api/api-error.js';
import {
  KEY_QUERY,
  PIPELINE_ORIGIN,
  SENTINEL_KEY,
  createTestApi,
  everythingShown,
  useNock,
} from '../helpers/api.js';

useNock();

const service = () => nock(PIPELINE_ORIGIN);
const project = {
  id: 522,
  name: 'nightly',
  schedulingEnabled: true,
  scrapingInterval: 'daily',
  createdAt: '2026-11-01T00:00:00.000Z',
  projectType: 'urls',
  projectInput: { type: 'list', list: ['https://books.example/1'] },
  projectOutput: { type: 'save' },
  notificationConfig: { notifyOnSuccess: 'never', notifyOnFailure: 'with_every_run' },
  output_format: 'JSON',
};

describe('ProjectsClient: each operation of seed 2, key in the query on every call', () => {
  it('list: GET /api/projects', async () => {
    service().get('/api/projects').query(KEY_QUERY).reply(200, [project]);
    expect(await createTestApi().projects.list()).toEqual([project]);
  });

  it('get: GET /api/projects/:id, reading outputFormat as output_format and a numeric string id as a number', async () => {
    const { output_format: format, ...rest } = project;
    service()
      .get('/api/projects/522')
      .query(KEY_QUERY)
      .reply(200, { ...rest, id: '522', outputFormat: format });
    const live = await createTestApi().projects.get(522);
    expect(live.id).toBe(522);
    expect(live.output_format).toBe('JSON');
    expect(live).not.toHaveProperty('outputFormat');
  });

  it('create: POST /api/projects with the payload as body and no key in it', async () => {
    const payload = {
      name: 'nightly',
      projectType: 'urls',
      projectInput: project.projectInput,
      scrapingInterval: 'daily',
    };
    service().post('/api/projects', payload).query(KEY_QUERY).reply(201, project);
    expect((await createTestApi().projects.create(payload)).id).toBe(522);
  });

  it('update: PATCH /api/projects/:id with only the changed fields', async () => {
    service().patch('/api/projects/522', { webhookOutput: null }).query(KEY_QUERY).reply(200, project);
    expect((await createTestApi().projects.update(522, { webhookOutput: null }))?.id).toBe(522);
  });

  it('start now: PATCH scheduledAt now, taken on any success whatever the body (a 204, another shape)', async () => {
    service().patch('/api/projects/522', { scheduledAt: 'now' }).query(KEY_QUERY).reply(204);
    service().patch('/api/projects/522', { scheduledAt: 'now' }).query(KEY_QUERY).reply(200, { ok: true });
    const { projects } = createTestApi();
    await projects.startNow(522);
    await projects.startNow(522);
  });

  it('archive: DELETE /api/projects/:id; any success, 202 Accepted included, its status returned', async () => {
    for (const status of [204, 200, 201, 202]) {
      service().delete('/api/projects/522').query(KEY_QUERY).reply(status);
      expect(await createTestApi().projects.archive(522)).toBe(status);
    }
  });

  it('jobs: GET /api/projects/:id/jobs, keeping undocumented fields', async () => {
    const jobs = [{ id: 91, status: 'Running', startedAt: '2026-11-22T00:00:00Z' }];
    service().get('/api/projects/522/jobs').query(KEY_QUERY).reply(200, jobs);
    expect(await createTestApi().projects.listJobs(522)).toEqual(jobs);
  });

  it('cancel: DELETE /api/projects/:id/jobs/:jobId, returning whatever came back', async () => {
    service()
      .delete('/api/projects/522/jobs/91')
      .query(KEY_QUERY)
      .reply(200, { id: 91, status: 'Cancelled' });
    expect(await createTestApi().projects.cancelJob(522, 91)).toEqual({ id: 91, status: 'Cancelled' });
  });

  it('jobs and a cancel answer that carry the key (a results link) are passed on without it', async () => {
    const link = `https://datapipeline.scraperapi.com/results/91?api_key=${SENTINEL_KEY}`;
    service()
      .get('/api/projects/522/jobs')
      .query(KEY_QUERY)
      .reply(200, [{ id: 91, status: 'Finished', resultsUrl: link, note: `key ${SENTINEL_KEY}` }]);
    service().delete('/api/projects/522/jobs/91').query(KEY_QUERY).reply(200, { id: 91, resultsUrl: link });
    const api = createTestApi();
    const jobs = await api.projects.listJobs(522);
    const cancelled = await api.projects.cancelJob(522, 91);
    expect(JSON.stringify([jobs, cancelled])).not.toContain(SENTINEL_KEY);
    expect(jobs).toEqual([
      {
        id: 91,
        status: 'Finished',
        resultsUrl: 'https://datapipeline.scraperapi.com/results/91?api_key=***',
        note: 'key ***',
      },
    ]);
  });

  it.each([
    [400, 'api.bad-request'],
    [401, 'api.unauthorized'],
    [403, 'api.forbidden'],
    [402, 'api.credits-exhausted'],
    [404, 'api.not-found'],
    [429, 'api.rate-limited'],
    [500, 'api.server-error'],
    [503, 'api.server-error'],
  ])('%i -> %s', async (status, code) => {
    // A 429 is retried even on a POST (nothing landed): it answers 429 to every try.
    service()
      .post('/api/projects')
      .query(true)
      .times(status === 429 ? 5 : 1)
      .reply(status, { error: 'no' });
    const error = (await createTestApi()
      .projects.create({ name: 'x' })
      .catch((e: unknown) => e)) as ApiError;
    expect([error.code, error.status]).toEqual([code, status]);
    expect(everythingShown(error)).not.toContain(SENTINEL_KEY);
  });

  it('a project without an id is a bad response', async () => {
    service()
      .get('/api/projects')
      .query(true)
      .reply(200, [{ name: 'x' }]);
    const error = (await createTestApi()
      .projects.list()
      .catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('api.bad-response');
    expect(error.message).toContain('unexpected response from GET /api/projects: field 0.id:');
  });
});
