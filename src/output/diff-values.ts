import deepDiff from 'deep-diff';

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
