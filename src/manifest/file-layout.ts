import { isCollection, isMap, isSeq } from 'yaml';
import type { Node, YAMLMap } from 'yaml';
import { columnOf, nestedBy } from './text-places.js';

// How a manifest's text lays things out, so that what patch-manifest.ts writes anew in it is laid out the same way.

/** Whether flow collections written anew get spaces inside their brackets: unless the file writes its own without. */
export function flowPadding(text: string): boolean {
  return !/(^|[\s:,])[{[][^\s\]}]/m.test(text) || /(^|[\s:,])[{[][ \t]+\S/m.test(text);
}

/**
 * How far in from its key the file writes the items of a block list (0 for `list:` then `- a` at its column), as the
 * shallowest such list of the document shows (the first at the least depth, read level by level); undefined when it
 * has none.
 */
export function seqOffset(text: string, node: unknown): number | undefined {
  const pending: unknown[] = [node];
  while (pending.length > 0) {
    const next = pending.shift();
    if (isSeq(next)) pending.push(...next.items);
    if (!isMap(next)) continue;
    for (const pair of next.items) {
      const key = (pair.key as Node | null)?.range?.[0];
      const value = pair.value;
      if (isSeq(value) && value.flow !== true && key !== undefined && value.range != null)
        return Math.max(0, (columnOf(text, value.range[0]) ?? 0) - (columnOf(text, key) ?? 0));
      pending.push(value);
    }
  }
  return undefined;
}

/**
 * How many spaces the file nests a line by at a block map's level, for the lines written anew in it (the library
 * nests by two, which mixed both in a file indented by four): as a pair's own block value is nested under its key,
 * else as the map is nested under its parent key, else two.
 */
export function indentStep(text: string, map: YAMLMap, parent: number | undefined): number {
  for (const pair of map.items) {
    const start = (pair.key as Node | null)?.range?.[0];
    const value = pair.value;
    const valueStart = isCollection(value) && value.flow !== true ? value.range?.[0] : undefined;
    // Only a value starting on a line of its own shows the nesting (not one after an anchor or a tag).
    if (start === undefined || valueStart === undefined || text.lastIndexOf('\n', valueStart - 1) < start)
      continue;
    const key = columnOf(text, start) ?? 0;
    const nested = columnOf(text, valueStart) ?? 0;
    if (nested > key) return nested - key;
  }
  return nestedBy(columnOf(text, map.range?.[0]), parent);
}
