import { ApiError, mayHaveLanded, neverSent } from '../api/api-error.js';
import type { IdsBefore } from '../api/api-error.js';
import { ScrapeformError } from '../errors.js';
import { postsNewObject } from '../plan/model.js';
import { managedIds } from '../plan/plan-context.js';
import type { PostingChange, ResourceChange } from '../plan/model.js';
import { keptProtection } from '../state/model.js';
import type { CreateIntent, ResourceState, State } from '../state/model.js';
import type { HandlerContext } from './apply-context.js';
import { createOnce } from './create-once.js';
import type { Created } from './create-once.js';

/** What a change's intent says: the name and the definition its POST sends (and for a replace, the old parser). */
export function intentOf(change: PostingChange): Omit<CreateIntent, 'before'> {
  if (change.kind === 'Project') {
    return { kind: 'Project', name: change.name, definition: change.definition };
  }
  return {
    kind: 'Parser',
    name: change.name,
    definition: change.definition,
    ...(change.action === 'replace' ? { replaces: change.id } : {}),
    ...(change.action === 'replace' && change.alsoDeletes !== undefined
      ? { alsoReplaces: change.alsoDeletes }
      : {}),
  };
}

/**
 * The intent of a create as state holds it: what it sends, the objects of its name seen before it, and the id
 * state still records at its address when it creates again an object deleted outside scrapeform (that record
 * stays until the new one is recorded, so without it the intent would read as spent after a kill).
 */
function intentAt(
  ctx: HandlerContext,
  state: State,
  change: PostingChange,
  before: (string | number)[],
): CreateIntent {
  const recorded = state.resources[change.address];
  const recreates =
    change.action === 'create' && recorded?.kind === change.kind ? { recreates: recorded.id } : {};
  return {
    ...intentOf(change),
    before,
    ...recreates,
    ...createdProtection(ctx, change.address, recorded),
  } as CreateIntent;
}

/**
 * The `lifecycle.prevent_destroy` of the object a create or replace makes at `address`, recorded with its intent and
 * with the object itself (and of an object an adoption records there, in the same write): the manifest's
 * (ApplyOptions.protect), or the one state recorded there (the parser a replace replaces). The end of the run records
 * each declared object's protection; an object made or adopted by a run killed before then is protected all the same
 * (recover-intents.ts takes a created one from the intent).
 */
export function createdProtection(
  ctx: HandlerContext,
  address: string,
  recorded: ResourceState | undefined,
): { preventDestroy?: true } {
  return ctx.options.protect?.has(address) === true ? { preventDestroy: true } : keptProtection(recorded);
}

/**
 * The intents of every create of the plan, written in one durable write before the first call, when the plan's
 * lists say which objects of each name existed before (ctx.planned). A create whose intent is on disk this way
 * sends its POST without a write of its own: one fsynced write of the whole state per create (or per group of
 * creates in flight together) was most of the time of a large apply (issue 14). Returns the addresses recorded,
 * each with the intent it replaced (a create sent by an earlier run and never confirmed, sent again with
 * `--recreate`); an intent whose POST is never sent (Ctrl-C, an earlier failure) is taken back by settleIntents,
 * and the one it replaced put back: that earlier POST may still have landed.
 */
export async function recordIntentsAhead(
  ctx: HandlerContext,
  changes: readonly ResourceChange[],
): Promise<Map<string, CreateIntent | undefined>> {
  const ahead = new Map<string, CreateIntent | undefined>();
  const planned = ctx.planned;
  if (planned === undefined) return ahead;
  const posting = changes.filter(postsNewObject);
  if (posting.length === 0) return ahead;
  await ctx.store.commit((state) => {
    const intents = (state.intents ??= {});
    for (const change of posting) {
      const byName = change.kind === 'Project' ? planned.projectsByName : planned.parsersByName;
      const before = (byName.get(change.name) ?? []).map((o) => o.id);
      ahead.set(change.address, intents[change.address]);
      intents[change.address] = intentAt(ctx, state, change, before);
    }
  });
  await ctx.store.durable();
  return ahead;
}

