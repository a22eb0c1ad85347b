import { ApiError } from '../api/api-error.js';
import type { ApiClients } from '../api/create-clients.js';
import type { LiveParserDetails } from '../api/live.js';
import { ScrapeformError } from '../errors.js';
import { DEFAULT_CONCURRENCY } from '../model/vocabulary.js';
import type { FieldOperations } from '../model/wire.js';
import { applyFieldOperations } from '../plan/field-operations.js';
import type { Plan, PlannedRequest, ResourceChange } from '../plan/model.js';
import type { StateBackend } from '../state/backend.js';
import type { ParserDefinition, ParserState, State } from '../state/model.js';
import { forEachLimited } from '../worker-pool.js';

/** Something the CLI shows while apply runs. */
export type ApplyEvent =
  | { type: 'start'; address: string; action: ResourceChange['action'] }
  | { type: 'call'; address: string; method: string; path: string; status: number }
  | { type: 'generation'; address: string; id: string; version: number; status: string; elapsedMs: number }
  | { type: 'done'; address: string; ok: boolean; error?: string };

export interface ApplyOptions {
  plan: Plan;
  clients: ApiClients;
  backend: StateBackend;
  /** The state the plan was made from (apply writes it after every successful call). */
  state: State;
  /** Objects in flight at once (`--concurrency`, default 4). */
  concurrency?: number;
  /** How long to wait for a generation (`--wait-timeout`, default 15 minutes). */
  waitTimeoutMs?: number;
  /** Return after the calls instead of waiting for generations (`--no-wait`); a replace still waits. */
  noWait?: boolean;
  /** Ctrl-C: no new calls start; calls in flight finish. */
  signal?: AbortSignal;
  onEvent?: (event: ApplyEvent) => void;
  /** Polling backoff: from `pollMinMs` (1 s) growing to `pollMaxMs` (15 s). */
  pollMinMs?: number;
  pollMaxMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export interface AppliedCall {
  method: string;
  path: string;
  status: number;
}

export interface ChangeResult {
  address: string;
  action: ResourceChange['action'];
  ok: boolean;
  /** Not started because Ctrl-C came first. */
  skipped?: boolean;
  calls: AppliedCall[];
  id: string | number | null;
  version?: number;
  status?: string;
  error?: { code: string; message: string; hint?: string };
}

export interface ApplyResult {
  results: ChangeResult[];
  state: State;
  interrupted: boolean;
}

/** Common causes of a FAILED generation (seed 1, States and transitions). */
export const FAILED_GENERATION_CAUSES =
  'example URLs inaccessible or blocked; example URLs of different page types; a domain that needs JavaScript rendering without render set in scraper_params';

/** Executes a plan: one small handler per action, independent objects concurrently, state after every call. */
export async function applyPlan(options: ApplyOptions): Promise<ApplyResult> {
  const store = new StateStore(options.backend, options.state);
  const results: ChangeResult[] = [];
  const ctx: HandlerContext = {
    clients: options.clients,
    store,
    options,
    emit: options.onEvent ?? (() => undefined),
    sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    now: options.now ?? Date.now,
  };
  await forEachLimited(
    options.plan.resource_changes,
    Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY),
    async (change) => {
      const result: ChangeResult = {
        address: change.address,
        action: change.action,
        ok: false,
        calls: [],
        id: change.id,
      };
      results.push(result);
      if (options.signal?.aborted === true) {
        result.skipped = true;
        result.error = { code: 'apply.interrupted', message: 'not started: interrupted' };
        return;
      }
      ctx.emit({ type: 'start', address: change.address, action: change.action });
      try {
        await HANDLERS[change.action](change, result, ctx);
        result.ok = true;
        ctx.emit({ type: 'done', address: change.address, ok: true });
      } catch (error) {
        result.error = describeError(error);
        ctx.emit({ type: 'done', address: change.address, ok: false, error: result.error.message });
      }
    },
  );
  await store.flushed();
  const order = new Map(options.plan.resource_changes.map((c, i) => [c.address, i]));
  results.sort((a, b) => (order.get(a.address) ?? 0) - (order.get(b.address) ?? 0));
  return { results, state: store.current, interrupted: options.signal?.aborted === true };
}

