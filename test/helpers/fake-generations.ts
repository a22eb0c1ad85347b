import { ApiError } from '../../src/api/api-error.js';
import type { ApiClients } from '../../src/api/create-clients.js';
import type { LiveParserDetails, LiveParserSummary } from '../../src/api/live.js';
import { applyPlan } from '../../src/apply/apply-plan.js';
import type { ApplyOptions } from '../../src/apply/apply-model.js';
import type { ParserCreate, Plan } from '../../src/plan/model.js';
import type { StateBackend } from '../../src/state/backend.js';
import { emptyState } from '../../src/state/model.js';
import type { State } from '../../src/state/model.js';

// A parser service in memory and a clock that moves only when apply waits: apply's scheduling, in fake time.

/** Time that moves only when every sleeper is waiting: the earliest sleep ends first. */
export class FakeTime {
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

export interface FakeParser {
  id: string;
  name: string;
  createdAt: number;
  finishesAt: number;
}

/** A parser service in memory whose generations finish at a chosen time; it counts calls. */
export function fakeService(
  time: FakeTime,
  options: {
    generationMs: number;
    listLagMs?: number;
    /** How long after its create a parser's details answer 404 (a service read from replicas). */
    notFoundMs?: number;
    createMs?: number;
    listMs?: number;
    /** How long a details read takes; it answers with the status at its end. */
    getMs?: number;
    /** From this time on reads (lists and details) get no answer: each hangs until its signal aborts. */
    silentFromMs?: number;
    /** The clients' request timeout (`--timeout`): how long a wait gives its last look. */
    timeoutMs?: number;
  },
): {
  clients: ApiClients;
  parsers: FakeParser[];
  counts: { create: number; list: number; get: number; getTimes: number[]; calledOff: number };
  inFlight: { max: number };
} {
  const parsers: FakeParser[] = [];
  const counts = { create: 0, list: 0, get: 0, getTimes: [] as number[], calledOff: 0 };
  // A read the service does not answer: it ends only when its signal aborts, failing as the transport's would.
  const silence = (method: 'GET', url: string, signal: AbortSignal | undefined): Promise<never> =>
    new Promise((_, reject) =>
      signal?.addEventListener(
        'abort',
        () => {
          counts.calledOff++;
          reject(
            new ApiError({
              code: 'api.network',
              status: 0,
              method,
              url,
              retryable: false,
              secrets: [],
              message: 'aborted',
            }),
          );
        },
        { once: true },
      ),
    );
  const silent = (): boolean => options.silentFromMs !== undefined && time.now >= options.silentFromMs;
  const inFlight = { max: 0 };
  const status = (p: FakeParser): string => (time.now >= p.finishesAt ? 'FINISHED' : 'GENERATING');
  const service = {
    async create(input: { name: string }): Promise<{ id: string; version: number }> {
      if (options.createMs !== undefined) await time.sleep(options.createMs);
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
    async list(signal?: AbortSignal): Promise<LiveParserSummary[]> {
      if (options.listMs !== undefined) await time.sleep(options.listMs);
      counts.list++;
      if (silent()) return silence('GET', 'https://parsers.test/parsers', signal);
      return parsers
        .filter((p) => time.now >= p.createdAt + (options.listLagMs ?? 0))
        .map((p) => ({ id: p.id, name: p.name, status: status(p), error: null, version: 0 }));
    },
    async get(id: string, version: number, signal?: AbortSignal): Promise<LiveParserDetails> {
      counts.get++;
      counts.getTimes.push(time.now);
      if (silent()) return silence('GET', `https://parsers.test/parsers/${id}/${version}`, signal);
      if (options.getMs !== undefined) await time.sleep(options.getMs);
      const parser = parsers.find((p) => p.id === id);
      if (parser === undefined) throw new Error(`no parser ${id}`);
      if (time.now < parser.createdAt + (options.notFoundMs ?? 0))
        throw new ApiError({
          code: 'api.not-found',
          status: 404,
          method: 'GET',
          url: `https://parsers.test/parsers/${id}/${version}`,
          retryable: false,
          secrets: [],
        });
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
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  } as unknown as ApiClients;
  return { clients, parsers, counts, inFlight };
}

export const memoryBackend: StateBackend = {
  location: 'memory',
  read: async () => emptyState(''),
  write: async (state: State) => ({ ...state, serial: state.serial + 1, lineage: 'l' }),
  lock: async () => {
    throw new Error('not used');
  },
  forceUnlock: async () => undefined,
};

export function creates(count: number): Plan {
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

export function apply(
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
