import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/api/api-error.js';
import type { ApiClients } from '../../../src/api/create-clients.js';
import { applyPlan } from '../../../src/apply/apply-plan.js';
import { summarise } from '../../../src/plan/build-plan.js';
import { recoverIntents } from '../../../src/plan/recover-intents.js';
import type {
  ParserCreate,
  ParserFinishReplace,
  ParserUpdate,
  Plan,
  ProjectCreate,
  ResourceChange,
} from '../../../src/plan/model.js';
import type { StateBackend } from '../../../src/state/backend.js';
import type { ParserDefinition, ParserState, State } from '../../../src/state/model.js';
import { until } from '../../helpers/until.js';

const definition: ParserDefinition = {
  urls: ['https://books.example/a.html'],
  scraperParams: {},
  fields: [{ name: 'title', description: 'Book title' }],
};

/** State in memory; every write is kept, in order, so a test sees what was durable before each call. */
function memoryBackend(initial: State): StateBackend & { writes: State[] } {
  let stored = structuredClone(initial);
  const writes: State[] = [];
  return {
    location: 'memory',
    writes,
    read: async () => structuredClone(stored),
    write: async (state) => {
      stored = { ...structuredClone(state), serial: stored.serial + 1 };
      writes.push(structuredClone(stored));
      return structuredClone(stored);
    },
    lock: async () => ({
      info: { holder: 't', host: 'h', pid: 1, started: '', operation: 'apply' },
      release: async () => undefined,
    }),
    forceUnlock: async () => undefined,
  };
}

function planOf(change: ResourceChange): Plan {
  return {
    format_version: 1,
    status: 'changes',
    summary: summarise([]),
    resource_changes: [change],
    drift: [],
    warnings: [],
    fingerprint: { state_lineage: 'L', state_serial: 1, live: {} },
  };
}

const create: ParserCreate = {
  address: 'parser.books',
  kind: 'Parser',
  name: 'books',
  action: 'create',
  id: null,
  reasons: ['not yet created'],
  definition,
  regenerates: true,
  destructive: false,
  field_changes: [],
  breaking: [],
};

const empty: State = { format_version: 1, serial: 1, lineage: 'L', resources: {} };

/** Parser clients whose create answers with `answer`, recording what state held when it was called. */
function clients(answer: () => Promise<{ id: string; version: number }>, backend: { writes: State[] }) {
  const seenAtPost: (State | undefined)[] = [];
  const calls: string[] = [];
  const parsers = {
    list: async () => [],
    create: async () => {
      calls.push('POST');
      seenAtPost.push(backend.writes.at(-1));
      return answer();
    },
    get: async (id: string, version: number) => ({ id, name: 'books', version, status: 'FINISHED' }),
    delete: async (id: string) => {
      calls.push(`DELETE ${id}`);
      return { status: 204 };
    },
  };
  return {
    clients: { parsers, projects: {}, close: async () => undefined } as unknown as ApiClients,
    seenAtPost,
    calls,
  };
}

/** A failed call of the parser service, as the transport reports it (POST /parsers unless said otherwise). */
function apiFailure(
  code: ApiError['code'],
  status: number,
  extra: { method?: string; url?: string; retryable?: boolean; message?: string; cause?: Error } = {},
): ApiError {
  const { method = 'POST', url = 'http://127.0.0.1/parsers', retryable = false, ...rest } = extra;
  return new ApiError({ code, status, method, url, secrets: [], retryable, ...rest });
}

const noAnswer = (): ApiError => apiFailure('api.network', 0);

