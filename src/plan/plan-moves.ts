import type { DesiredParser, DesiredProject } from '../model/desired.js';
import type { State } from '../state/model.js';
import type { PlannedMove } from './model.js';

/** What the `moved:` hints do to a state, before anything is compared. */
export interface MovesOutcome {
  /** The state with every move made (the same object when none is). */
  state: State;
  moves: PlannedMove[];
  warnings: string[];
  errors: string[];
}

/**
 * Moves the state entries the `moved:` hints name (Terraform's moved blocks): the object state knows at `from`
 * is then planned at `to` like any other, so a changed name is a rename where the service has one, never a
 * delete and a create. Pure. The manifests were checked already (manifest/check-moves.ts): kinds match, `to` is
 * declared, `from` is not, no chains or cycles.
 *
 * A hint whose `from` state does not hold is skipped: once applied it is only history (as in Terraform), and is
 * said only when `to` has no state either (the object is then created). State at both addresses is an error:
 * the hint cannot say which to keep.
 */
export function planMoves(state: State, declared: readonly (DesiredParser | DesiredProject)[]): MovesOutcome {
  const outcome: MovesOutcome = { state, moves: [], warnings: [], errors: [] };
  const seen = new Set<string>();
  let resources: State['resources'] | undefined;
  for (const object of declared) {
    for (const { from, to } of object.moved ?? []) {
      if (from === to || seen.has(`${from}\u0000${to}`)) continue;
      seen.add(`${from}\u0000${to}`);
      const current = resources ?? state.resources;
      const recorded = current[from];
      if (recorded === undefined) {
        if (current[to] === undefined) {
          outcome.warnings.push(
            `${to}: moved from ${from}, but state has nothing at ${from}; the hint is ignored and ${to} is planned as declared`,
          );
        }
        continue;
      }
      if (recorded.kind !== object.kind) continue;
      if (current[to] !== undefined) {
        outcome.errors.push(
          `${to}: moved from ${from}, but state holds both ${from} and ${to}; the hint cannot say which to keep: remove it (both stay managed), or remove one from state`,
        );
        continue;
      }
      resources ??= { ...state.resources };
      const { [from]: _moved, ...rest } = resources;
      resources = { ...rest, [to]: recorded };
      outcome.moves.push({ from, to, kind: recorded.kind, id: recorded.id, name: recorded.name });
      if (recorded.kind === 'Parser' && recorded.name !== object.name) {
        outcome.warnings.push(
          `${to}: moved from ${from}; the live parser ${recorded.id} keeps its name "${recorded.name}" (the parser service cannot rename a parser; its id, versions and results stay)`,
        );
      }
    }
  }
  if (resources !== undefined) outcome.state = { ...state, resources };
  return outcome;
}

/** A state with the moves of a plan made: what apply records before its calls (no call is needed). */
export function moveState(state: State, moves: readonly PlannedMove[]): State {
  if (moves.length === 0) return state;
  const resources = { ...state.resources };
  for (const { from, to } of moves) {
    const recorded = resources[from];
    if (recorded === undefined || resources[to] !== undefined) continue;
    delete resources[from];
    resources[to] = recorded;
  }
  return { ...state, resources };
}
