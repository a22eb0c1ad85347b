import { describe, expect, it } from 'vitest';
import type { ChangeResult } from '../../../src/apply/apply-model.js';
import { withUnrecordedCalls } from '../../../src/apply/unrecorded-calls.js';
import { ScrapeformError } from '../../../src/errors.js';
import type { StateBackend } from '../../../src/state/backend.js';
import { emptyState } from '../../../src/state/model.js';
import type { State } from '../../../src/state/model.js';

const created: ChangeResult = {
  address: 'project.a',
  action: 'create',
  ok: true,
  calls: [{ method: 'POST', path: '/api/projects', status: 201 }],
  id: 1,
};
const recordedState: State = {
  ...emptyState('L'),
  resources: { 'project.a': { kind: 'Project' as const, id: 1, name: 'a', definition: {} } },
};

/** A backend whose read answers `stored`, counting the reads. */
function backendHolding(stored: State): StateBackend & { reads: number } {
  const backend = {
    location: 'state.json',
    reads: 0,
    read: async () => {
      backend.reads++;
      return structuredClone(stored);
    },
  };
  return backend as unknown as StateBackend & { reads: number };
}

describe('withUnrecordedCalls', () => {
  it('names nothing for a change the state read again holds, after a lost lock too', async () => {
    const backend = backendHolding(recordedState);
    const lost = new ScrapeformError('state.lock-lost', 'the state lock is no longer held by this run');
    const error = await withUnrecordedCalls(lost, [created], structuredClone(recordedState), backend);
    expect(error).toBe(lost);
    expect(backend.reads).toBe(1);
  });

  it('does not read a database that did not answer again, and names every change that made calls', async () => {
    const backend = backendHolding(recordedState);
    const silent = new ScrapeformError('state.unreachable', 'the state database did not answer');
    const error = (await withUnrecordedCalls(
      silent,
      [created],
      structuredClone(recordedState),
      backend,
    )) as ScrapeformError;
    expect(backend.reads).toBe(0);
    expect(error.code).toBe('state.unreachable');
    expect(error.message).toContain('apply stopped: state does not hold all it did for project.a (create)');
    expect(error.details.unrecorded).toEqual(['project.a']);
  });

  it('leaves an error that is no state error as it is', async () => {
    const backend = backendHolding(recordedState);
    const other = new Error('boom');
    expect(await withUnrecordedCalls(other, [created], emptyState('L'), backend)).toBe(other);
    expect(backend.reads).toBe(0);
  });
});
