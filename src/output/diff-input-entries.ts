/**
 * How many entries of a project's input list the human and Markdown plans show, added and removed each; the rest
 * is counted ("and N more"). `plan --json` carries both whole lists (`value_changes`, the request body).
 */
export const INPUT_ENTRIES_SHOWN = 20;

/** The entries of an input list that a change adds and removes, the first `limit` of each listed. */
export interface InputEntriesDiff {
  added: string[];
  removed: string[];
  /** How many more were added, and removed, than are listed. */
  moreAdded: number;
  moreRemoved: number;
  /** Totals: `+added −removed entries`. */
  addedCount: number;
  removedCount: number;
}

/**
 * Entries in `after` and not in `before` (in the order of `after`), and the other way round (in the order of
 * `before`). A reordered list adds and removes nothing: the service runs every entry either way.
 */
export function diffInputEntries(
  before: readonly string[],
  after: readonly string[],
  limit = INPUT_ENTRIES_SHOWN,
): InputEntriesDiff {
  const old = new Set(before);
  const now = new Set(after);
  // Counted as the planner's input summary counts them (plan-project.ts), so the two never disagree.
  const added = after.filter((e) => !old.has(e));
  const removed = before.filter((e) => !now.has(e));
  return {
    added: added.slice(0, limit),
    removed: removed.slice(0, limit),
    moreAdded: Math.max(0, added.length - limit),
    moreRemoved: Math.max(0, removed.length - limit),
    addedCount: added.length,
    removedCount: removed.length,
  };
}

/** The entries of a list input, or undefined when the input is not a list (a URL to read them from). */
export function inputEntries(input: unknown): string[] | undefined {
  if (input === null || typeof input !== 'object') return undefined;
  const { type, list } = input as { type?: unknown; list?: unknown };
  if (type !== 'list' || !Array.isArray(list)) return undefined;
  return list.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)));
}