interface HandlerContext {
  clients: ApiClients;
  store: StateStore;
  options: ApplyOptions;
  emit: (event: ApplyEvent) => void;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
}

type Handler = (change: ResourceChange, result: ChangeResult, ctx: HandlerContext) => Promise<void>;

const HANDLERS = {
  create: async (change, result, ctx) =>
    change.kind === 'Parser' ? createParser(change, result, ctx) : createProject(change, result, ctx),
  update: async (change, result, ctx) =>
    change.kind === 'Parser' ? updateParser(change, result, ctx) : updateProject(change, result, ctx),
  replace: async (change, result, ctx) => replaceParser(change, result, ctx),
  delete: async (change, result, ctx) => {
    const id = String(change.id);
    await deleteParser(ctx, change, result, id);
    await ctx.store.commit((state) => delete state.resources[change.address]);
  },
  archive: async (change, result, ctx) => {
    const id = Number(change.id);
    await call(
      ctx,
      change,
      result,
      () => ctx.clients.projects.archive(id),
      'DELETE',
      `/api/projects/${id}`,
      204,
      [404],
    );
    await ctx.store.commit((state) => delete state.resources[change.address]);
  },
  adopt: async (change, _result, ctx) => {
    const record = change.record;
    await ctx.store.commit((state) => {
      if (record.kind === 'Parser') {
        state.resources[change.address] = {
          kind: 'Parser',
          id: String(change.id),
          name: change.name,
          version: record.baseVersion,
          definition: record.definition,
          descriptionsKnown: record.descriptionsKnown,
        };
      } else if (record.kind === 'Project') {
        state.resources[change.address] = {
          kind: 'Project',
          id: Number(change.id),
          name: change.name,
          definition: record.definition,
        };
      }
    });
  },
  forget: async (change, _result, ctx) => {
    await ctx.store.commit((state) => delete state.resources[change.address]);
  },
} satisfies Record<ResourceChange['action'], Handler>;

function parserRecord(change: ResourceChange): Extract<ResourceChange['record'], { kind: 'Parser' }> {
  if (change.record.kind !== 'Parser')
    throw new Error(`${change.address}: the plan carries no parser record`);
  return change.record;
}

async function createParser(
  change: ResourceChange,
  result: ChangeResult,
  ctx: HandlerContext,
): Promise<void> {
  const record = parserRecord(change);
  const created = await postOnce(ctx, change, result);
  result.id = created.id;
  await ctx.store.commit((state) => {
    state.resources[change.address] = createdParserState(change, created, record.definition);
  });
  if (ctx.options.noWait === true) {
    result.version = created.version;
    result.status = 'GENERATING';
    return;
  }
  await settleGeneration(change, result, ctx, created.id, created.version, record.definition);
}

/** A parser just created: no version known FINISHED yet, version 0 pending with the definition sent. */
function createdParserState(
  change: ResourceChange,
  created: { id: string; version: number },
  definition: ParserDefinition,
): ParserState {
  return {
    kind: 'Parser',
    id: created.id,
    name: change.name,
    version: null,
    definition: null,
    descriptionsKnown: true,
    pending: { version: created.version, definition },
  };
}

/**
 * POST /parsers, never retried blindly: after a failure that may have landed (no answer, 5xx), list by name and
 * take a parser of that name that was not there before; only when there is none, try once more.
 */
async function postOnce(
  ctx: HandlerContext,
  change: ResourceChange,
  result: ChangeResult,
): Promise<{ id: string; version: number }> {
  const request = change.requests.find((r) => r.method === 'POST');
  if (request?.body === undefined) throw new Error(`${change.address}: the plan has no create request`);
  const body = request.body as {
    name: string;
    urls: string[];
    scraper_params?: Record<string, unknown>;
    fields?: never[];
  };
  const created = await createOnce(
    () => ctx.clients.parsers.list(),
    () =>
      ctx.clients.parsers.create({
        name: body.name,
        urls: body.urls,
        ...(body.scraper_params !== undefined ? { scraper_params: body.scraper_params } : {}),
        ...(body.fields !== undefined ? { fields: body.fields } : {}),
      }),
    body.name,
  );
  noteCall(ctx, change, result, 'POST', '/parsers', 201);
  return { id: created.id, version: created.version };
}

