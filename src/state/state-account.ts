import { randomBytes } from 'node:crypto';
import { isRecord } from '../is-record.js';
import type { State, StateAccount } from './model.js';

// The key that last applied changes with a state, as a salted digest (the same digest a saved plan records:
// create-clients.ts, accountDigest): never the key, and no two states can be matched up by it. A run whose key gives
// another digest is not the one whose objects state records; when the service then shows none of them, that is read
// as another account even for a single object (plan/vanished.ts), not as deletions to create again.

/** The account state records, or undefined: none recorded, or one of another shape (read as none). */
export function recordedAccount(state: State): StateAccount | undefined {
  const account: unknown = state.account;
  if (!isRecord(account) || typeof account.salt !== 'string' || typeof account.sha256 !== 'string')
    return undefined;
  return { salt: account.salt, sha256: account.sha256 };
}

/** Whether the run's key is known to differ from the one that last applied changes with `state`. */
export function keyChanged(state: State, digest: ((salt: string) => string) | undefined): boolean {
  const account = recordedAccount(state);
  return account !== undefined && digest !== undefined && digest(account.salt) !== account.sha256;
}

/** `state` recording the run's key (a new salt when the key changed), or `state` itself when it does already. */
export function withAccount(state: State, digest: ((salt: string) => string) | undefined): State {
  if (digest === undefined) return state;
  const account = recordedAccount(state);
  if (account !== undefined && digest(account.salt) === account.sha256) return state;
  const salt = randomBytes(16).toString('hex');
  return { ...state, account: { salt, sha256: digest(salt) } };
}
