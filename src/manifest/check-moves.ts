import type { DesiredMove, DesiredParser, DesiredProject } from '../model/desired.js';
import type { Diagnostic } from './diagnostic.js';
import { suggestNearest } from './suggest.js';

const CODE = 'manifest.moved';

/**
 * The `moved:` hints of every object, checked across manifests: each names objects of its manifest's kind, `to`
 * is declared (or moved on by another hint: a chain), `from` is not, one address is the target (and the source) of
 * one move only, and there are no cycles. A chain (`a -> b`, `b -> c`) is the history of an object renamed twice,
 * as Terraform's moved blocks chain: a hint stays in the file once applied, so a second rename starts where the
 * first led, and state may hold the object at any address of it (planMoves). The same hint written by several
 * for_each instances counts once; a hint whose `from` and `to` are equal (an element that kept its name) is
 * nothing. Whether `from` is in state is the planner's affair.
 */
export function checkMoves(objects: readonly (DesiredParser | DesiredProject)[]): Diagnostic[] {
  const declared = new Map(objects.map((o) => [o.address as string, o]));
  const moves: (DesiredMove & { kind: 'Parser' | 'Project' })[] = [];
  const seen = new Set<string>();
  for (const object of objects) {
    for (const move of object.moved ?? []) {
      const key = `${move.from}\u0000${move.to}`;
      if (move.from === move.to || seen.has(key)) continue;
      seen.add(key);
      moves.push({ ...move, kind: object.kind });
    }
  }
  const out: Diagnostic[] = [];
  const fail = (move: DesiredMove, message: string, hint?: string): void => {
    out.push({
      severity: 'error',
      code: CODE,
      file: move.place.file,
      line: move.place.line,
      column: move.place.column,
      path: 'moved',
      message,
      ...(hint !== undefined ? { hint } : {}),
    });
  };
  const bySource = groupBy(moves, (m) => m.from);
  const byTarget = groupBy(moves, (m) => m.to);
  const inCycle = new Set<string>();
  for (const move of moves) {
    const prefix = move.kind === 'Parser' ? 'parser.' : 'project.';
    const wrong = [move.from, move.to].find((address) => !address.startsWith(prefix));
    if (wrong !== undefined) {
      fail(
        move,
        `${wrong} is not a ${move.kind.toLowerCase()} address; a ${move.kind} manifest moves ${move.kind.toLowerCase()}s`,
        `write ${prefix}NAME`,
      );
      continue;
    }
    const cycle = cycleFrom(move.from, bySource);
    if (cycle !== undefined) {
      if (!inCycle.has(move.from)) fail(move, `the moves make a cycle: ${cycle.join(' -> ')}`);
      for (const address of cycle) inCycle.add(address);
      continue;
    }
    const sameTarget = byTarget.get(move.to) ?? [];
    if (sameTarget.length > 1) {
      fail(
        move,
        `${sameTarget.length} moves lead to ${move.to} (from ${sameTarget.map((m) => m.from).join(', ')}); one object can take the state of one other only`,
      );
      continue;
    }
    const sameSource = bySource.get(move.from) ?? [];
    if (sameSource.length > 1) {
      fail(
        move,
        `${move.from} is moved to ${sameSource.length} addresses (${sameSource.map((m) => m.to).join(', ')}); its state can go to one only`,
      );
      continue;
    }
    if (!declared.has(move.to) && !bySource.has(move.to)) {
      const near = suggestNearest(move.to, [...declared.keys()]);
      fail(
        move,
        `to ${move.to} names no declared object`,
        near !== undefined ? `did you mean ${near}?` : 'to names the object as it is declared now',
      );
      continue;
    }
    const still = declared.get(move.from);
    if (still !== undefined) {
      fail(
        move,
        `from ${move.from} is still declared (${still.source.file}:${still.source.line}): an object cannot be moved away and kept`,
        `remove the hint, or rename the object declared as ${move.from}`,
      );
    }
  }
  return out;
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) out.set(keyOf(item), [...(out.get(keyOf(item)) ?? []), item]);
  return out;
}

/** The cycle that following the moves from `start` comes back to `start` by, if any. */
function cycleFrom(start: string, bySource: Map<string, DesiredMove[]>): string[] | undefined {
  const path = [start];
  let at = start;
  for (;;) {
    const next = bySource.get(at);
    if (next === undefined || next.length !== 1 || next[0] === undefined) return undefined;
    at = next[0].to;
    path.push(at);
    if (at === start) return path;
    if (path.length > bySource.size + 1) return undefined;
  }
}
