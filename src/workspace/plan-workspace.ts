import { buildPlan } from '../plan/build-plan.js';
import type { PlanOptions } from '../plan/build-plan.js';
import type { LiveSnapshot, Plan } from '../plan/model.js';
import type { State } from '../state/model.js';
import type { Workspace } from './open-workspace.js';
import { readLive } from './read-live.js';

export interface PlannedWorkspace {
  /** The state the plan was made from. */
  state: State;
  live: LiveSnapshot;
  plan: Plan;
}

/**
 * Reads state and the live services (two lists, details only where needed) and plans. Writes nothing; with
 * `lock`, holds the state lock while it reads (`plan --lock`).
 */
export async function planWorkspace(
  ws: Workspace,
  options: PlanOptions = {},
  how: { lock?: boolean } = {},
): Promise<PlannedWorkspace> {
  if (how.lock !== true) return readAndPlan(ws, options);
  const lock = await ws.backend.lock('plan');
  try {
    return await readAndPlan(ws, options);
  } finally {
    await lock.release();
  }
}

async function readAndPlan(ws: Workspace, options: PlanOptions): Promise<PlannedWorkspace> {
  const state = await ws.backend.read();
  const live = await readLive(ws.clients, ws.manifests.parsers, state);
  const plan = buildPlan({
    parsers: ws.manifests.parsers,
    projects: ws.manifests.projects,
    state,
    live,
    options,
  });
  return { state, plan, live };
}
