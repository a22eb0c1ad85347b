import { ApiError, mayHaveLanded } from '../api/api-error.js';
import { applyFieldOperations } from '../plan/field-operations.js';
import type { ParserUpdate, ResourceChange } from '../plan/model.js';
import type { ParserDefinition, ParserState, ResourceState } from '../state/model.js';
import type { HandlerContext } from './apply-context.js';

/**
 * The definition each PATCH of an update makes, in order: the fields after each wave (from what state records),
 * and the whole declared definition after the last.
 */
export function waveDefinitions(
  change: ParserUpdate,
  recorded: ResourceState | undefined,
): ParserDefinition[] {
  let fields =
    recorded?.kind === 'Parser' && recorded.definition !== null
      ? recorded.definition.fields
      : change.definition.fields;
  return change.waves.map((ops, i) => {
    if (i === change.waves.length - 1) return change.definition;
    fields = applyFieldOperations(fields, ops);
    return { ...change.definition, fields };
  });
}

/**
 * The intents of the first PATCH of every update of the plan (ParserState.patching), committed before the first
 * call so that the one durable write of the create intents (recordIntentsAhead) carries them too: a PATCH whose
 * intent is on disk this way is sent without a write of its own. Returns the addresses recorded. An update whose
 * PATCH is never sent has its intent taken back when apply ends (settlePatches); one a kill leaves behind is
 * dropped by the next plan, which takes a version as the PATCH's only when its fields are the ones sent (a parser
 * still at `from`, or changed by someone else meanwhile, is not: recover-intents.ts).
 */
export async function recordPatchesAhead(
  ctx: HandlerContext,
  changes: readonly ResourceChange[],
): Promise<Set<string>> {
  const ahead = new Set<string>();
  const updates = changes.filter(
    (c): c is ParserUpdate =>
      c.kind === 'Parser' &&
      c.action === 'update' &&
      ctx.store.current.resources[c.address]?.kind === 'Parser',
  );
  if (updates.length === 0) return ahead;
  await ctx.store.commit((state) => {
    for (const change of updates) {
      const current = state.resources[change.address] as ParserState;
      const [definition] = waveDefinitions(change, current);
      if (definition === undefined) continue;
      state.resources[change.address] = { ...current, patching: { from: change.baseVersion, definition } };
      ahead.add(change.address);
    }
  });
  return ahead;
}

/** When apply ends: the intents of PATCHes recorded ahead and never sent are taken back. */
export async function settlePatches(ctx: HandlerContext, unsent: ReadonlySet<string>): Promise<void> {
  if (unsent.size === 0) return;
  await ctx.store.commit((state) => {
    for (const address of unsent) clearPatching(state.resources, address);
  });
}

/**
 * One PATCH, its intent on disk first (ParserState.patching): a run whose answer is lost leaves it for the next plan,
 * which takes the version the service made as this PATCH's rather than PATCHing again. A refusal (4xx) made nothing, so
 * the intent goes; any other failure (no answer, a 5xx, an answer that cannot be read) may have acted, so it stays,
 * marked `sent`: the next plan takes the version it made as its own, and while neither the list nor the parser's
 * details show that version, sends it again only with `--recreate` for the address (recover-intents.ts). A parser state
 * does not hold yet (the first PATCH of an adoption) has no intent to keep.
 */
export async function patchOnce<T>(
  ctx: HandlerContext,
  address: string,
  patching: NonNullable<ParserState['patching']>,
  send: () => Promise<T>,
): Promise<T> {
  const held = ctx.store.current.resources[address]?.kind === 'Parser';
  // When it went out: a PATCH whose answer is lost then is not sent again unconfirmed (recover-intents.ts).
  const sent = { ...patching, sent: new Date(ctx.now()).toISOString() };
  if (held && ctx.patchesAhead?.delete(address) === true) {
    // Recorded ahead with the whole plan (the first PATCH of each update): already on disk. That it is being sent
    // goes with the next write, not one of its own, as for a create (create-intent.ts).
    await ctx.store.commit((state) => {
      const current = state.resources[address];
      if (current?.kind === 'Parser' && current.patching !== undefined)
        state.resources[address] = { ...current, patching: { ...current.patching, sent: sent.sent } };
    });
    await ctx.store.sent(address, 'patch', sent.sent);
  } else if (held) {
    await ctx.store.commit((state) => {
      const current = state.resources[address];
      if (current?.kind === 'Parser') state.resources[address] = { ...current, patching: sent };
    });
    await ctx.store.durable();
  }
  try {
    return await send();
  } catch (error) {
    if (mayHaveLanded(error)) ctx.emit({ type: 'call-unanswered', address, method: 'PATCH' });
    if (held && error instanceof ApiError && error.status >= 400 && error.status < 500)
      await ctx.store.commit((state) => clearPatching(state.resources, address));
    throw error;
  }
}

function clearPatching(resources: Record<string, ResourceState>, address: string): void {
  const current = resources[address];
  if (current?.kind !== 'Parser' || current.patching === undefined) return;
  const { patching: _patching, ...rest } = current;
  resources[address] = rest;
}
