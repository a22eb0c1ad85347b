import { describe, expect, it } from 'vitest';
import { redact, redactError, redactValue, secretsRemover } from '../../../src/api/redact.js';
import { ApiError } from '../../../src/api/api-error.js';

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

  it('removes a long key in any case: a service may echo a hex-like key upper- or lower-cased', () => {
    const key = '3f9a1c2B7d4e8f60A1b2c3d4e5f60718';
    expect(
      redact(`a ${key.toUpperCase()} b ${key.toLowerCase()} c 3F9A1C2b7D4E8F60a1B2C3D4E5F60718`, [key]),
    ).toBe('a *** b *** c ***');
  });

  it('removes a long key base64-encoded: standard and URL-safe alphabets, padded or not, whole', () => {
    const key = 'key~~~???>>>0123456789a';
    // base64 a2V5fn5+Pz8/Pj4+MDEyMzQ1Njc4OWE=, base64url a2V5fn5-Pz8_Pj4-MDEyMzQ1Njc4OWE
    const text = [
      'Basic a2V5fn5+Pz8/Pj4+MDEyMzQ1Njc4OWE=,',
      'bare a2V5fn5+Pz8/Pj4+MDEyMzQ1Njc4OWE;',
      'url-safe a2V5fn5-Pz8_Pj4-MDEyMzQ1Njc4OWE=,',
      'bare url-safe a2V5fn5-Pz8_Pj4-MDEyMzQ1Njc4OWE;',
      'query ?t=a2V5fn5%2BPz8%2FPj4%2BMDEyMzQ1Njc4OWE%3D&x=1',
    ].join(' ');
    expect(redact(text, [key])).toBe(
      'Basic ***, bare ***; url-safe ***, bare url-safe ***; query ?t=***&x=1',
    );
  });

  it("looks for a short key (a test's) only as written: in another case or base64-encoded it is ordinary text", () => {
    // base64 of `k` is `aw==`, found unpadded in `away`.
    expect(redact('K k away', ['k'])).toBe('K *** away');
  });

  it('takes an echoed key out of an error and its causes, in each form', () => {
    const key = '3f9a1c2b7d4e8f60a1b2c3d4e5f60718';
    const cause = new Error(`token ${Buffer.from(key).toString('base64')} refused`, {
      cause: `401 for key ${key.toUpperCase()}`,
    });
    const error = new Error(`invalid api key ${key.toUpperCase()}`, { cause });
    const copy = redactError(error, [key]) as Error;
    expect(copy.message).toBe('invalid api key ***');
    expect((copy.cause as Error).message).toBe('token *** refused');
    expect((copy.cause as Error).cause).toBe('401 for key ***');
    expect(copy.stack).not.toContain(key.toUpperCase());
  });

  it('takes an upper-cased or base64-encoded key out of a live value, keys of objects too', () => {
    const key = 'sk_live_0123456789abcdef';
    const remove = secretsRemover([key]);
    const live = {
      id: 7,
      webhookOutput: { url: `https://hooks.test/in?token=${key.toUpperCase()}` },
      headers: { Authorization: `Bearer ${Buffer.from(key).toString('base64url')}` },
      apiParams: { [Buffer.from(key).toString('base64')]: 'x' },
    };
    expect(remove(live)).toEqual({
      value: {
        id: 7,
        webhookOutput: { url: 'https://hooks.test/in?token=***' },
        headers: { Authorization: 'Bearer ***' },
        apiParams: { '***': 'x' },
      },
      held: true,
    });
  });
});

describe('a long key cut short', () => {
  const key = '3f9a1c2b7d4e8f60a1b2c3d4e5f60718';

  it('removes its first or last 12 characters or more, plain or encoded, where a word starts or ends', () => {
    const text = [
      `key ${key.slice(0, 20)}…`,
      `(…${key.slice(-12).toUpperCase()})`,
      `?t=${encodeURIComponent(`${key}/`).slice(0, 14)}`,
    ].join(' ');
    expect(redact(text, [key])).toBe('key ***… (…***) ?t=***');
    expect(secretsRemover([key])({ note: `echo ${key.slice(0, 12)}` })).toEqual({
      value: { note: 'echo ***' },
      held: true,
    });
  });

  it('removes its first characters glued after letters or digits, and cut where other ones follow', () => {
    const sentinel = 'sk_live_SENTINEL_5f3a9c2b7d4e8f60';
    expect(redact('token=xsk_live_SENTINEL_5f3… (echo 7sk_live_SENTINEL_5f3abc)', [sentinel])).toBe(
      'token=x***… (echo 7***bc)',
    );
  });

  it('removes its last characters glued before letters or digits, and cut where other ones come before', () => {
    expect(redact(`tail ${key.slice(-14)}x (9${key.slice(-20).toUpperCase()}ab)`, [key])).toBe(
      'tail ***x (9***ab)',
    );
  });

  it('removes a piece in the middle of a longer token, plain or encoded', () => {
    const slashed = `sk/live/${key}`;
    // URL-encoded: sk%2Flive%2F3f9a1c2b7d…
    const text = `id=abc${key.slice(0, 16)}def; v=z${encodeURIComponent(slashed).slice(0, 16)}w`;
    expect(redact(text, [key, slashed])).toBe('id=abc***def; v=z***w');
    expect(secretsRemover([key])({ note: `x${key.slice(2)}y` })).toEqual({
      value: { note: 'x***y' },
      held: true,
    });
  });

  it('leaves text that shares fewer than 12 characters with the key, glued or not', () => {
    const text = `id x${key.slice(0, 11)}y ${key.slice(-11)}9 ${key.slice(0, 11)} ${key.slice(-11)}`;
    expect(redact(text, [key])).toBe(text);
    expect(secretsRemover([key])({ note: text }).held).toBe(false);
  });
});

describe("a key shorter than 12 characters (an emulator's, a test's)", () => {
  it('is looked for only whole: no piece of it is cut out of a longer word', () => {
    const short = 'emu-key-123';
    expect(redact(`a x${short.slice(0, 10)}y ${short.slice(1)}z ${short}`, [short])).toBe(
      `a x${short.slice(0, 10)}y ${short.slice(1)}z ***`,
    );
  });
});

describe('a key short enough to occur in the word api_key', () => {
  it('leaves no other api_key value shown, in a query or a JSON body', () => {
    // The emulator started with `--api-key k` redacts its log with that key: a wrong key sent to it stayed whole.
    expect(redact('/api/projects?api_key=wrong-key-of-another-account', ['k'])).not.toContain('wrong');
    expect(redact('{"api_key":"wrong-key-of-another-account"}', ['k'])).not.toContain('wrong');
    expect(redact('GET /parsers?api_key=k&x=1', ['k'])).toBe('GET /parsers?api_***ey=***&x=1');
  });
});

describe('ApiError: the body excerpt', () => {
  it('is redacted before it is cut: a key across the cut leaves none of its characters', () => {
    const key = 'sk_live_0123456789abcdef';
    const error = new ApiError({
      code: 'api.bad-request',
      status: 400,
      method: 'GET',
      url: 'https://x.test/parsers',
      body: `${'x'.repeat(490)}${key} and more`,
      retryable: false,
      secrets: [key],
    });
    expect(error.body).toBe(`${'x'.repeat(490)}*** and mo…`);
  });
});
