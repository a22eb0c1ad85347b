/** One way the extracted result differs from an `expect` block. */
export interface Mismatch {
  /** Where, in the result: `title`, `reviews[0].rating`. */
  path: string;
  expected: unknown;
  actual: unknown;
  reason: 'missing' | 'different' | 'no match';
}

/**
 * Partial matching of an `expect` block against a parse result: listed keys must match, others are ignored;
 * arrays compare by position; numbers exactly; a string starting with `~` is a regular expression.
 */
export function matchExpected(expected: unknown, actual: unknown, path = ''): Mismatch[] {
  if (typeof expected === 'string' && expected.startsWith('~')) {
    const pattern = new RegExp(expected.slice(1));
    return typeof actual === 'string' && pattern.test(actual)
      ? []
      : [{ path, expected, actual, reason: 'no match' }];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [{ path, expected, actual, reason: 'different' }];
    return expected.flatMap((item, i) =>
      i < actual.length
        ? matchExpected(item, actual[i], `${path}[${i}]`)
        : [{ path: `${path}[${i}]`, expected: item, actual: undefined, reason: 'missing' as const }],
    );
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual))
      return [{ path, expected, actual, reason: 'different' }];
    return Object.entries(expected).flatMap(([key, value]) => {
      const where = path === '' ? key : `${path}.${key}`;
      if (!Object.hasOwn(actual, key))
        return [{ path: where, expected: value, actual: undefined, reason: 'missing' as const }];
      return matchExpected(value, (actual as Record<string, unknown>)[key], where);
    });
  }
  return Object.is(expected, actual) ? [] : [{ path, expected, actual, reason: 'different' }];
}