/**
 * A create that is never retried blindly: after a failure that may have landed (no answer, or a 5xx), list by
 * name and take the one object of that name that was not there before; only when there is none, try once more.
 */
async function createOnce<T extends { id: string | number; name?: string | undefined }>(
  list: () => Promise<T[]>,
  create: () => Promise<T>,
  name: string,
): Promise<T> {
  const before = new Set((await list()).filter((o) => o.name === name).map((o) => o.id));
  for (let attempt = 1; ; attempt++) {
    try {
      return await create();
    } catch (error) {
      const ambiguous = error instanceof ApiError && (error.status === 0 || error.status >= 500);
      if (!ambiguous || attempt >= 2) throw error;
      const landed = (await list()).filter((o) => o.name === name && !before.has(o.id));
      if (landed.length === 1 && landed[0] !== undefined) return landed[0];
      if (landed.length > 1) throw error;
    }
  }
}

async function updateParser(
  change: ResourceChange,
  result: ChangeResult,
  ctx: HandlerContext,
): Promise<void> {
  const record = parserRecord(change);
  const id = String(change.id);
  let version = record.baseVersion ?? 0;
  const recorded = ctx.store.current.resources[change.address];
  let fields =
    recorded?.kind === 'Parser' && recorded.definition !== null
      ? recorded.definition.fields
      : record.definition.fields;
  const patches = change.requests.filter((r) => r.method === 'PATCH');
  for (const [i, request] of patches.entries()) {
    abortIfInterrupted(ctx);
    const ops = request.body as FieldOperations;
    const updated = await ctx.clients.parsers.update(id, version, ops);
    noteCall(ctx, change, result, 'PATCH', `/parsers/${id}/${version}`, updated.ready ? 200 : 202);
    version = updated.version;
    const last = i === patches.length - 1;
    fields = last ? record.definition.fields : applyFieldOperations(fields, ops);
    const definition: ParserDefinition = last ? record.definition : { ...record.definition, fields };
    await ctx.store.commit((state) => {
      const current = state.resources[change.address] as ParserState | undefined;
      const base: ParserState = current ?? {
        kind: 'Parser',
        id,
        name: change.name,
        version: null,
        definition: null,
        descriptionsKnown: record.descriptionsKnown,
      };
      if (updated.ready) {
        state.resources[change.address] = {
          ...withoutPending(base),
          version: updated.version,
          definition,
          descriptionsKnown: record.descriptionsKnown || base.descriptionsKnown,
        };
      } else {
        state.resources[change.address] = { ...base, pending: { version: updated.version, definition } };
      }
    });
    if (!updated.ready && ctx.options.noWait !== true)
      await settleGeneration(change, result, ctx, id, updated.version, definition);
  }
  result.version ??= version;
  result.status ??= 'FINISHED';
}

async function replaceParser(
  change: ResourceChange,
  result: ChangeResult,
  ctx: HandlerContext,
): Promise<void> {
  const record = parserRecord(change);
  if (!change.requests.some((r) => r.method === 'POST')) return finishReplace(change, result, ctx);
  const oldId = String(change.id);
  const created = await postOnce(ctx, change, result);
  result.id = created.id;
  const previous = ctx.store.current.resources[change.address];
  await ctx.store.commit((state) => {
    state.resources[change.address] = {
      ...createdParserState(change, created, record.definition),
      replacing: { oldId },
    };
  });
  const status = await settleGeneration(
    change,
    result,
    ctx,
    created.id,
    created.version,
    record.definition,
    false,
  );
  if (status !== 'FINISHED') {
    // The new parser failed: the old one stays, and the failed one goes.
    await deleteParser(ctx, change, result, created.id);
    await ctx.store.commit((state) => {
      if (previous !== undefined) state.resources[change.address] = previous;
      else delete state.resources[change.address];
    });
    throw new ScrapeformError(
      'apply.generation-failed',
      `the new parser FAILED: ${result.error?.message ?? status}; the old parser ${oldId} stays`,
      {
        hint: `common causes: ${FAILED_GENERATION_CAUSES}`,
      },
    );
  }
  if (change.requests.some((r) => r.method === 'DELETE')) {
    await deleteParser(ctx, change, result, oldId);
  }
  await ctx.store.commit((state) => {
    const current = state.resources[change.address];
    if (current?.kind === 'Parser') delete current.replacing;
  });
}

