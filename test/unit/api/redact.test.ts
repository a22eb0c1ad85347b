import { describe, expect, it } from 'vitest';
import { redact } from '../../../src/api/redact.js';

describe('redact', () => {
  it('removes the key itself, its URL-encoded form, and any api_key value', () => {
    expect(redact('a k+y/1 b k%2By%2F1 ?api_key=other&x=1 {"api_key":"zzz"}', ['k+y/1'])).toBe(
      'a *** b *** ?api_key=***&x=1 {"api_key":"***"}',
    );
  });

  it('ends an unknown api_key value where a URL quoted in a message ends', () => {
    expect(redact('to (https://x.test/?api_key=abc123); then [?api_key=def], <&api_key=g>', [])).toBe(
      'to (https://x.test/?api_key=***); then [?api_key=***], <&api_key=***>',
    );
  });
});
