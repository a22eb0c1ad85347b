import { describe, expect, it } from 'vitest';
import type { ApiClients } from '../../../src/api/create-clients.js';
import { applyPlan } from '../../../src/apply/apply-plan.js';
import { emptyState } from '../../../src/state/model.js';
import { FakeTime, apply, creates, fakeService, memoryBackend } from '../../helpers/fake-generations.js';
import type { ParserState } from '../../../src/state/model.js';

// A wait ends by its deadline plus one request try (--timeout), even when the service stops answering its looks:
// a look still in flight then is given up. In fake time: without the cut these waits would never end.

const HINT = 'the calls were made and recorded; run plan later to see it finish, or raise --wait-timeout';

describe('the last look of a wait', () => {
  it('a details read the service never answers is given up one request timeout after --wait-timeout', async () => {
    const time = new FakeTime();
    const { clients, counts } = fakeService(time, {
      generationMs: 60_000,
      silentFromMs: 1000,
      timeoutMs: 1000,
    });
    const result = await apply(time, clients, creates(1), { waitTimeoutMs: 2000 });
    const [only] = result.results;
    expect(only?.ok).toBe(false);
    expect(only?.error).toEqual({
      code: 'apply.wait-timeout',
      message:
        'parser.p0: version 0 was still GENERATING when last seen: the service did not answer the last look in time (it had 1 s, one request timeout, past --wait-timeout; given up after 3s)',
      hint: HINT,
    });
    // The look at 1000 got no answer; none came after it, and it was called off rather than left running.
    expect(counts.getTimes).toEqual([250, 500, 750, 1000]);
    expect(counts.calledOff).toBe(1);
    // Kept as after any wait-timeout: the create landed, its version pending, so the next plan creates nothing.
    const kept = result.state.resources['parser.p0'] as ParserState | undefined;
    expect(kept).toMatchObject({ id: 'id-0', version: null, pending: { version: 0 } });
  });

  it('is not cut early: a read answered within the request timeout past the deadline is used', async () => {
    const time = new FakeTime();
    // Reads take 800 ms: the one sent at 1300 is answered at 2100, past the deadline (2000), with the generation
    // FINISHED (at 2050). A cut at the deadline itself would have given it up.
    const { clients, counts } = fakeService(time, { generationMs: 2050, getMs: 800, timeoutMs: 1000 });
    const result = await apply(time, clients, creates(1), { waitTimeoutMs: 2000 });
    expect(result.results[0]).toMatchObject({ ok: true, status: 'FINISHED', version: 0 });
    expect(counts.getTimes).toEqual([250, 1300]);
    expect(counts.calledOff).toBe(0);
  });

  it('a version never seen whose last look goes unanswered keeps the not-visible-yet hint', async () => {
    const time = new FakeTime();
    const { clients } = fakeService(time, {
      generationMs: 400,
      listLagMs: 60_000,
      notFoundMs: 60_000,
      silentFromMs: 1000,
      timeoutMs: 1000,
    });
    const result = await apply(time, clients, creates(1), { waitTimeoutMs: 2000 });
    const error = result.results[0]?.error;
    expect(error?.code).toBe('apply.wait-timeout');
    expect(error?.message).toBe(
      'parser.p0: version 0 of id-0 was made, and looks at it were answered 404 so far (not visible yet): the service did not answer the last look in time (it had 1 s, one request timeout, past --wait-timeout; given up after 3s)',
    );
    expect(error?.hint).toContain('state keeps it, pending');
    expect(error?.hint).toContain('unless you pass --recreate parser.p0');
  });

  it('waiters sharing a list that never answers each end at their cut, and the list is then called off', async () => {
    const time = new FakeTime();
    const { clients, counts } = fakeService(time, {
      generationMs: 60_000,
      silentFromMs: 1000,
      timeoutMs: 1000,
    });
    const result = await apply(time, clients, creates(2), { concurrency: 2, waitTimeoutMs: 2000 });
    expect(result.results.map((r) => r.error?.code)).toEqual(['apply.wait-timeout', 'apply.wait-timeout']);
    expect(result.results[1]?.error?.message).toBe(
      'parser.p1: version 0 was still GENERATING when last seen: the service did not answer the last look in time (it had 1 s, one request timeout, past --wait-timeout; given up after 3s)',
    );
    // Two waiters are looked at through the list alone; no details read is sent after the cut, and the list nobody
    // waits for any more is called off.
    expect(counts.get).toBe(0);
    expect(counts.calledOff).toBe(1);
  });
});

describe('the timer of the cut', () => {
  it('is never a sleep passed without a clock: that timer could not be called off after apply returned', async () => {
    // A caller's own sleep (real, here recorded and shortened) and the real clock: the cut's 15 min 30 s (the default
    // wait plus one request try) must be a real timer, called off when the wait ends, not a sleep that runs on.
    const slept: number[] = [];
    const clients = {
      parsers: {
        list: async () => [],
        create: async () => ({ id: 'id-0', version: 0 }),
        get: async (id: string, version: number) => ({
          id,
          name: 'p0',
          version,
          status: 'FINISHED',
          fields: [{ name: 'title', type: 'text' }],
        }),
      },
      projects: {},
      close: async () => undefined,
    } as unknown as ApiClients;
    const result = await applyPlan({
      plan: creates(1),
      clients,
      backend: memoryBackend,
      state: emptyState(''),
      live: { parsers: [], projects: [] },
      sleep: async (ms) => {
        slept.push(ms);
        await new Promise((resolve) => setImmediate(resolve));
      },
      pollMinMs: 1,
    });
    expect(result.results[0]).toMatchObject({ ok: true, status: 'FINISHED' });
    expect(slept.filter((ms) => ms >= 15 * 60_000)).toEqual([]);
  });
});
