import { describe, expect, it } from 'vitest';
import { MAX_TIMER_MS } from '../../../src/duration.js';
import { CLIENT_MARGIN_MS, sessionTimeouts } from '../../../src/state/postgres-session.js';

/**
 * Review: SCRAPEFORM_STATE_TIMEOUT within 2 s of MAX_TIMER_MS (accepted, as any duration up to it) made the client's
 * query timer (the timeout plus CLIENT_MARGIN_MS) overflow: Node fired it after 1 ms and every query failed.
 */
describe('sessionTimeouts', () => {
  it('gives the server the timeout and the client its margin more', () => {
    expect(sessionTimeouts(30_000)).toEqual({
      connectionTimeoutMillis: 30_000,
      query_timeout: 30_000 + CLIENT_MARGIN_MS,
      statement_timeout: 30_000,
      lock_timeout: 30_000,
    });
  });

  it.each([
    MAX_TIMER_MS - CLIENT_MARGIN_MS - 1,
    MAX_TIMER_MS - CLIENT_MARGIN_MS,
    MAX_TIMER_MS - CLIENT_MARGIN_MS + 1,
    MAX_TIMER_MS - 1000,
    MAX_TIMER_MS,
    // A library caller's: no flag or variable accepts it.
    MAX_TIMER_MS + 1,
    30 * 86_400_000,
  ])('keeps every limit within a timer for %i ms', (ms) => {
    const limits = sessionTimeouts(ms);
    for (const value of Object.values(limits)) expect(value).toBeLessThanOrEqual(MAX_TIMER_MS);
    expect(limits.statement_timeout).toBe(Math.min(ms, MAX_TIMER_MS));
    expect(limits.query_timeout).toBe(Math.min(ms + CLIENT_MARGIN_MS, MAX_TIMER_MS));
    expect(limits.query_timeout).toBeGreaterThanOrEqual(limits.statement_timeout);
  });
});
