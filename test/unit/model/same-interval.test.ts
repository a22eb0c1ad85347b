import { describe, expect, it } from 'vitest';
import { sameInterval } from '../../../src/model/same-interval.js';

describe('sameInterval: one schedule in two spellings', () => {
  it.each([
    ['daily', 'DAILY'],
    ['0 6 * * mon', '0 6 * * 1'],
    ['0  6 * *  MON-FRI', '0 6 * * 1-5'],
    ['0 6 * * sun', '0 6 * * 7'],
    ['0 6 * * 7', '0 6 * * 0'],
    ['0 0 1 jan,jul *', '0 0 1 1,7 *'],
    ['*/1 * * * *', '* * * * *'],
  ])('%s and %s are one', (a, b) => {
    expect(sameInterval(a, b)).toBe(true);
    expect(sameInterval(b, a)).toBe(true);
  });

  it.each([
    ['daily', 'weekly'],
    ['0 6 * * 1', '0 6 * * 2'],
    ['0 6 * 1-11 *', '0 6 * * *'],
    ['0 6 * * 5-7', '0 6 * * 5-0'],
    ['0 6 * * *', 'daily'],
  ])('%s and %s stay two', (a, b) => {
    expect(sameInterval(a, b)).toBe(false);
  });

  it('other values compare as they are', () => {
    expect(sameInterval(undefined, undefined)).toBe(true);
    expect(sameInterval(null, 'daily')).toBe(false);
  });
});
