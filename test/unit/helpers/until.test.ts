import { describe, expect, it } from 'vitest';
import { until } from '../../helpers/until.js';

describe('until', () => {
  it('resolves at once when the condition already holds, without waiting a poll', async () => {
    let checks = 0;
    await until('it holds', () => ++checks > 0, { everyMs: 60_000 });
    expect(checks).toBe(1);
  });

  it('checks again every everyMs until the condition holds', async () => {
    let checks = 0;
    await until('the third check', () => ++checks === 3, { everyMs: 1 });
    expect(checks).toBe(3);
  });

  it('awaits an async condition', async () => {
    let checks = 0;
    await until('the second async check', async () => ++checks === 2, { everyMs: 1 });
    expect(checks).toBe(2);
  });

  it('throws, naming the condition, when it never holds within withinMs', async () => {
    await expect(until('the sky falls', () => false, { withinMs: 50 })).rejects.toThrow(
      new Error('timed out after 50 ms waiting until the sky falls'),
    );
  });

  it('throws for an async condition that never holds', async () => {
    await expect(until('the sky falls', async () => false, { withinMs: 50, everyMs: 5 })).rejects.toThrow(
      'timed out after 50 ms waiting until the sky falls',
    );
  });
});
