import { createHash } from 'node:crypto';
import { ScrapeformError } from '../errors.js';
import { suggestNearest } from '../manifest/suggest.js';
import { buildPlan } from '../plan/build-plan.js';
import type { PlanOptions } from '../plan/build-plan.js';
import type { LiveSnapshot, Plan, PlanAccount, PlanTarget } from '../plan/model.js';
import type { State } from '../state/model.js';
import type { Workspace } from './open-workspace.js';
import { readLive } from './read-live.js';
import { whileHolding } from '../state/backend.js';
import { readUnlessInterrupted } from '../state/interruptible-state.js';
import { keyChanged } from '../state/state-account.js';

export interface PlannedWorkspace {
  /** The state the plan was made from. */
  state: State;
  live: LiveSnapshot;
  plan: Plan;
}

/**
 * Reads state and the live services (two lists, details only where needed) and plans. Writes nothing; with
 * `lock`, holds the state lock while it reads (`plan --lock`). With `account`, the plan records the key's account
 * (accountOf, a SHA-256 of the whole plan for its salt): only `plan` asks, whose JSON and saved file carry it; the
 * plans of apply and watch are neither shown as JSON nor saved.
 */
export async function planWorkspace(
  ws: Workspace,
  options: PlanOptions = {},
  how: { lock?: boolean; signal?: AbortSignal; account?: boolean } = {},
): Promise<PlannedWorkspace> {
  if (how.lock !== true) return readAndPlan(ws, options, how);
  const lock = await ws.backend.lock('plan');
  return whileHolding(lock, async () => {
    return await readAndPlan(ws, options, how);
  });
}

/**
 * `signal` (apply's and watch's Ctrl-C) calls off the reads under way: a service or state database that stopped
 * answering does not hold it.
 */
async function readAndPlan(
  ws: Workspace,
  options: PlanOptions,
  { signal, account }: { signal?: AbortSignal; account?: boolean },
): Promise<PlannedWorkspace> {
  const state = await readUnlessInterrupted(ws.backend, signal);
  checkSelection(options, [
    ...ws.manifests.parsers.map((p) => p.address),
    ...ws.manifests.projects.map((p) => p.address),
    ...Object.keys(state.resources),
  ]);
  const live = await readLive(ws.clients, ws.manifests, state, signal);
  const plan = buildPlan({
    parsers: ws.manifests.parsers,
    projects: ws.manifests.projects,
    state,
    live,
    keyChanged: keyChanged(state, ws.clients.accountDigest),
    // Paths named with --env narrow the plan the way --target does (loadManifests' narrowedTo).
    options:
      ws.manifests.narrowedTo !== undefined ? { ...options, narrowedTo: ws.manifests.narrowedTo } : options,
  });
  const target = runTarget(ws);
  if (target !== undefined) {
    plan.fingerprint.target = target;
    const digest = ws.clients.accountDigest;
    if (account === true && digest !== undefined) target.account = accountOf(plan, digest);
  }
  return { state, plan, live };
}

/**
 * What this run acts on, as a saved plan records it (without the account, which has a salt of its own in each plan):
 * the environment, the services and the state. Undefined for clients put together by hand (no endpoints).
 */
export function runTarget(ws: Workspace): PlanTarget | undefined {
  const endpoints = ws.clients.endpoints;
  const stateIdentity = ws.backend.stateIdentity;
  if (endpoints === undefined) return undefined;
  return {
    environment: ws.manifests.environment?.name ?? null,
    parsers: endpoints.parsers,
    projects: endpoints.projects,
    ...(stateIdentity !== undefined ? { state: { ...stateIdentity } } : {}),
  };
}

/**
 * The account of the run's key as a plan records it (create-clients.ts, accountDigest). The salt is drawn from the
 * rest of the plan (a SHA-256 of it): another for every plan that differs, so the same key gives another digest in
 * each and no two files can be matched up by it, while one plan made twice stays the same text (`plan --json`, then
 * `plan --out`, give the same JSON).
 */
function accountOf(plan: Plan, digest: (salt: string) => string): PlanAccount {
  const salt = createHash('sha256').update(JSON.stringify(plan), 'utf8').digest('hex').slice(0, 32);
  return { salt, sha256: digest(salt) };
}

/**
 * `--target`, `--exclude`, `--reassert`, `--accept-unknown`, `--recreate` and `--forget` must name something declared
 * or managed: a typo would otherwise plan nothing (or everything) and say "No changes" (as `terraform plan -target`
 * with an unknown address is an error).
 */
function checkSelection(options: PlanOptions, known: readonly string[]): void {
  const unknown = (
    [
      ['--target', options.targets],
      ['--exclude', options.excludes],
      ['--reassert', options.reassert],
      ['--accept-unknown', options.acceptUnknown],
      ['--recreate', options.recreate],
      ['--forget', options.forget],
    ] as const
  ).flatMap(([flag, addresses]) =>
    (addresses ?? []).filter((a) => !known.includes(a)).map((a) => ({ flag, a })),
  );
  if (unknown.length === 0) return;
  const suggestions = unknown
    .map(({ a }) => [a, suggestNearest(a, known)] as const)
    .filter((pair): pair is readonly [string, string] => pair[1] !== undefined)
    .map(([a, s]) => `${a} -> did you mean ${s}?`);
  throw new ScrapeformError(
    'plan.unknown-address',
    `${unknown.map(({ flag, a }) => `${flag} ${a}`).join(', ')}: no manifest declares ${unknown.length === 1 ? 'it' : 'them'} and state does not manage ${unknown.length === 1 ? 'it' : 'them'}`,
    {
      hint:
        suggestions.length > 0
          ? suggestions.join('; ')
          : `addresses look like parser.<name> or project.<name>; known: ${[...new Set(known)].sort().slice(0, 10).join(', ') || 'none'}`,
      details: { unknown: unknown.map(({ a }) => a) },
    },
  );
}
