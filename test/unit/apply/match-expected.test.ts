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
