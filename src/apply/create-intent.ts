import { ApiError } from '../api/api-error.js';
import type { CreateIntent, ParserCreateIntent, ProjectCreateIntent, State } from '../state/model.js';
import type { HandlerContext } from './apply-context.js';
import { createOnce } from './create-once.js';

/**
 * Writes what a create is about to send to state, and waits until it is stored: only then is the POST sent, so a
 * run killed at any moment after leaves a trace the next plan recovers by name (plan/recover-intents.ts).
 */
export async function recordIntent(
  ctx: HandlerContext,
  address: string,
  intent: CreateIntent,
): Promise<void> {
  await ctx.store.commit((state) => {
    state.intents = { ...state.intents, [address]: intent };
  });
  // Writes are coalesced; this one must be on disk before the POST, or a kill in the window loses the trace. It
  // writes every earlier commit too, so what earlier changes did is on disk before the create is sent.
  await ctx.store.durable();
}

/** The create was recorded (or refused): its intent is spent. */
export function clearIntent(state: State, address: string): void {
  if (state.intents?.[address] === undefined) return;
  const { [address]: _spent, ...rest } = state.intents;
  if (Object.keys(rest).length > 0) state.intents = rest;
  else delete state.intents;
}

/**
 * After a failed create: a refusal (4xx: invalid, forbidden, rate-limited) created nothing, so the intent goes; an
 * ambiguous failure (no answer, 5xx) may have landed, so it stays for the next plan to look for.
 */
export async function settleFailedIntent(
  ctx: HandlerContext,
  address: string,
  error: unknown,
): Promise<void> {
  if (error instanceof ApiError && error.status >= 400 && error.status < 500) {
    await ctx.store.commit((state) => clearIntent(state, address));
  }
}

/**
 * The one way apply creates: the objects of that name known (what the plan read), the intent durable, the POST
 * never retried blindly (createOnce), and the intent settled when the create fails.
 */
export async function createWithIntent<T extends { id: string | number; name?: string | undefined }>(
  ctx: HandlerContext,
  address: string,
  intent: Omit<ParserCreateIntent, 'before'> | Omit<ProjectCreateIntent, 'before'>,
  calls: {
    list: () => Promise<T[]>;
    create: () => Promise<T>;
    planned: ReadonlyMap<string, readonly { id: T['id'] }[]> | undefined;
  },
): Promise<T> {
  try {
    return await createOnce(calls.list, calls.create, intent.name, {
      planned: calls.planned,
      beforeCreate: (before) => recordIntent(ctx, address, { ...intent, before } as CreateIntent),
    });
  } catch (error) {
    await settleFailedIntent(ctx, address, error);
    throw error;
  }
}
