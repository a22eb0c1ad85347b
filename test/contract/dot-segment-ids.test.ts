import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { ScrapeformError } from '../../src/errors.js';
import { NOCK_ENV, PARSER_ORIGIN, PIPELINE_ORIGIN, createTestApi, useNock } from '../helpers/api.js';
import { runScrapeform } from '../helpers/cli.js';
import { contractFolder } from '../helpers/contract-folder.js';

/**
 * Review: `scrapeform cancel nightly ..` sent DELETE /api/projects/522/jobs/.., which the URL resolves to
 * DELETE /api/projects/522/ (the project's archive, which the API cannot undo), and said "cancel requested"; `.` and
 * an empty id (an unset $JOB_ID) sent DELETE /api/projects/522/jobs/. Percent-encoding leaves dot segments as they are.
 */
useNock();
const folder = contractFolder('scrapeform-dot-segments-');

/** Every request that reaches either service, whatever its method and path. */
function recordEverything(): string[] {
  const sent: string[] = [];
  for (const origin of [PIPELINE_ORIGIN, PARSER_ORIGIN])
    for (const method of ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'])
      nock(origin)
        .intercept(/.*/, method)
        .reply((uri) => {
          sent.push(`${method} ${uri}`);
          return [204, ''];
        })
        .persist();
  return sent;
}

describe('an id that is a dot segment or empty is never sent in a path', () => {
  it.each(['..', '.', '', ' '])('cancel nightly %j is a usage error, and nothing is sent', async (jobId) => {
    const state = path.join(folder.dir(), '.scrapeform', 'state.json');
    await mkdir(path.dirname(state), { recursive: true });
    await writeFile(
      state,
      JSON.stringify({
        format_version: 1,
        serial: 1,
        lineage: 'L',
        resources: { 'project.nightly': { kind: 'Project', id: 522, name: 'nightly', definition: {} } },
      }),
    );
    const sent = recordEverything();
    const run = await runScrapeform(['cancel', 'nightly', jobId, '--state', state], { env: NOCK_ENV });
    nock.cleanAll();
    expect([run.code, run.stdout, sent]).toEqual([1, '', []]);
    expect(run.stderr).toBe(
      `error: <job-id> ${JSON.stringify(jobId)} is no job id; nothing was sent\n  hint: scrapeform jobs nightly lists the jobs and their ids\n`,
    );
  });

  it.each([
    ['a job cancel', (api: ReturnType<typeof createTestApi>) => api.projects.cancelJob(522, '..')],
    ['a project read', (api: ReturnType<typeof createTestApi>) => api.projects.get('.' as unknown as number)],
    ['a parser delete', (api: ReturnType<typeof createTestApi>) => api.parsers.delete('..')],
    ['a parser read', (api: ReturnType<typeof createTestApi>) => api.parsers.get('')],
  ])('the clients refuse it too (%s): api.unsafe-path, nothing sent', async (_what, call) => {
    const sent = recordEverything();
    const error = await Promise.resolve()
      .then(() => call(createTestApi()))
      .catch((e: unknown) => e);
    nock.cleanAll();
    expect(error).toBeInstanceOf(ScrapeformError);
    expect((error as ScrapeformError).code).toBe('api.unsafe-path');
    expect((error as ScrapeformError).message).toMatch(
      /^the id "\.{0,2}" cannot be sent in a request's path: it would name another resource; nothing was sent$/,
    );
    expect(sent).toEqual([]);
  });
});
