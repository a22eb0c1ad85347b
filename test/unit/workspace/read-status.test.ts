import { describe, expect, it } from 'vitest';
import type { LiveProject } from '../../../src/api/live.js';
import type { State } from '../../../src/state/model.js';
import { stateOf } from '../../helpers/state.js';
import type { Services } from '../../../src/workspace/open-workspace.js';
import { readStatus } from '../../../src/workspace/read-status.js';

/** Services that answer with one project as given, and no jobs. */
function servicesWith(live: LiveProject): Services {
  const state: State = stateOf({
    'project.weekly': { kind: 'Project', id: live.id, name: 'weekly', definition: {} },
  });
  return {
    backend: { read: async () => state },
    clients: {
      projects: { list: async () => [live], get: async () => live, listJobs: async () => [] },
      parsers: { list: async () => [] },
    },
  } as unknown as Services;
}

describe('status of a project whose answer leaves its schedule out', () => {
  it('says the schedule is not reported, never "once" or "scheduled"', async () => {
    const rows = await readStatus(servicesWith({ id: 9, name: 'weekly' }));
    expect(rows).toEqual([
      {
        address: 'project.weekly',
        id: 9,
        status: 'scheduling not reported',
        drift: false,
        schedule: '?',
        nextRun: null,
        lastJob: null,
      },
    ]);
  });

  it('reads a reported schedule as it is', async () => {
    const rows = await readStatus(
      servicesWith({ id: 9, name: 'weekly', scrapingInterval: 'weekly', schedulingEnabled: true }),
    );
    expect(rows[0]).toMatchObject({ status: 'scheduled', schedule: 'weekly' });
  });
});
