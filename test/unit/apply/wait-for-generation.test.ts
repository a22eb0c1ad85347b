import { describe, expect, it, vi } from 'vitest';
import { FINE_LOOK_MIN_MS, GenerationPoller } from '../../../src/apply/generation-poller.js';
import { FakeTime, apply, creates, fakeService } from '../../helpers/fake-generations.js';
import type { ParserState } from '../../../src/state/model.js';

describe('waiting for generations', () => {
  it('--wait-timeout 1s looks until the deadline, not one poll early (issue 18 item 9)', async () => {
    const time = new FakeTime();
    const { clients, counts } = fakeService(time, { generationMs: 60_000 });
    const result = await apply(time, clients, creates(1), { waitTimeoutMs: 1000 });
    const [only] = result.results;
    expect(only?.error?.code).toBe('apply.wait-timeout');
    expect(only?.error?.message).toBe('parser.p0: version 0 still GENERATING after 1s');
    // A single waiter is read by its details: the first look after 250 ms, the last one at the deadline.
    expect(counts.getTimes).toEqual([250, 500, 750, 1000]);
  });

  it('a generation that finishes right at the deadline is seen finished', async () => {
    const time = new FakeTime();
    const { clients } = fakeService(time, { generationMs: 1000 });
    const result = await apply(time, clients, creates(1), { waitTimeoutMs: 1000 });
    expect(result.results[0]).toMatchObject({ ok: true, status: 'FINISHED', version: 0 });
  });

  it('many waiting parsers are polled with one list call per look, and no list before a create', async () => {
    const time = new FakeTime();
    const { clients, counts } = fakeService(time, { generationMs: 3000 });
    const result = await apply(time, clients, creates(40), { concurrency: 4, maxGenerating: 40 });
    expect(result.results.every((r) => r.ok && r.status === 'FINISHED')).toBe(true);
    expect(counts.create).toBe(40);
    expect(counts.get).toBe(0);
    // Looks come every 250 ms growing to 5% of the time waited: a few lists for all forty, never one each.
    expect(counts.list).toBeGreaterThan(0);
    expect(counts.list).toBeLessThanOrEqual(20);
    expect((counts.create + counts.list) / 40).toBeLessThanOrEqual(2);
  });

  it('a parser the list does not show yet is read by its id', async () => {
    const time = new FakeTime();
    const { clients, counts } = fakeService(time, { generationMs: 400, listLagMs: 60_000 });
    const result = await apply(time, clients, creates(3), { concurrency: 3 });
    expect(result.results.every((r) => r.ok && r.status === 'FINISHED')).toBe(true);
    expect(counts.list).toBeGreaterThan(0);
    expect(counts.get).toBeGreaterThanOrEqual(3);
  });

  it('a parser waiting for its generation holds no --concurrency slot', async () => {
    const time = new FakeTime();
    const { clients, parsers } = fakeService(time, { generationMs: 10_000 });
    const result = await apply(time, clients, creates(3), { concurrency: 1, maxGenerating: 3 });
    expect(result.results.every((r) => r.ok)).toBe(true);
    // All three were created before the first generation finished: none waited for another's generation.
    expect(parsers.map((p) => p.createdAt)).toEqual([0, 0, 0]);
  });

  it('--max-generating bounds the generations in flight', async () => {
    const time = new FakeTime();
    const { clients, inFlight, parsers } = fakeService(time, { generationMs: 1000 });
    const result = await apply(time, clients, creates(5), { concurrency: 5, maxGenerating: 2 });
    expect(result.results.every((r) => r.ok)).toBe(true);
    expect(inFlight.max).toBe(2);
    expect(parsers.filter((p) => p.createdAt === 0)).toHaveLength(2);
  });

  it('later waves are seen as they finish (the predicted look), for at most one more list a wave', async () => {
    const run = async (predict: boolean) => {
      const time = new FakeTime();
      // Calls take 40 ms with two at a time, so a wave of four starts in two groups 40 ms apart; a list takes 7 ms,
      // so the looks drift against the generations (as against a real service) and generations take 5,120 ms.
      const { clients, counts, parsers } = fakeService(time, { generationMs: 5120, createMs: 40, listMs: 7 });
      // Without the poller learning of finishes it looks at the cadence alone, as before the predicted look.
      const spy = predict
        ? undefined
        : vi.spyOn(GenerationPoller.prototype, 'finished').mockImplementation(() => undefined);
      try {
        // Waves of 4, 4 and 2: the last one starts from the first two of the second to be seen, as in bench/scale.js.
        const result = await apply(time, clients, creates(10), { concurrency: 2, maxGenerating: 4 });
        expect(result.results.every((r) => r.ok && r.status === 'FINISHED')).toBe(true);
        return { lists: counts.list, end: time.now, createdAt: parsers.map((p) => p.createdAt) };
      } finally {
        spy?.mockRestore();
      }
    };
    const cadence = await run(false);
    const predicted = await run(true);
    // Until the first finish nothing changes: the first wave starts as before.
    expect(predicted.createdAt.slice(0, 4)).toEqual(cadence.createdAt.slice(0, 4));
    // Each later wave starts sooner, and the apply ends more than a gap (250 ms) sooner.
    expect(predicted.createdAt[6]).toBeLessThan(cadence.createdAt[6] ?? 0);
    expect(predicted.createdAt[8]).toBeLessThan(cadence.createdAt[8] ?? 0);
    expect(predicted.end).toBeLessThan(cadence.end - 250);
    // Three waves: at most one more list each.
    expect(predicted.lists).toBeLessThanOrEqual(cadence.lists + 3);
  });
  it('a first wave that ends between two looks does not make the later ones late (the lower bound)', async () => {
    const time = new FakeTime();
    // Generations of 5,120 ms: the first wave is seen at 5,250 (the looks are 250 ms apart and the one at 5,000 saw
    // it running), so the shortest generation seen is 130 ms too long. The look at 5,000 bounds it from below.
    const { clients, parsers } = fakeService(time, { generationMs: 5120 });
    const result = await apply(time, clients, creates(12), { concurrency: 4, maxGenerating: 4 });
    expect(result.results.every((r) => r.ok && r.status === 'FINISHED')).toBe(true);
    const started = parsers.map((p) => p.createdAt);
    expect(started[4]).toBe(5250);
    // The second wave is seen within a fine gap of its finish (before, 50 ms after the 5,250 of the first).
    expect((started[8] ?? 0) - (started[4] ?? 0)).toBeLessThanOrEqual(5120 + FINE_LOOK_MIN_MS);
  });

  it('a parser whose details answer 404 a while after its create is waited for, not failed (F3)', async () => {
    const time = new FakeTime();
    const { clients, counts } = fakeService(time, { generationMs: 400, listLagMs: 60_000, notFoundMs: 5000 });
    const result = await apply(time, clients, creates(1), {});
    expect(result.results[0]).toMatchObject({ ok: true, status: 'FINISHED', version: 0 });
    // Read by id before and after the service found it: one create, no failure on the 404s.
    expect(counts.create).toBe(1);
    expect(counts.getTimes.filter((t) => t < 5000).length).toBeGreaterThan(0);
    expect(result.results[0]?.warnings).toEqual([
      'version 0 of id-0 is not found yet (the service answers 404 right after it was made): read as not visible yet, waiting for it',
    ]);
    expect(result.state.resources['parser.p0']).toMatchObject({ id: 'id-0', version: 0 });
  });

  it('a 404 that outlasts --wait-timeout ends the wait as not visible yet; state keeps the parser, pending (F3)', async () => {
    const time = new FakeTime();
    const { clients, counts } = fakeService(time, {
      generationMs: 400,
      listLagMs: 60_000,
      notFoundMs: 60_000,
    });
    const result = await apply(time, clients, creates(1), { waitTimeoutMs: 1000 });
    const [only] = result.results;
    expect(only?.ok).toBe(false);
    expect(only?.error?.code).toBe('apply.wait-timeout');
    expect(only?.error?.message).toBe(
      'parser.p0: version 0 of id-0 was made but the service still answers 404 for it after 1s (not visible yet)',
    );
    expect(only?.error?.hint).toContain('state keeps it');
    // Looked until the deadline, as for a generation still running.
    expect(counts.getTimes.at(-1)).toBe(1000);
    const kept = result.state.resources['parser.p0'] as ParserState | undefined;
    expect(kept).toMatchObject({ id: 'id-0', version: null, pending: { version: 0 } });
  });
});
