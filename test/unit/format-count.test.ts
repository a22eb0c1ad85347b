import { describe, expect, it } from 'vitest';
import { formatCount } from '../../src/format-count.js';

describe('formatCount', () => {
  it("groups thousands as toLocaleString('en-US') does", () => {
    for (const n of [0, 7, 999, 1000, 30_000, 123_456, 6_000_000, 1_234_567_890, -45_000]) {
      expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
    }
  });
});