/** Deletes a parser; one already gone (404) counts as deleted. */
async function deleteParser(
  ctx: HandlerContext,
  change: ResourceChange,
  result: ChangeResult,
  id: string,
): Promise<void> {
  await call(
    ctx,
    change,
    result,
    () => ctx.clients.parsers.delete(id),
    'DELETE',
    `/parsers/${id}`,
    204,
    [404],
  );
}

/** Completes a replace a previous run left half done: the new parser is FINISHED; the old one goes. */
async function finishReplace(
  change: ResourceChange,
  result: ChangeResult,
  ctx: HandlerContext,
): Promise<void> {
  const record = parserRecord(change);
  const current = ctx.store.current.resources[change.address];
  const oldId = current?.kind === 'Parser' ? current.replacing?.oldId : undefined;
  const remove = change.requests.find((r) => r.method === 'DELETE');
  if (remove !== undefined && oldId !== undefined) {
    await deleteParser(ctx, change, result, oldId);
  }
  await ctx.store.commit((state) => {
    const now = state.resources[change.address];
    if (now?.kind !== 'Parser') return;
    const { replacing: _replacing, pending: _pending, ...rest } = now;
    state.resources[change.address] = { ...rest, version: record.baseVersion, definition: record.definition };
  });
}

/**
 * Polls the version until it leaves GENERATING (every 1 s at first, growing to 15 s), records the outcome in state, and throws
 * for FAILED (with the service's error and its usual causes) unless `throwOnFailure` is false.
 */
async function settleGeneration(
  change: ResourceChange,
  result: ChangeResult,
  ctx: HandlerContext,
  id: string,
  version: number,
  definition: ParserDefinition,
  throwOnFailure = true,
): Promise<string> {
  const started = ctx.now();
  const deadline = started + (ctx.options.waitTimeoutMs ?? 15 * 60_000);
  let delay = ctx.options.pollMinMs ?? 1000;
  let last = '';
  let details: LiveParserDetails;
  for (;;) {
    // Ctrl-C stops the wait (a poll is a new call); state already records the version as pending.
    abortIfInterrupted(ctx);
    details = await ctx.clients.parsers.get(id, version);
    if (details.status !== last) {
      last = details.status;
      ctx.emit({
        type: 'generation',
        address: change.address,
        id,
        version,
        status: details.status,
        elapsedMs: ctx.now() - started,
      });
    }
    if (details.status !== 'GENERATING') break;
    if (ctx.now() + delay > deadline) {
      throw new ScrapeformError(
        'apply.wait-timeout',
        `${change.address}: version ${version} still GENERATING after ${Math.round((ctx.now() - started) / 1000)}s`,
        {
          hint: 'the calls were made and recorded; run plan later to see it finish, or raise --wait-timeout',
        },
      );
    }
    await ctx.sleep(delay);
    // The next wait grows with the time already waited (a fifth of it, from 1 s up to 15 s), so a finish is
    // seen at most ~20% late: doubling waits would see a 5 s generation only after 8 s (bench/apply).
    const min = ctx.options.pollMinMs ?? 1000;
    delay = Math.min(ctx.options.pollMaxMs ?? 15_000, Math.max(min, Math.round((ctx.now() - started) * 0.2)));
  }
  result.version = version;
  result.status = details.status;
  await ctx.store.commit((state) => {
    const current = state.resources[change.address];
    if (current?.kind !== 'Parser') return;
    if (details.status === 'FINISHED') {
      state.resources[change.address] = {
        ...withoutPending(current),
        version,
        definition,
        descriptionsKnown: true,
      };
      delete (state.resources[change.address] as ParserState).failed;
    } else {
      state.resources[change.address] = {
        ...withoutPending(current),
        failed: { version, error: details.error ?? details.status },
      };
    }
  });
  if (details.status !== 'FINISHED') {
    result.error = {
      code: 'apply.generation-failed',
      message: `version ${version} FAILED: ${details.error ?? 'no error given'}`,
    };
    if (throwOnFailure) {
      throw new ScrapeformError(
        'apply.generation-failed',
        `${change.address}: version ${version} FAILED: ${details.error ?? 'no error given'}`,
        {
          hint: `common causes: ${FAILED_GENERATION_CAUSES}`,
        },
      );
    }
  }
  return details.status;
}

