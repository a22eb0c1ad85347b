import { describe, expect, it } from 'vitest';
import type { ApiClients } from '../../../src/api/create-clients.js';
import type { LiveParserDetails, LiveParserSummary } from '../../../src/api/live.js';
import { applyPlan } from '../../../src/apply/apply-plan.js';
import type { ApplyOptions } from '../../../src/apply/apply-plan.js';
import type { ParserCreate, Plan } from '../../../src/plan/model.js';
import type { StateBackend } from '../../../src/state/backend.js';
import { emptyState } from '../../../src/state/model.js';
import type { State } from '../../../src/state/model.js';

/** Time that moves only when every sleeper is waiting: the earliest sleep ends first. */
class FakeTime {
  now = 0;
  private timers: { at: number; resolve: () => void }[] = [];
  readonly sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => this.timers.push({ at: this.now + ms, resolve }));

  async run<T>(work: Promise<T>): Promise<T> {
    let done = false;
    void work.finally(() => (done = true)).catch(() => undefined);
    while (!done) {
      // Let promise chains and I/O callbacks settle before time moves on.
      await new Promise((resolve) => setImmediate(resolve));
      if (done) break;
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers.shift();
      if (next === undefined) continue;
      this.now = Math.max(this.now, next.at);
      next.resolve();
    }
    return work;
  }
}

interface FakeParser {
  id: string;
  name: string;
  createdAt: number;
  finishesAt: number;
}

/** A parser service in memory whose generations finish at a chosen time; it counts calls. */
function fakeService(
  time: FakeTime,
  options: { generationMs: number; listLagMs?: number },
): {
  clients: ApiClients;
  parsers: FakeParser[];
  counts: { create: number; list: number; get: number; getTimes: number[] };
  inFlight: { max: number };
} {
  const parsers: FakeParser[] = [];
  const counts = { create: 0, list: 0, get: 0, getTimes: [] as number[] };
  const inFlight = { max: 0 };
  const status = (p: FakeParser): string => (time.now >= p.finishesAt ? 'FINISHED' : 'GENERATING');
  const service = {
    async create(input: { name: string }): Promise<{ id: string; version: number }> {
      counts.create++;
      const generating = parsers.filter((p) => time.now < p.finishesAt).length + 1;
      inFlight.max = Math.max(inFlight.max, generating);
      const parser = {
        id: `id-${parsers.length}`,
        name: input.name,
        createdAt: time.now,
        finishesAt: time.now + options.generationMs,
      };
      parsers.push(parser);
      return { id: parser.id, version: 0 };
    },
    async list(): Promise<LiveParserSummary[]> {
      counts.list++;
      return parsers
        .filter((p) => time.now >= p.createdAt + (options.listLagMs ?? 0))
        .map((p) => ({ id: p.id, name: p.name, status: status(p), error: null, version: 0 }));
    },
    async get(id: string, version: number): Promise<LiveParserDetails> {
      counts.get++;
      counts.getTimes.push(time.now);
      const parser = parsers.find((p) => p.id === id);
      if (parser === undefined) throw new Error(`no parser ${id}`);
      const finished = status(parser) === 'FINISHED';
      return {
        id,
        name: parser.name,
        version,
        status: status(parser),
        error: null,
        createdAt: null,
        generatedAt: null,
        exampleResult: null,
        fields: finished ? [{ name: 'title' }] : [],
      };
    },
  };
  const clients = {
    parsers: service,
    projects: {},
    close: async () => undefined,
  } as unknown as ApiClients;
  return { clients, parsers, counts, inFlight };
}

const memoryBackend: StateBackend = {
  location: 'memory',
  read: async () => emptyState(''),
  write: async (state: State) => ({ ...state, serial: state.serial + 1, lineage: 'l' }),
  lock: async () => {
    throw new Error('not used');
  },
  forceUnlock: async () => undefined,
};

function creates(count: number): Plan {
  const changes: ParserCreate[] = Array.from({ length: count }, (_, i) => ({
    kind: 'Parser',
    action: 'create',
    address: `parser.p${i}`,
    name: `p${i}`,
    id: null,
    definition: {
      urls: ['https://books.example/a.html'],
      scraperParams: {},
      fields: [{ name: 'title', description: 'Heading' }],
    },
    reasons: ['not yet created'],
    regenerates: true,
    destructive: false,
    field_changes: [],
    breaking: [],
  }));
  return { resource_changes: changes } as unknown as Plan;
}

function apply(
  time: FakeTime,
  clients: ApiClients,
  plan: Plan,
  options: Partial<ApplyOptions>,
): ReturnType<typeof applyPlan> {
  return time.run(
    applyPlan({
      plan,
      clients,
      backend: memoryBackend,
      state: emptyState(''),
      live: { parsers: [], projects: [] },
      sleep: time.sleep,
      now: () => time.now,
      pollMinMs: 250,
      pollMaxMs: 2000,
      ...options,
    }),
  );
}

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
});
