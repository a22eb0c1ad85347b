import { describe, expect, it } from 'vitest';
import { redact, redactValue, secretsRemover } from '../../../src/api/redact.js';

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

  it('removes the key as JSON escapes it and as a URL parser or a form encodes it', () => {
    const key = 'sk_LEAK"0123456789/+=';
    const quoted = JSON.stringify({ message: `bad key ${key}` });
    const parsed = new URL(`http://x.test/k?token=${key}`).toString();
    const form = new URLSearchParams({ token: key }).toString();
    const out = redact(`${quoted} ${parsed} ${form}`, [key]);
    expect(out).toBe('{"message":"bad key ***"} http://x.test/k?token=*** token=***');
  });

  it('an api_key value inside a JSON string ends where the string does: the JSON stays readable', () => {
    const body = JSON.stringify({ error: 'see https://x.test/a?api_key=abc"def', api_key: 'q"r' });
    const out = redact(body, []);
    expect(JSON.parse(out)).toEqual({ error: 'see https://x.test/a?api_key=***"def', api_key: '***' });
  });

  it('redacts the strings of an answer, never its numbers or the names of its keys', () => {
    expect(redactValue({ id: 1, note: 'k1 here', k1: ['k1'] }, ['k1'])).toEqual({
      id: 1,
      note: '*** here',
      k1: ['***'],
    });
  });

  it('takes the key out of a live value, keys of objects too, and says it did; leaves any other api_key alone', () => {
    const key = 'sk_live_0123456789';
    const live = {
      id: 7,
      webhookOutput: { url: `https://hooks.test/in?token=${encodeURIComponent(key)}&api_key=theirs` },
      apiParams: { [key]: 'x' },
    };
    const remove = secretsRemover([key]);
    expect(remove(live)).toEqual({
      value: {
        id: 7,
        webhookOutput: { url: 'https://hooks.test/in?token=***&api_key=theirs' },
        apiParams: { '***': 'x' },
      },
      held: true,
    });
    const clean = { id: 8, webhookOutput: { url: 'https://hooks.test/in?api_key=theirs' } };
    const result = remove(clean);
    expect(result.held).toBe(false);
    expect(result.value).toBe(clean);
  });
});
