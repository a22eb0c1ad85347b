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
  /** The addresses of each chain the plan did not choose (`chosen`) that would move an object state holds. */
  unmoved: string[];
}

/**
 * Moves the state entries the `moved:` hints name (Terraform's moved blocks): the object state knows at `from`
 * is then planned at `to` like any other, so a changed name is a rename where the service has one, never a
 * delete and a create. Pure. The manifests were checked already (manifest/check-moves.ts): kinds match, `to` is
 * declared or moved on, `from` is not, one move per source and per target, no cycles.
 *
 * Hints may chain (`a -> b`, `b -> c`: an object renamed twice, its first hint left in the file): the object state
 * holds at any address of the chain moves to its end in one step. A chain state holds nothing of is skipped:
 * once applied it is only history (as in Terraform), and is said only when its end has no state either (the object
 * is then created). State at two addresses of one chain is an error: the hints cannot say which to keep.
 *
 * `chosen` says whether a partial plan (`--target`, `--exclude`, paths) chose a chain, given its addresses (its end
 * first). A chain it did not choose moves nothing and is not said, as the partial plan promises of other objects:
 * its state stays where it is until a plan that chooses it, and its addresses are in `unmoved`, which the plan leaves
 * alone too (planned at the old one, the object would be deleted, its manifest being at the chain's end; at the
 * end, created again, state holding nothing there).
 */
export function planMoves(
  state: State,
  declared: readonly (DesiredParser | DesiredProject)[],
  chosen: (addresses: readonly string[]) => boolean = () => true,
): MovesOutcome {
  const outcome: MovesOutcome = { state, moves: [], warnings: [], errors: [], unmoved: [] };
  const seen = new Set<string>();
  const next = new Map<string, string>();
  const hints: { from: string; to: string; kind: 'Parser' | 'Project' }[] = [];
  for (const object of declared) {
    for (const { from, to } of object.moved ?? []) {
      if (from === to || seen.has(`${from}\u0000${to}`)) continue;
      seen.add(`${from}\u0000${to}`);
      next.set(from, to);
      hints.push({ from, to, kind: object.kind });
    }
  }
  // Each chain by its end (the address declared now), with the sources leading to it in the order written.
  const chains = new Map<string, typeof hints>();
  for (const hint of hints) {
    let end = hint.to;
    for (let steps = 0; next.has(end) && steps <= hints.length; steps += 1) end = next.get(end) ?? end;
    chains.set(end, [...(chains.get(end) ?? []), hint]);
  }
  const resources = { ...state.resources };
  for (const [to, sources] of chains) {
    const held = sources.filter((s) => resources[s.from]?.kind === s.kind);
    const froms = sources.map((s) => s.from);
    const source = held[0];
    const inPlan = chosen([to, ...froms]);
    if (source === undefined) {
      if (!inPlan) continue;
      if (resources[to] === undefined) {
        outcome.warnings.push(
          `${to}: moved from ${froms.join(', ')}, but state has nothing at ${froms.join(' or ')}; the ${froms.length === 1 ? 'hint is' : 'hints are'} ignored and ${to} is planned as declared`,
        );
      }
      continue;
    }
    if (held.length > 1 || resources[to] !== undefined) {
      const both = [...held.map((s) => s.from), ...(resources[to] !== undefined ? [to] : [])];
      outcome.errors.push(
        `${to}: moved from ${held.map((s) => s.from).join(' and from ')}, but state holds ${both.length === 2 ? 'both ' : ''}${both.join(' and ')}; the ${froms.length === 1 ? 'hint' : 'hints'} cannot say which to keep: remove ${froms.length === 1 ? 'it' : 'them'} (both stay managed), or remove one from state`,
      );
      continue;
    }
    const recorded = resources[source.from];
    if (recorded === undefined) continue;
    if (!inPlan) {
      // Every address of the chain: planned at its end from no state, the object would be created again.
      outcome.unmoved.push(to, ...froms);
      continue;
    }
    delete resources[source.from];
    resources[to] = recorded;
    outcome.moves.push({ from: source.from, to, kind: recorded.kind, id: recorded.id, name: recorded.name });
    const object = declared.find((o) => o.address === to);
    if (recorded.kind === 'Parser' && object !== undefined && recorded.name !== object.name) {
      outcome.warnings.push(
        `${to}: moved from ${source.from}; the live parser ${recorded.id} keeps its name "${recorded.name}" (the parser service cannot rename a parser; its id, versions and results stay)`,
      );
    }
  }
  if (outcome.moves.length > 0) outcome.state = { ...state, resources };
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
