import type { DesiredParser, DesiredProject } from '../model/desired.js';
import type { ResourceState, State } from '../state/model.js';

/**
 * State with each declared object's `lifecycle.prevent_destroy` recorded, so that the protection outlives its
 * manifest (a deleted file does not lift it; applying `prevent_destroy: false` does). Only objects state already
 * holds are touched; returns undefined when nothing changed. Pure: apply writes the result (no call is needed).
 */
export function recordProtection(
  state: State,
  declared: readonly (DesiredParser | DesiredProject)[],
): State | undefined {
  let resources: Record<string, ResourceState> | undefined;
  for (const object of declared) {
    const recorded = (resources ?? state.resources)[object.address];
    if (recorded === undefined || recorded.kind !== object.kind) continue;
    if ((recorded.preventDestroy === true) === object.preventDestroy) continue;
    resources ??= { ...state.resources };
    const { preventDestroy: _previous, ...rest } = recorded;
    resources[object.address] = object.preventDestroy ? { ...rest, preventDestroy: true } : rest;
  }
  return resources === undefined ? undefined : { ...state, resources };
}

/**
 * The addresses `lifecycle.prevent_destroy` protects now: a declared object as its manifest says, one no manifest
 * declares as state recorded it when it was last applied (as the planner reads them, plan-context.ts isPrevented).
 */
export function protectedAddresses(
  state: State,
  declared: readonly (DesiredParser | DesiredProject)[],
): Set<string> {
  const addresses = new Set<string>(
    declared.filter((object) => object.preventDestroy).map((object) => object.address),
  );
  const named = new Set<string>(declared.map((object) => object.address));
  for (const [address, recorded] of Object.entries(state.resources))
    if (recorded.preventDestroy === true && !named.has(address)) addresses.add(address);
  return addresses;
}