function withoutPending(state: ParserState): ParserState {
  const { pending: _pending, ...rest } = state;
  return rest;
}

async function createProject(
  change: ResourceChange,
  result: ChangeResult,
  ctx: HandlerContext,
): Promise<void> {
  const request = change.requests[0] as PlannedRequest;
  const body = request.body ?? {};
  const created = await createOnce(
    () => ctx.clients.projects.list(),
    () => ctx.clients.projects.create(body),
    String(body.name),
  );
  noteCall(ctx, change, result, 'POST', '/api/projects', 201);
  result.id = created.id;
  const definition = change.record.kind === 'Project' ? change.record.definition : {};
  await ctx.store.commit((state) => {
    state.resources[change.address] = { kind: 'Project', id: created.id, name: change.name, definition };
  });
}

async function updateProject(
  change: ResourceChange,
  result: ChangeResult,
  ctx: HandlerContext,
): Promise<void> {
  const request = change.requests[0] as PlannedRequest;
  const id = Number(change.id);
  await call(
    ctx,
    change,
    result,
    () => ctx.clients.projects.update(id, request.body ?? {}),
    'PATCH',
    `/api/projects/${id}`,
    200,
  );
  const definition = change.record.kind === 'Project' ? change.record.definition : {};
  await ctx.store.commit((state) => {
    state.resources[change.address] = { kind: 'Project', id, name: change.name, definition };
  });
}

/** Makes one call and records it; statuses in `gone` (a DELETE of something already gone) count as done. */
async function call(
  ctx: HandlerContext,
  change: ResourceChange,
  result: ChangeResult,
  run: () => Promise<unknown>,
  method: string,
  path: string,
  status: number,
  gone: number[] = [],
): Promise<void> {
  abortIfInterrupted(ctx);
  try {
    await run();
    noteCall(ctx, change, result, method, path, status);
  } catch (error) {
    if (error instanceof ApiError && gone.includes(error.status)) {
      noteCall(ctx, change, result, method, path, error.status);
      return;
    }
    throw error;
  }
}

function noteCall(
  ctx: HandlerContext,
  change: ResourceChange,
  result: ChangeResult,
  method: string,
  path: string,
  status: number,
): void {
  result.calls.push({ method, path, status });
  ctx.emit({ type: 'call', address: change.address, method, path, status });
}

function abortIfInterrupted(ctx: HandlerContext): void {
  if (ctx.options.signal?.aborted === true) {
    throw new ScrapeformError(
      'apply.interrupted',
      'interrupted before this call; state holds what was done',
      { status: 'error' },
    );
  }
}

function describeError(error: unknown): { code: string; message: string; hint?: string } {
  if (error instanceof ApiError || error instanceof ScrapeformError) {
    return {
      code: error.code,
      message: error.message,
      ...(error.hint !== undefined ? { hint: error.hint } : {}),
    };
  }
  return { code: 'internal', message: error instanceof Error ? error.message : String(error) };
}

/** The state in memory, written through the backend after every change, one write at a time. */
class StateStore {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly backend: StateBackend,
    public current: State,
  ) {}

  commit(mutate: (state: State) => void): Promise<void> {
    mutate(this.current);
    const snapshot = structuredClone(this.current);
    this.chain = this.chain.then(async () => {
      const written = await this.backend.write(snapshot);
      this.current.serial = written.serial;
      this.current.lineage = written.lineage;
    });
    return this.chain;
  }

  flushed(): Promise<void> {
    return this.chain;
  }
}
