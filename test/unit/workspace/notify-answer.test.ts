import { expect, it } from 'vitest';
import { notifyRefusal } from '../../../src/workspace/notify-answer.js';

const hook = 'https://hooks.example/services/T0/B0/s3cr3tT0ken';

/** A refused post names the status and, for a redirect, only the host it points to: never the secret path. */
it.each([
  [503, null, 'the notification endpoint answered 503'],
  [
    308,
    'https://evil.example:8443/x?y',
    'the notification endpoint answered 308, a redirect to evil.example:8443: not followed, the report is not sent on',
  ],
  [
    302,
    '/services/T0/B0/other',
    'the notification endpoint answered 302, a redirect to hooks.example: not followed, the report is not sent on',
  ],
  [
    301,
    'http://[',
    'the notification endpoint answered 301, a redirect: not followed, the report is not sent on',
  ],
  [307, null, 'the notification endpoint answered 307, a redirect: not followed, the report is not sent on'],
])('status %i with Location %j: %j', (status, location, message) => {
  const headers = new Headers(location === null ? {} : { location });
  expect(notifyRefusal({ status, headers }, hook)).toBe(message);
});
