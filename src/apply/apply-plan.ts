import { ApiError } from '../api/api-error.js';
import type { ApiClients } from '../api/create-clients.js';
import { ScrapeformError } from '../errors.js';
import { DEFAULT_CONCURRENCY } from '../model/vocabulary.js';
import type { Plan, ResourceChange } from '../plan/model.js';
import type { StateBackend } from '../state/backend.js';
import type { State } from '../state/model.js';
import { forEachLimited } from '../worker-pool.js';
import type { Handler, HandlerContext } from './apply-context.js';
import { PARSER_HANDLERS } from './parser-handlers.js';
import { PROJECT_HANDLERS } from './project-handlers.js';
import { StateStore } from './state-store.js';

/** Something the CLI shows while apply runs. */
export type ApplyEvent =
  | { type: 'start'; address: string; action: ResourceChange['action'] }
  | { type: 'call'; address: string; method: string; path: string; status: number }
  | { type: 'generation'; address: string; id: string; version: number; status: string; elapsedMs: number }
  | { type: 'done'; address: string; ok: boolean; error?: string }
  /** Something the user should know that does not fail the change (an unknown status while waiting). */
  | { type: 'warning'; address: string; message: string };

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
  /** What the user should know about this change though it did not fail it. */
  warnings?: string[];
}

export interface ApplyResult {
  results: ChangeResult[];
  state: State;
  interrupted: boolean;
}

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
        await handlerFor(change)(change, result, ctx);
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

/** Every kind and action has its handler: a missing one is a type error here. */
const HANDLERS = { Parser: PARSER_HANDLERS, Project: PROJECT_HANDLERS } satisfies {
  [K in ResourceChange['kind']]: {
    [A in Extract<ResourceChange, { kind: K }>['action']]: Handler<
      Extract<ResourceChange, { kind: K; action: A }>
    >;
  };
};

/** The handler of a change's kind and action. */
export function handlerFor(change: ResourceChange): Handler<ResourceChange> {
  // The table's type ties each key to its own variant; TypeScript cannot carry that through an index by a union
  // (a correlated union), so the lookup is widened here, once.
  const byAction: Record<string, Handler<never>> = HANDLERS[change.kind];
  const handler = byAction[change.action];
  if (handler === undefined) throw new Error(`no handler for ${change.kind} ${change.action}`);
  return handler as Handler<ResourceChange>;
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
