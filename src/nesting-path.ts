/**
 * The path of the first object or array nested more than `limit` levels deep (the value itself is level 1), in
 * document order, or undefined. Walked without recursion, before anything that recurses reads the value: a saved
 * plan (plan-file.ts) or a document import would write (read-back.ts) nesting some thousands of levels blew the
 * call stack, and the command ended as an internal error. (send-request.ts's nestsDeeperThan answers only whether,
 * without building paths, on the path of every large answer.)
 */
export function pathNestedPast(data: unknown, limit: number): PropertyKey[] | undefined {
  const stack: { value: unknown; depth: number; path: PropertyKey[] }[] = [
    { value: data, depth: 1, path: [] },
  ];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { value, depth, path } = next;
    if (value === null || typeof value !== 'object') continue;
    if (depth > limit) return path;
    const entries: [PropertyKey, unknown][] = Array.isArray(value)
      ? value.map((item, index) => [index, item])
      : Object.entries(value);
    // Pushed last first, so the first collection past the limit in document order is the one named.
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i];
      if (entry !== undefined) stack.push({ value: entry[1], depth: depth + 1, path: [...path, entry[0]] });
    }
  }
  return undefined;
}