/**
 * When apply ends: intents recorded ahead whose POST was never sent (Ctrl-C, an earlier failure) are taken back,
 * since nothing was created that the next plan should look for (the earlier intent each replaced, if any, is put
 * back); and no empty intents object is left in state.
 */
export async function settleIntents(
  ctx: HandlerContext,
  unsent: ReadonlyMap<string, CreateIntent | undefined>,
): Promise<void> {
  const intents = ctx.store.current.intents;
  if (unsent.size === 0 && (intents === undefined || Object.keys(intents).length > 0)) return;
  await ctx.store.commit((state) => {
    for (const [address, earlier] of unsent) restoreIntent(state, address, earlier);
    if (state.intents !== undefined && Object.keys(state.intents).length === 0) delete state.intents;
  });
}

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
    (state.intents ??= {})[address] = intent;
  });
  // Writes are coalesced; this one must be on disk before the POST, or a kill in the window loses the trace. It
  // writes every earlier commit too, so what earlier changes did is on disk before the create is sent.
  await ctx.store.durable();
}

/**
 * The create was recorded (or refused): its intent is spent. In place, like every commit, and O(1): an intents
 * object left empty is dropped when state is written (nextState) and when apply ends (settleIntents), since
 * looking for another key here on every create made a large apply quadratic.
 */
export function clearIntent(state: State, address: string): void {
  if (state.intents?.[address] !== undefined) delete state.intents[address];
}

/** A create that was never sent: its intent goes, or the earlier intent it took the place of comes back. */
function restoreIntent(state: State, address: string, earlier: CreateIntent | undefined): void {
  if (earlier !== undefined) (state.intents ??= {})[address] = earlier;
  else clearIntent(state, address);
}

/**
 * After a failed create: a refusal (4xx: invalid, forbidden, rate-limited) or a request that never left (a refused
 * connection) created nothing, so the intent goes, and an earlier run's unconfirmed intent it took the place of
 * (`--recreate`) comes back: that earlier POST may still have landed. An ambiguous failure (no answer, 5xx, a redirect
 * not followed) may have landed, so the intent stays for the next plan to look for.
 */
export async function settleFailedIntent(
  ctx: HandlerContext,
  address: string,
  error: unknown,
  earlier: CreateIntent | undefined,
): Promise<void> {
  const createdNothing =
    error instanceof ApiError && ((error.status >= 400 && error.status < 500) || neverSent(error));
  if (!createdNothing) return;
  await ctx.store.commit((state) => restoreIntent(state, address, earlier));
}

/**
 * The one way apply creates: the objects of that name known (what the plan read), the intent durable, the POST
 * never retried blindly (createOnce), and the intent settled when the create fails.
 */
