import { ScrapeformError } from '../errors.js';
import {
  compileExpectedPattern,
  EXPECTED_PATTERN_BUDGET_MS,
  isExpectedPattern,
  testExpectedPattern,
} from '../manifest/expected-pattern.js';

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
 * arrays compare by position; numbers exactly; a string starting with `~` is a regular expression. A pattern that
 * runs past its budget against a value throws `test.pattern-timeout`: the check could not be decided.
 */
export function matchExpected(expected: unknown, actual: unknown, path = ''): Mismatch[] {
  if (isExpectedPattern(expected)) {
    const matched =
      typeof actual === 'string' && testExpectedPattern(compileExpectedPattern(expected), actual);
    if (matched === 'timeout') throw patternTimeout(path, expected, String(actual));
    return matched ? [] : [{ path, expected, actual, reason: 'no match' }];
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

function patternTimeout(path: string, pattern: string, value: string): ScrapeformError {
  const shown = value.length > 80 ? `${value.slice(0, 80)}…` : value;
  return new ScrapeformError(
    'test.pattern-timeout',
    `${path || '(result)'}: the pattern ${JSON.stringify(pattern)} ran past its ${EXPECTED_PATTERN_BUDGET_MS / 1000} s budget against ${JSON.stringify(shown)} (catastrophic backtracking), so the check was not decided; rewrite it without nested quantifiers such as (.*)*`,
  );
}