describe('apply records a create intent before its POST', () => {
  it('the intent is durable before the POST, and spent once the answer is recorded', async () => {
    const backend = memoryBackend(empty);
    const fake = clients(async () => ({ id: 'p-1', version: 0 }), backend);
    const result = await applyPlan({
      plan: planOf(create),
      clients: fake.clients,
      backend,
      state: structuredClone(empty),
      pollMinMs: 1,
    });
    expect(result.results[0]?.ok).toBe(true);
    // Written with its own write just before the POST: marked sent (a kill after it leaves an unconfirmed create).
    expect(fake.seenAtPost[0]?.intents).toEqual({
      'parser.books': {
        kind: 'Parser',
        name: 'books',
        definition,
        before: [],
        sent: expect.any(String) as string,
      },
    });
    expect(result.state.intents).toBeUndefined();
    expect(result.state.resources['parser.books']).toMatchObject({
      id: 'p-1',
      version: 0,
      descriptionsKnown: true,
    });
  });

  /** The create of parser.books answered with `failure` (after `setUp` adjusts the clients); what apply left. */
  async function failedCreate(
    failure: ApiError,
    setUp: (fake: ReturnType<typeof clients>) => void = () => undefined,
  ) {
    const backend = memoryBackend(empty);
    const fake = clients(async () => Promise.reject(failure), backend);
    setUp(fake);
    const result = await applyPlan({
      plan: planOf(create),
      clients: fake.clients,
      backend,
      state: structuredClone(empty),
      now: () => Date.parse('2026-11-26T02:00:00.000Z'),
    });
    expect(result.results[0]?.ok).toBe(false);
    return { error: result.results[0]?.error, calls: fake.calls, stored: await backend.read() };
  }

  it('a lost answer is not followed by a second POST: the intent stays for the next plan to look for', async () => {
    const { error, calls, stored } = await failedCreate(noAnswer());
    expect(error?.code).toBe('apply.create-unconfirmed');
    expect(calls).toEqual(['POST']);
    // Marked: the POST went out and nothing confirmed it, so the next plan does not send it again unasked.
    expect(stored.intents?.['parser.books']).toEqual({
      kind: 'Parser',
      name: 'books',
      definition,
      before: [],
      sent: '2026-11-26T02:00:00.000Z',
      unconfirmed: '2026-11-26T02:00:00.000Z',
    });
  });

  it("a lost answer whose list check is refused (429) keeps the intent: the refusal is the list's, not the create's", async () => {
    const limited = apiFailure('api.rate-limited', 429, {
      method: 'GET',
      retryable: true,
      message: 'HTTP 429: refused, nothing applied',
    });
    const { error, calls, stored } = await failedCreate(noAnswer(), (fake) => {
      // The list before the POST (no lists from a plan here) answers; the one after the lost answer is refused.
      let lists = 0;
      (fake.clients.parsers as unknown as { list: () => Promise<never[]> }).list = async () =>
        lists++ === 0 ? [] : Promise.reject(limited);
    });
    expect(error?.code).toBe('apply.create-unconfirmed');
    expect(error?.message).toBe(
      'the create of "books" got no clear answer (POST http://127.0.0.1/parsers: network error) and the list to look for it failed too (GET http://127.0.0.1/parsers: 429: HTTP 429: refused, nothing applied); it was not sent again',
    );
    expect(calls).toEqual(['POST']);
    expect(stored.intents?.['parser.books']).toMatchObject({
      kind: 'Parser',
      name: 'books',
      unconfirmed: '2026-11-26T02:00:00.000Z',
    });
  });

  it('a list before the POST answered 200 but unreadable: nothing was sent, so no lost POST is reported', async () => {
    const unreadable = apiFailure('api.bad-response', 200, {
      method: 'GET',
      message: 'unexpected response from GET /parsers',
    });
    const backend = memoryBackend(empty);
    const fake = clients(async () => ({ id: 'p-1', version: 0 }), backend);
    (fake.clients.parsers as unknown as { list: () => Promise<never[]> }).list = async () =>
      Promise.reject(unreadable);
    const events: string[] = [];
    const result = await applyPlan({
      plan: planOf(create),
      clients: fake.clients,
      backend,
      state: structuredClone(empty),
      onEvent: (event) => events.push(event.type),
    });
    expect(result.results[0]?.error?.code).toBe('api.bad-response');
    expect(fake.calls).toEqual([]);
    // A POST that may have landed would count against watch's budget of regenerations; none was sent.
    expect(events).not.toContain('call-unanswered');
    expect((await backend.read()).intents).toBeUndefined();
  });

  it('a refused connection never sent the POST: not ambiguous, no list read, the intent goes', async () => {
    const refusedConnection = apiFailure('api.network', 0, {
      retryable: true,
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
    });
    let lists = 0;
    const { error, stored } = await failedCreate(refusedConnection, (fake) => {
      (fake.clients.parsers as unknown as { list: () => Promise<never[]> }).list = async () => {
        lists++;
        return [];
      };
    });
    expect(error?.code).toBe('api.network');
    // The one list is the one before the POST (no lists from a plan here): none after it.
    expect(lists).toBe(1);
    expect(stored.intents).toBeUndefined();
  });

  it('a refused create sent again with --recreate puts back the earlier unconfirmed intent it took the place of', async () => {
    const earlier = {
      kind: 'Parser' as const,
      name: 'books',
      definition,
      before: [],
      unconfirmed: '2026-11-26T01:00:00.000Z',
    };
    const start: State = { ...empty, intents: { 'parser.books': earlier } };
    const backend = memoryBackend(start);
    const noCredits = apiFailure('api.credits-exhausted', 402);
    const fake = clients(async () => Promise.reject(noCredits), backend);
    for (const live of [undefined, { parsers: [], projects: [] }]) {
      // Without the plan's lists (its own intent write) and with them (written ahead with the plan).
      const result = await applyPlan({
        plan: planOf(create),
        clients: fake.clients,
        backend,
        state: structuredClone(start),
        ...(live !== undefined ? { live } : {}),
      });
      expect(result.results[0]?.ok).toBe(false);
      expect((await backend.read()).intents).toEqual({ 'parser.books': earlier });
    }
  });

  it('a refusal (4xx) created nothing: the intent goes', async () => {
    const refused = apiFailure('api.bad-request', 400);
    expect((await failedCreate(refused)).stored.intents).toBeUndefined();
  });

  describe('a PATCH records its intent before it is sent', () => {
    const patched: ParserDefinition = {
      ...definition,
      fields: [...definition.fields, { name: 'isbn', description: 'ISBN' }],
    };
    const update: ParserUpdate = {
      address: 'parser.books',
      kind: 'Parser',
      name: 'books',
      action: 'update',
      id: 'p-1',
      baseVersion: 2,
      waves: [{ add_fields: [{ name: 'isbn', description: 'ISBN' }] }],
      definition: patched,
      descriptionsKnown: true,
      reasons: ['fields changed'],
      regenerates: true,
      destructive: false,
      field_changes: [],
      breaking: [],
    };
    const managed: State = {
      ...empty,
      resources: {
        'parser.books': {
          kind: 'Parser',
          id: 'p-1',
          name: 'books',
          version: 2,
          definition,
          descriptionsKnown: true,
        },
      },
    };
    const patching = async (failure: ApiError) => {
      const backend = memoryBackend(managed);
      let durableAtPatch: State | undefined;
      const parsers = {
        update: async () => {
          durableAtPatch = backend.writes.at(-1);
          return Promise.reject(failure);
        },
      };
      const result = await applyPlan({
        plan: planOf(update),
        clients: { parsers, projects: {}, close: async () => undefined } as unknown as ApiClients,
        backend,
        state: structuredClone(managed),
      });
      expect(result.results[0]?.ok).toBe(false);
      expect(durableAtPatch?.resources['parser.books']).toMatchObject({
        patching: { from: 2, definition: patched },
      });
      return (await backend.read()).resources['parser.books'];
    };

    it('no answer: the intent stays for the next plan, which takes the version it made as its own', async () => {
      expect(await patching(noAnswer())).toMatchObject({
        version: 2,
        patching: { from: 2, definition: patched },
      });
    });

    it('the first PATCH of every update is on disk in one write before the first call; unsent ones are taken back', async () => {
      const other = { ...update, address: 'parser.other', name: 'other', id: 'p-2' };
      const both: State = {
        ...managed,
        resources: {
          ...managed.resources,
          'parser.other': { ...(managed.resources['parser.books'] as ParserState), id: 'p-2', name: 'other' },
        },
      };
      const backend = memoryBackend(both);
      const controller = new AbortController();
      const seen: (State | undefined)[] = [];
      const parsers = {
        update: async () => {
          seen.push(backend.writes.at(-1));
          // Ctrl-C while the first PATCH is in flight: the second is never sent.
          controller.abort();
          return { id: 'p-1', version: 3, ready: true };
        },
      };
      const result = await applyPlan({
        plan: { ...planOf(update), resource_changes: [update, other] },
        clients: { parsers, projects: {}, close: async () => undefined } as unknown as ApiClients,
        backend,
        state: structuredClone(both),
        concurrency: 1,
        signal: controller.signal,
      });
      expect(result.interrupted).toBe(true);
      expect(seen).toHaveLength(1);
      expect(backend.writes.indexOf(seen[0] as State)).toBe(0);
      expect(seen[0]?.resources['parser.books']).toMatchObject({ patching: { from: 2 } });
      expect(seen[0]?.resources['parser.other']).toMatchObject({ patching: { from: 2 } });
      const stored = await backend.read();
      expect(stored.resources['parser.books']).toMatchObject({ version: 3, definition: patched });
      expect(stored.resources['parser.books']).not.toHaveProperty('patching');
      expect(stored.resources['parser.other']).toEqual(both.resources['parser.other']);
    });

    it('a refusal (4xx) changed nothing: the intent goes', async () => {
      const refused = apiFailure('api.bad-request', 400, {
        method: 'PATCH',
        url: 'http://127.0.0.1/parsers/p-1/2',
      });
      expect(await patching(refused)).toEqual(managed.resources['parser.books']);
    });
  });

  it('finishing a recovered replace records the new parser even from state as read (not recovered yet)', async () => {
    const raw: State = {
      format_version: 1,
      serial: 1,
      lineage: 'L',
      resources: {
        'parser.books': {
          kind: 'Parser',
          id: 'p-old',
          name: 'books',
          version: 2,
          definition,
          descriptionsKnown: true,
        },
      },
      intents: {
        'parser.books': { kind: 'Parser', name: 'books', definition, replaces: 'p-old', before: ['p-old'] },
      },
    };
    const finish: ParserFinishReplace = {
      address: 'parser.books',
      kind: 'Parser',
      name: 'books',
      action: 'replace',
      finishing: true,
      id: 'p-new',
      oldId: 'p-old',
      version: 0,
      definition,
      reasons: [],
      regenerates: false,
      destructive: true,
      field_changes: [],
      breaking: [],
    };
    const backend = memoryBackend(raw);
    const fake = clients(async () => ({ id: 'unused', version: 0 }), backend);
    const result = await applyPlan({
      plan: planOf(finish),
      clients: fake.clients,
      backend,
      state: structuredClone(raw),
    });
    expect(fake.calls).toEqual(['DELETE p-old']);
    expect(result.state.resources['parser.books']).toEqual({
      kind: 'Parser',
      id: 'p-new',
      name: 'books',
      version: 0,
      definition,
      descriptionsKnown: true,
    });
    expect(result.state.intents).toBeUndefined();
  });
});