export async function createWithIntent<T extends { id: string | number; name?: string | undefined }>(
  ctx: HandlerContext,
  change: PostingChange,
  calls: {
    list: () => Promise<T[]>;
    /** Sends the POST; an answer naming an id of `existing` (there before it) is a bad response (createOnce). */
    create: (existing: IdsBefore<T['id']>) => Promise<T>;
    planned: ReadonlyMap<string, readonly { id: T['id'] }[]> | undefined;
    /** The object a 303 See Other to the POST names (createOnce). */
    seeOther?: (location: string) => Promise<T | undefined>;
  },
): Promise<Created<T>> {
  // The intent this create's takes the place of: an earlier run's unconfirmed create, sent again (`--recreate`).
  let earlier: CreateIntent | undefined;
  // Whether the POST was reached: a failure before it (the list of that name, read when the plan's is not at hand)
  // sent nothing, whatever its status, and an intent recorded ahead is taken back when apply ends (settleIntents).
  let posting = false;
  try {
    const created = await createOnce(calls.list, calls.create, change.name, {
      planned: calls.planned,
      seeOther: calls.seeOther,
      existing: idsBefore(ctx, change.kind) as IdsBefore<T['id']>,
      beforeCreate: async (before) => {
        const sent = new Date(ctx.now()).toISOString();
        // Recorded ahead with the whole plan (recordIntentsAhead): already on disk. That it is being sent goes with
        // the next write, not one of its own (a write per create was most of a large apply's time, issue 14), and
        // before it is sent into the backend's journal, where it has one (StateStore.sent).
        if (ctx.intentsAhead?.has(change.address) === true) {
          earlier = ctx.intentsAhead.get(change.address);
          ctx.intentsAhead.delete(change.address);
          await ctx.store.commit((state) => {
            const intent = state.intents?.[change.address];
            if (intent !== undefined) intent.sent = sent;
          });
          await ctx.store.sent(change.address, 'create', sent);
          posting = true;
          return;
        }
        earlier = ctx.store.current.intents?.[change.address];
        await recordIntent(ctx, change.address, {
          ...intentAt(ctx, ctx.store.current, change, before),
          sent,
        });
        posting = true;
      },
    });
    noteCreated(ctx, change.kind, created.object.id);
    return created;
  } catch (error) {
    if (!posting) throw error;
    const unconfirmed = error instanceof ScrapeformError && error.code === 'apply.create-unconfirmed';
    // Sent, and nothing says it did not land (a budget of regenerations counts it: watch-loop.ts).
    if (unconfirmed || mayHaveLanded(error))
      ctx.emit({ type: 'call-unanswered', address: change.address, method: 'POST' });
    if (unconfirmed) {
      await markUnconfirmed(ctx, change.address);
    } else {
      await settleFailedIntent(ctx, change.address, error, earlier);
    }
    throw error;
  }
}

/**
 * The POST went out and nothing confirms it landed or not: its intent says so, and the next plan does not send it
 * again while the list does not show it (recover-intents.ts), unless told to (`--recreate`).
 */
async function markUnconfirmed(ctx: HandlerContext, address: string): Promise<void> {
  const at = new Date(ctx.now()).toISOString();
  await ctx.store.commit((state) => {
    const intent = state.intents?.[address];
    if (intent !== undefined) intent.unconfirmed = at;
  });
}

/**
 * The ids of the objects there before a create of `kind` (an answer naming one is no new object): those the plan's
 * lists showed, those state managed when apply made its first create (with the parsers a replace still has to
 * delete), and those apply has created since (noteCreated). Made once per apply: made per create, reading the whole
 * state each time, it grew with the square of the creates (1,000 creates, 500,000 entries read).
 */
const knownIds = new WeakMap<HandlerContext, KnownIds>();

interface KnownIds {
  parsers: Set<string>;
  projects: Set<number>;
}

function known(ctx: HandlerContext): KnownIds {
  let ids = knownIds.get(ctx);
  if (ids === undefined) {
    const managed = managedIds(ctx.store.current);
    ids = { parsers: new Set(managed.parsers), projects: new Set(managed.projects) };
    for (const id of ctx.planned?.parserById.keys() ?? []) ids.parsers.add(id);
    for (const id of ctx.planned?.projectById.keys() ?? []) ids.projects.add(id);
    knownIds.set(ctx, ids);
  }
  return ids;
}

function idsBefore(ctx: HandlerContext, kind: PostingChange['kind']): IdsBefore<string | number> {
  const ids = known(ctx);
  return kind === 'Parser'
    ? { has: (id) => typeof id === 'string' && ids.parsers.has(id) }
    : { has: (id) => typeof id === 'number' && ids.projects.has(id) };
}

/** A create's object is there before every later create of the run. */
function noteCreated(ctx: HandlerContext, kind: PostingChange['kind'], id: string | number): void {
  const ids = known(ctx);
  if (kind === 'Parser' && typeof id === 'string') ids.parsers.add(id);
  else if (kind === 'Project' && typeof id === 'number') ids.projects.add(id);
}
