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

  it('does not read again after a lock lost with its database connection (the cause), which may not answer either', async () => {
    const backend = backendHolding(recordedState);
    const lost = new ScrapeformError(
      'state.lock-lost',
      'the state lock of db was lost with the database connection that held it: the state was not written',
      { cause: new Error('Query read timeout') },
    );
    const error = (await withUnrecordedCalls(
      lost,
      [created],
      structuredClone(recordedState),
      backend,
    )) as ScrapeformError;
    expect(backend.reads).toBe(0);
    expect(error.code).toBe('state.lock-lost');
    expect(error.details.unrecorded).toEqual(['project.a']);
  });

  it('names at most 20 changes in its message; details hold them all', async () => {
    const backend = backendHolding(emptyState('L'));
    const full = new ScrapeformError('state.io', 'cannot write the state file state.json: no space left');
    const many = Array.from({ length: 25 }, (_, i) => ({ ...created, address: `project.p${i}`, id: i }));
    // This run holds the 25 objects; the state read again holds none of them.
    const holding: State = {
      ...emptyState('L'),
      resources: Object.fromEntries(
        many.map((r) => [r.address, { kind: 'Project' as const, id: r.id, name: r.address, definition: {} }]),
      ),
    };
    const error = (await withUnrecordedCalls(full, many, holding, backend)) as ScrapeformError;
    expect(error.message).toContain(
      `state does not hold all it did for ${many
        .slice(0, 20)
        .map((r) => `${r.address} (create)`)
        .join(', ')} and 5 more, which the next apply reads again`,
    );
    expect(error.details.unrecorded).toHaveLength(25);
  });

  it('leaves an error that is no state error as it is', async () => {
    const backend = backendHolding(recordedState);
    const other = new Error('boom');
    expect(await withUnrecordedCalls(other, [created], emptyState('L'), backend)).toBe(other);
    expect(backend.reads).toBe(0);
  });
});
