import { getEventListeners } from 'node:events';
import { expect, it } from 'vitest';
import { waitBeforeRetry } from '../../../src/api/retry-policy.js';

it('many calls waiting out a 429 put one listener on the Ctrl-C signal, and Ctrl-C ends every wait', async () => {
  // With --concurrency above ten, a burst of 429s had each waiting call add its own listener to the clients'
  // interrupt signal, and Node printed "MaxListenersExceededWarning: Possible EventTarget memory leak detected".
  const interrupt = new AbortController();
  const waits = Array.from({ length: 16 }, () => waitBeforeRetry(60_000, interrupt.signal));
  expect(getEventListeners(interrupt.signal, 'abort')).toHaveLength(1);
  interrupt.abort();
  await expect(Promise.all(waits)).resolves.toHaveLength(16);
});