describe('the intents of a whole plan are written ahead, in one write', () => {
  const projectCreate = (i: number): ProjectCreate => ({
    address: `project.j${i}`,
    kind: 'Project',
    name: `j${i}`,
    action: 'create',
    id: null,
    reasons: ['not yet created'],
    definition: { name: `j${i}`, projectType: 'urls', scrapingInterval: 'hourly' },
    regenerates: false,
    destructive: false,
    field_changes: [],
    breaking: [],
  });
  const changes = Array.from({ length: 40 }, (_, i) => projectCreate(i));
  const plan: Plan = { ...planOf(changes[0] as ResourceChange), resource_changes: changes };

  /** Project clients that answer each create with the body sent, noting what was durable at each POST. */
  function projectClients(
    backend: { writes: State[] },
    onPost: (count: number) => void = () => undefined,
    postMs = 1,
  ) {
    const seenAtPost: { name: string; durable: State | undefined; writes: number }[] = [];
    let next = 100;
    const projects = {
      list: async () => {
        throw new Error('no list: the plan read the lists');
      },
      create: async (body: Record<string, unknown>) => {
        seenAtPost.push({
          name: String(body.name),
          durable: backend.writes.at(-1),
          writes: backend.writes.length,
        });
        onPost(seenAtPost.length);
        await new Promise((resolve) => setTimeout(resolve, postMs));
        return { id: next++, ...body };
      },
    };
    return {
      clients: { parsers: {}, projects, close: async () => undefined } as unknown as ApiClients,
      seenAtPost,
    };
  }

  /** The 40 creates applied from an empty state with the plan's lists, 8 at a time. */
  async function applyAll(signal?: AbortSignal) {
    const backend = memoryBackend(empty);
    const fake = projectClients(backend);
    const result = await applyPlan({
      plan,
      clients: fake.clients,
      backend,
      state: structuredClone(empty),
      concurrency: 8,
      live: { parsers: [], projects: [] },
      ...(signal !== undefined ? { signal } : {}),
    });
    return { backend, fake, result };
  }

  it('every POST finds its intent on disk, and only one write came before the first', async () => {
    const { backend, fake, result } = await applyAll();
    expect(result.results.every((r) => r.ok)).toBe(true);
    expect(fake.seenAtPost).toHaveLength(40);
    expect(fake.seenAtPost[0]?.writes).toBe(1);
    // That one write holds every create's intent: no create waits for a write of its own.
    expect(Object.keys(fake.seenAtPost[0]?.durable?.intents ?? {})).toHaveLength(40);
    for (const { name, durable } of fake.seenAtPost) {
      // When its POST started goes with a later write (coalesced), so a POST may or may not find it there.
      const { sent: _sent, ...intent } = durable?.intents?.[`project.${name}`] ?? {};
      expect(intent).toEqual({
        kind: 'Project',
        name,
        definition: { name, projectType: 'urls', scrapingInterval: 'hourly' },
        before: [],
      });
    }
    // Far fewer writes than creates: the records of the answers are coalesced.
    expect(backend.writes.length).toBeLessThan(10);
    const stored = await backend.read();
    expect(stored.intents).toBeUndefined();
    expect(Object.keys(stored.resources)).toHaveLength(40);
  });

  it('a state write that hangs (a database gone silent) stops the POSTs within a window, then its failure ends the apply', async () => {
    const backend = memoryBackend(empty);
    const write = backend.write.bind(backend);
    let release: ((error: Error) => void) | undefined;
    // 40 creates of 5 ms each, 4 at a time, take 50 ms at the least: far longer than the window.
    const fake = projectClients(backend, undefined, 5);
    // The first write (every intent, ahead) lands; the next one hangs until the test fails it.
    backend.write = async (state) => {
      if (backend.writes.length === 0) return write(state);
      return new Promise((_, reject) => (release = reject));
    };
    const applied = applyPlan({
      plan,
      clients: fake.clients,
      backend,
      state: structuredClone(empty),
      concurrency: 4,
      stateWriteWindowMs: 5,
      stateWriteLateMs: 5,
      live: { parsers: [], projects: [] },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The creates sent before the write went late may land; then nothing more is sent while it hangs.
    expect(release).toBeDefined();
    const sentWhileHung = fake.seenAtPost.length;
    expect(sentWhileHung).toBeLessThan(40);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fake.seenAtPost.length).toBe(sentWhileHung);
    release?.(new Error('state.lock-lost: the lock was taken over'));
    const result = await applied.catch((error: unknown) => error);
    expect(fake.seenAtPost.length).toBe(sentWhileHung);
    expect(String((result as { message?: string }).message ?? JSON.stringify(result))).toContain(
      'the lock was taken over',
    );
  });

  it('a create written ahead is marked sent by the next write after its POST starts: a kill then leaves it unconfirmed', async () => {
    const backend = memoryBackend(empty);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let posted = 0;
    const projects = {
      list: async () => [],
      create: async (body: Record<string, unknown>) => {
        posted++;
        await held;
        return { id: 7, ...body };
      },
    };
    const applying = applyPlan({
      plan: planOf(projectCreate(1)),
      clients: { parsers: {}, projects, close: async () => undefined } as unknown as ApiClients,
      backend,
      state: structuredClone(empty),
      live: { parsers: [], projects: [] },
      stateWriteWindowMs: 5,
      now: () => Date.parse('2026-11-26T03:00:00.000Z'),
    });
    await until('the create was posted', () => posted > 0, { everyMs: 5 });
    // The answer is held: as a run killed now would leave it on disk.
    await until(
      'state records that the create was sent',
      async () => (await backend.read()).intents?.['project.j1']?.sent !== undefined,
      { everyMs: 5 },
    );
    const onDisk = await backend.read();
    expect(onDisk.intents?.['project.j1']).toMatchObject({ name: 'j1', sent: '2026-11-26T03:00:00.000Z' });
    // The next plan, with no list showing it: an unconfirmed create, not sent again without --recreate.
    expect(recoverIntents(onDisk, { parsers: [], projects: [] }).unconfirmed).toEqual(
      new Map([['project.j1', '2026-11-26T03:00:00.000Z']]),
    );
    release();
    expect((await applying).results[0]?.ok).toBe(true);
  });

  /** The plan's 40 creates from `start`, two at a time, with Ctrl-C as the fifth POST is sent. */
  async function interruptedAfterFive(start: State) {
    const backend = memoryBackend(start);
    const controller = new AbortController();
    const fake = projectClients(backend, (count) => {
      if (count === 5) controller.abort();
    });
    const result = await applyPlan({
      plan,
      clients: fake.clients,
      backend,
      state: structuredClone(start),
      concurrency: 2,
      live: { parsers: [], projects: [] },
      signal: controller.signal,
    });
    expect(result.interrupted).toBe(true);
    return { backend, fake };
  }

  it('Ctrl-C: the intents of creates never sent are taken back; those sent are recorded', async () => {
    const { backend, fake } = await interruptedAfterFive(empty);
    const sent = fake.seenAtPost.map((p) => `project.${p.name}`);
    expect(sent.length).toBeGreaterThanOrEqual(5);
    expect(sent.length).toBeLessThan(40);
    const stored = await backend.read();
    // What was sent is recorded; nothing is left for the next plan to look for.
    expect(Object.keys(stored.resources).sort()).toEqual([...sent].sort());
    expect(stored.intents).toBeUndefined();
  });

  it('Ctrl-C: a create never sent puts back the unconfirmed intent of an earlier run it was to replace', async () => {
    const earlier = {
      kind: 'Project' as const,
      name: 'j39',
      definition: { name: 'j39', projectType: 'urls', scrapingInterval: 'hourly' },
      before: [],
      unconfirmed: '2026-11-26T02:00:00.000Z',
    };
    const { backend, fake } = await interruptedAfterFive({ ...empty, intents: { 'project.j39': earlier } });
    expect(fake.seenAtPost.map((p) => p.name)).not.toContain('j39');
    // Its POST may still have landed: the next plan must go on looking for it, and ask before sending it again.
    expect((await backend.read()).intents).toEqual({ 'project.j39': earlier });
  });

  it('Ctrl-C before the first call: nothing is written ahead, no POST is sent, every change not started', async () => {
    // Review: the intents were written (and taken back) after the signal, a state database gone silent holding the run.
    const controller = new AbortController();
    controller.abort();
    const { backend, fake, result } = await applyAll(controller.signal);
    expect(result.interrupted).toBe(true);
    expect(fake.seenAtPost).toEqual([]);
    expect(backend.writes).toEqual([]);
    expect(result.results.every((r) => !r.ok)).toBe(true);
  });

  it('without the lists of the plan, each create records its own intent before its POST', async () => {
    const backend = memoryBackend(empty);
    const fake = projectClients(backend);
    (fake.clients.projects as unknown as { list: () => Promise<unknown[]> }).list = async () => [];
    await applyPlan({ plan, clients: fake.clients, backend, state: structuredClone(empty), concurrency: 1 });
    expect(fake.seenAtPost[0]?.durable?.intents).toEqual({
      'project.j0': expect.objectContaining({ name: 'j0' }) as unknown,
    });
    expect(fake.seenAtPost[1]?.durable?.intents?.['project.j1']).toMatchObject({ name: 'j1' });
  });
});
