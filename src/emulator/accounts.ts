import { HttpError } from './http.js';

export interface Account {
  key: string;
  credits: number;
}

/** API keys the emulator accepts and the credits left on each (seed 1, Authentication: 401 and 402). */
export class Accounts {
  private readonly byKey = new Map<string, Account>();

  constructor(accounts: readonly Account[]) {
    for (const account of accounts) this.byKey.set(account.key, { ...account });
  }

  /** The account of a key, or 401 (a missing key is the caller's 400 or 401, per endpoint). */
  authenticate(key: unknown): Account {
    const account = typeof key === 'string' ? this.byKey.get(key) : undefined;
    if (account === undefined) throw new HttpError(401, 'Invalid API key');
    return account;
  }

  /** Takes credits, or answers 402 and takes nothing when the account cannot pay. */
  charge(account: Account, credits: number): void {
    if (account.credits < credits) {
      throw new HttpError(402, `Credits exhausted: ${credits} needed, ${account.credits} left`);
    }
    account.credits -= credits;
  }

  set(key: string, credits: number): Account {
    const account = { key, credits };
    this.byKey.set(key, account);
    return account;
  }

  list(): Account[] {
    return [...this.byKey.values()].map((a) => ({ ...a }));
  }
}
