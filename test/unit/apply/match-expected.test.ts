import { describe, expect, it } from 'vitest';
import { matchExpected } from '../../../src/apply/match-expected.js';

const actual = {
  title: 'A Light in the Attic',
  price: 51.77,
  reviews: [{ author: 'Maya R.', rating: 5 }],
  extra: true,
};

describe('matchExpected', () => {
  it.each([
    [{ title: 'A Light in the Attic' }, []],
    [{ title: '~^A Light' }, []],
    [{ price: 51.77, reviews: [{ rating: 5 }] }, []],
    [{ price: 51.8 }, [{ path: 'price', expected: 51.8, actual: 51.77, reason: 'different' }]],
    [
      { title: '~^The' },
      [{ path: 'title', expected: '~^The', actual: 'A Light in the Attic', reason: 'no match' }],
    ],
    [{ isbn: 'x' }, [{ path: 'isbn', expected: 'x', actual: undefined, reason: 'missing' }]],
    [
      { reviews: [{ author: 'Maya R.' }, { author: 'Jonas' }] },
      [{ path: 'reviews[1]', expected: { author: 'Jonas' }, actual: undefined, reason: 'missing' }],
    ],
    [{ price: '51.77' }, [{ path: 'price', expected: '51.77', actual: 51.77, reason: 'different' }]],
  ])('%j', (expected, mismatches) => {
    expect(matchExpected(expected, actual)).toEqual(mismatches);
  });
});

describe('a pattern that backtracks past its budget', () => {
  it('is not a mismatch but a check that could not be decided (test.pattern-timeout), within about a second', () => {
    const started = performance.now();
    expect(() =>
      matchExpected({ reviews: [{ author: '~^(.*.*)*\\d$' }] }, { reviews: [{ author: 'a'.repeat(40) }] }),
    ).toThrow(
      expect.objectContaining({
        code: 'test.pattern-timeout',
        message: `reviews[0].author: the pattern "~^(.*.*)*\\\\d$" ran past its 1 s budget against "${'a'.repeat(40)}" (catastrophic backtracking), so the check was not decided; rewrite it without nested quantifiers such as (.*)*`,
      }),
    );
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

describe('patterns read text as characters, not UTF-16 halves', () => {
  const result = { city: 'Zürich', badge: '😀', tag: 'p{Lu}' };

  it.each([
    [{ badge: '~^.$' }, []],
    [{ badge: '~^[😀-😎]$' }, []],
    [{ city: '~^\\p{Lu}\\p{Ll}+$' }, []],
    [{ tag: '~^\\p{Lu}' }, [{ path: 'tag', expected: '~^\\p{Lu}', actual: 'p{Lu}', reason: 'no match' }]],
  ])('%j', (expected, mismatches) => {
    expect(matchExpected(expected, result)).toEqual(mismatches);
  });
});
