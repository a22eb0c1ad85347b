import deepDiff from 'deep-diff';
import type { ProjectUpdate } from '../plan/model.js';

/** One leaf of a nested value that differs: `notificationConfig.notifyOnSuccess: "never" -> "daily"`. */
export interface ValueChange {
  /** Dot path from the top-level key: `apiParams.country_code`, `webhookOutput.url`. */
  path: string;
  change: 'add' | 'remove' | 'modify';
  before?: unknown;
  after?: unknown;
}

/**
 * The old -> new view of one nested value (a project's apiParams, notificationConfig, webhookOutput), leaf by leaf.
 * deep-diff finds the leaves; it is wrapped here (STYLE 2) because it returns undefined for "no change", reports a
 * value replaced by null or by another type as one edit, and reports arrays by position: an array is shown whole.
 */
export function diffValues(key: string, before: unknown, after: unknown): ValueChange[] {
  if (Array.isArray(before) || Array.isArray(after)) return [{ path: key, change: 'modify', before, after }];
  const found = deepDiff.diff(before, after) ?? [];
  const changes = found.map((d): ValueChange => {
    const path = [key, ...(d.path ?? []).map(String)].join('.');
    switch (d.kind) {
      case 'N':
        return { path, change: 'add', after: d.rhs };
      case 'D':
        return { path, change: 'remove', before: d.lhs };
      case 'E':
        return { path, change: 'modify', before: d.lhs, after: d.rhs };
      case 'A':
        // An array inside the object: shown whole at its path, old and new.
        return { path, change: 'modify', before: valueAt(before, d.path), after: valueAt(after, d.path) };
    }
  });
  // Several positions of one array are one change at the array's path.
  return [...new Map(changes.map((c) => [c.path, c])).values()];
}

function valueAt(root: unknown, path: readonly unknown[] | undefined): unknown {
  let value = root;
  for (const key of path ?? []) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[String(key)];
  }
  return value;
}

/**
 * The old -> new view of a project update, key by key. An input list is left out (the change's input summary counts
 * and samples it; a list of thousands is not a view). Without the live values (a plan read back from a file) each
 * key shows its new value only.
 */
export function projectUpdateView(change: ProjectUpdate): ValueChange[] {
  return Object.entries(change.changed).flatMap(([key, after]) => {
    const before = change.before?.[key];
    if (key === 'projectInput' && isList(after) && (change.before === undefined || isList(before))) return [];
    if (change.before === undefined) return [{ path: key, change: 'modify' as const, after }];
    return diffValues(key, before, after);
  });
}

function isList(input: unknown): boolean {
  return (input as { type?: unknown } | null | undefined)?.type === 'list';
}
