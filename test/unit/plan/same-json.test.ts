import { describe, expect, it } from 'vitest';
import { sameJson, stable } from '../../../src/plan/plan-context.js';

// Every pair is checked against stable(): sameJson must say exactly what comparing the two strings says.
const values: unknown[] = [
  undefined,
  null,
  0,
  1,
  Number.NaN,
  '',
  '1',
  'a',
  true,
  false,
  [],
  [null],
  [undefined],
  [1, 2],
  [2, 1],
  ['a', { b: 1 }],
  {},
  { a: undefined },
  { a: 1 },
  { a: '1' },
  { a: 1, b: 2 },
  { b: 2, a: 1 },
  { a: 1, b: undefined },
  { a: { list: ['x', 'y'], type: 'list' } },
  { a: { type: 'list', list: ['x', 'y'] } },
  { a: { type: 'list', list: ['y', 'x'] } },
  { a: null },
  { a: [] },
  { a: {} },
  { a: () => 1 },
  new Date(0),
  '1970-01-01T00:00:00.000Z',
];

describe('sameJson: equal as stable JSON, without building it', () => {
  it('agrees with stable() on every pair of a set of edge cases', () => {
    for (const a of values) {
      for (const b of values) {
        expect([a, b, sameJson(a, b)]).toEqual([a, b, stable(a) === stable(b)]);
      }
    }
  });

  it('reads key order as no difference, and array order as one', () => {
    expect(sameJson({ type: 'list', list: ['a', 'b'] }, { list: ['a', 'b'], type: 'list' })).toBe(true);
    expect(sameJson({ list: ['a', 'b'] }, { list: ['b', 'a'] })).toBe(false);
  });
});
