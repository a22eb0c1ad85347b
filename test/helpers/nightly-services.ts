import type { ApiClients } from '../../src/api/create-clients.js';
import type { Services } from '../../src/workspace/open-workspace.js';
import { createTestApi } from './api.js';
import { stateOf } from './state.js';

/**
 * Services for the commands that act on one managed project (run, jobs, cancel): state manages project 522 as
 * `project.nightly` (with `recorded` added to its record), and the clients talk to nock (with `timeoutMs`, the
 * request timeout).
 */
export function nightlyServices(timeoutMs?: number, recorded: Record<string, unknown> = {}): Services {
  const api = createTestApi(timeoutMs !== undefined ? { timeoutMs } : {});
  return {
    backend: {
      read: async () =>
        stateOf({
          'project.nightly': { kind: 'Project', id: 522, name: 'nightly', definition: {}, ...recorded },
        }),
    },
    clients: {
      projects: api.projects,
      parsers: api.parsers,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    } as unknown as ApiClients,
    warnings: [],
    close: async () => undefined,
  } as unknown as Services;
}
