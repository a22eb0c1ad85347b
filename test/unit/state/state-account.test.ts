import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { State } from '../../../src/state/model.js';
import { keyChanged, recordedAccount, withAccount } from '../../../src/state/state-account.js';
import { stateOf } from '../../helpers/state.js';

const digestOf = (key: string) => (salt: string) =>
  createHash('sha256').update(`${salt}:${key}`).digest('hex').slice(0, 16);

describe('the key that last applied a state', () => {
  it('is recorded salted, kept while the key is the same, and salted anew for another key', () => {
    const blank = stateOf({});
    const first = withAccount(blank, digestOf('key-a'));
    const account = recordedAccount(first);
    expect(account?.salt).toMatch(/^[0-9a-f]{32}$/);
    expect(account?.sha256).toBe(digestOf('key-a')(account?.salt ?? ''));
    expect(JSON.stringify(first)).not.toContain('key-a');
    expect(withAccount(first, digestOf('key-a'))).toBe(first);
    expect(keyChanged(first, digestOf('key-a'))).toBe(false);
    expect(keyChanged(first, digestOf('key-b'))).toBe(true);
    const second = withAccount(first, digestOf('key-b'));
    expect(recordedAccount(second)?.salt).not.toBe(account?.salt);
    expect(keyChanged(second, digestOf('key-b'))).toBe(false);
  });

  it('none recorded, one of another shape, or clients with no key: nothing is known to have changed', () => {
    const blank = stateOf({});
    expect(keyChanged(blank, digestOf('key-a'))).toBe(false);
    for (const account of [null, 'x', { salt: 1, sha256: 'a' }, { salt: 'a' }]) {
      const odd = { ...blank, account } as unknown as State;
      expect(recordedAccount(odd)).toBeUndefined();
      expect(keyChanged(odd, digestOf('key-a'))).toBe(false);
    }
    const recorded = withAccount(blank, digestOf('key-a'));
    expect(keyChanged(recorded, undefined)).toBe(false);
    expect(withAccount(recorded, undefined)).toBe(recorded);
  });
});
