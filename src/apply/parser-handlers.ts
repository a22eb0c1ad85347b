import { failureReason } from '../api/parser-status.js';
import { ScrapeformError } from '../errors.js';
import type { IdsBefore } from '../api/api-error.js';
import { createParserInput, parserPath, PARSERS_PATH } from '../model/wire.js';
import type {
  ParserAdopt,
  ParserChange,
  ParserCreate,
  ParserDelete,
  ParserFinishReplace,
  ParserForget,
  ParserRecord,
  ParserReplace,
  ParserUpdate,
} from '../plan/model.js';
import { failureOf, keptProtection, withoutPending } from '../state/model.js';
import type { ParserDefinition, ParserState, ResourceState } from '../state/model.js';
import { recordDeleting } from './accepted-delete.js';
import { deleteEach, deleteParser } from './delete-parser.js';
import { abortIfInterrupted, noteCall, noteCreate, noteFailedCall } from './apply-context.js';
import type { Handler, HandlerContext } from './apply-context.js';
import type { ChangeResult } from './apply-model.js';
import { clearIntent, createdProtection, createWithIntent } from './create-intent.js';
import { patchOnce, waveDefinitions } from './patch-intent.js';
import { FAILED_GENERATION_CAUSES, waitForGeneration } from './wait-for-generation.js';
import { sameParserDefinition } from '../plan/parser-definition.js';

/** One handler per parser action; a missing one is a type error. */
export const PARSER_HANDLERS = {
  create: createParser,
  update: updateParser,
  replace: async (change, result, ctx) =>
    change.finishing ? finishReplace(change, result, ctx) : replaceParser(change, result, ctx),
  delete: async (change: ParserDelete, result, ctx) => {
    const deleting = await deleteEach(ctx, change, result);
    await ctx.store.commit((state) => {
      delete state.resources[change.address];
      recordDeleting(state, deleting);
    });
  },
  adopt: async (change: ParserAdopt, _result, ctx) => {
    await ctx.store.commit((state) => {
      state.resources[change.address] = {
        kind: 'Parser',
        id: change.id,
        name: change.name,
        version: change.version,
        definition: change.definition,
        descriptionsKnown: false,
        // Protected as the manifest says from the write that adopts it: a run killed before its end leaves it so.
        ...createdProtection(ctx, change.address, state.resources[change.address]),
      };
    });
  },
  record: async (change: ParserRecord, _result, ctx) => {
    // State only: the values were confirmed live (--accept-unknown); the service is not called.
    await ctx.store.commit((state) => {
      const current = state.resources[change.address];
      if (current?.kind !== 'Parser') return;
      const { unknown: _unknown, ...rest } = current;
      state.resources[change.address] = {
        ...rest,
        definition: change.definition,
        descriptionsKnown: change.unknown === undefined || current.descriptionsKnown,
        ...(change.unknown !== undefined ? { unknown: change.unknown } : {}),
      };
    });
  },
  forget: async (change: ParserForget, _result, ctx) => {
    await ctx.store.commit((state) => delete state.resources[change.address]);
  },
} satisfies { [A in ParserChange['action']]: Handler<Extract<ParserChange, { action: A }>> };

async function createParser(change: ParserCreate, result: ChangeResult, ctx: HandlerContext): Promise<void> {
  const created = await postParser(ctx, change, result);
  result.id = created.id;
  await ctx.store.commit((state) => {
    state.resources[change.address] = {
      ...createdParserState(change, created, change.definition),
      ...createdProtection(ctx, change.address, state.resources[change.address]),
    };
    clearIntent(state, change.address);
  });
  if (ctx.options.noWait === true) {
    result.version = created.version;
    result.status = 'GENERATING';
    return;
  }
  await waitForGeneration(change, result, ctx, { ...created, definition: change.definition });
}

/** A parser just created: no version known FINISHED yet, version 0 pending with the definition sent. */
function createdParserState(
  change: ParserCreate | ParserReplace,
  created: { id: string; version: number },
  definition: ParserDefinition,
): ParserState {
  return {
    kind: 'Parser',
    id: created.id,
    name: change.name,
    version: null,
    definition: null,
    descriptionsKnown: true,
    pending: { version: created.version, definition },
  };
}

/**
 * POST /parsers, never retried blindly (createOnce), with its intent in state before it is sent: a run killed
 * before the answer is recorded leaves what the next plan needs to take the new parser as ours.
 */
async function postParser(
  ctx: HandlerContext,
  change: ParserCreate | ParserReplace,
  result: ChangeResult,
): Promise<{ id: string; version: number }> {
  const { object: created, recovered } = await createWithIntent(ctx, change, {
    list: () => ctx.clients.parsers.list(),
    create: (existing: IdsBefore<string>) =>
      ctx.clients.parsers.create(createParserInput(change.name, change.definition), undefined, existing),
    planned: ctx.planned?.parsersByName,
    seeOther: (location) => ctx.clients.parsers.seeOther(location),
  }).catch((error: unknown) => {
    noteFailedCall(result, { method: 'POST', path: PARSERS_PATH }, error);
    throw error;
  });
  noteCreate(ctx, change, result, PARSERS_PATH, recovered);
  return { id: created.id, version: created.version };
}

/**
 * The PATCHes in order, each based on the version the previous one returned; state records the fields after
 * each one, so it is true at every step.
 */
async function updateParser(change: ParserUpdate, result: ChangeResult, ctx: HandlerContext): Promise<void> {
  const id = change.id;
  let version = change.baseVersion;
  const definitions = waveDefinitions(change, ctx.store.current.resources[change.address]);
  for (const [i, ops] of change.waves.entries()) {
    abortIfInterrupted(ctx);
    const definition = definitions[i] ?? change.definition;
    const line = { method: 'PATCH', path: parserPath(id, version) } as const;
    const updated = await patchOnce(ctx, change.address, { from: version, definition }, () =>
      ctx.clients.parsers.update(id, version, ops),
    ).catch((error: unknown) => {
      noteFailedCall(result, line, error);
      throw error;
    });
    // Noted with the status the service answered, and whether the version generates (a 200 to an add generates
    // all the same), so what counts regenerations (watch's budget) counts it.
    noteCall(ctx, change, result, line, updated.status, {
      generates: !updated.ready,
    });
    version = updated.version;
    await ctx.store.commit((state) => {
      const current = state.resources[change.address] as ParserState | undefined;
      const base: ParserState = current ?? {
        kind: 'Parser',
        id,
        name: change.name,
        version: null,
        definition: null,
        descriptionsKnown: change.descriptionsKnown,
      };
      // Values never seen stay marked until sent or confirmed: the change says which are left. The PATCH is
      // answered: its intent is spent.
      const { unknown: _unknown, patching: _patching, ...rest } = base;
      const marked: ParserState = {
        ...rest,
        ...(change.unknown !== undefined ? { unknown: change.unknown } : {}),
      };
      if (updated.ready) {
        state.resources[change.address] = {
          ...withoutPending(marked),
          version: updated.version,
          definition,
          descriptionsKnown: change.descriptionsKnown || base.descriptionsKnown,
        };
      } else {
        state.resources[change.address] = { ...marked, pending: { version: updated.version, definition } };
      }
    });
    if (!updated.ready && ctx.options.noWait !== true)
      await waitForGeneration(change, result, ctx, { id, version: updated.version, definition });
  }
  result.version ??= version;
  result.status ??= 'FINISHED';
}

/**
 * The failures of this definition so far, carried to the new parser of a replace: each new parser is a try (30,000
 * credits), and one whose wait timed out and that FAILED unseen is counted on the parser it replaces (refreshState).
 * Started anew on each new parser, the count never reached the two tries retriedEnough allows: every run whose wait
 * timed out paid for one more. Recorded at the new parser's version, as a version of it: a failure names a version
 * of the parser it is recorded on (a higher one read as a list lagging behind). None for another definition.
 */
function carriedFailure(
  previous: ResourceState | undefined,
  definition: ParserDefinition,
  version: number,
): Pick<ParserState, 'failed'> {
  const failed = previous?.kind === 'Parser' ? previous.failed : undefined;
  if (failed?.definition === undefined || !sameParserDefinition(failed.definition, definition)) return {};
  return { failed: { ...failed, version } };
}

/**
 * Creates the new parser, waits for it (always, even with --no-wait), then deletes the old one. When the new one
 * FAILED, it is deleted and the old one stays.
 */
async function replaceParser(
  change: ParserReplace,
  result: ChangeResult,
  ctx: HandlerContext,
): Promise<void> {
  const oldId = change.id;
  const created = await postParser(ctx, change, result);
  result.id = created.id;
  const previous = ctx.store.current.resources[change.address];
  await ctx.store.commit((state) => {
    state.resources[change.address] = {
      ...createdParserState(change, created, change.definition),
      ...carriedFailure(previous, change.definition, created.version),
      replacing: { oldId, ...(change.alsoDeletes !== undefined ? { also: change.alsoDeletes } : {}) },
      ...createdProtection(ctx, change.address, state.resources[change.address]),
    };
    clearIntent(state, change.address);
  });
  const status = await waitForGeneration(
    change,
    result,
    ctx,
    { ...created, definition: change.definition },
    false,
  );
  if (status !== 'FINISHED') {
    // A new parser still shown after its delete stays in state as the new parser of a half-done replace (as after
    // a killed run): the next plan makes the replace again and deletes it then.
    const deleting = await deleteParser(ctx, change, result, created.id, true).catch((error: unknown) => {
      if (!(error instanceof ScrapeformError)) throw error;
      throw new ScrapeformError(
        error.code,
        `the new parser FAILED: ${result.error?.message ?? status}; ${error.message}; the old parser ${oldId} stays`,
        error.hint !== undefined ? { hint: error.hint } : {},
      );
    });
    await ctx.store.commit((state) => {
      // The old parser stays, and this try counts (a failure it already had keeps its version and error), so plans
      // stop retrying the same definition by themselves: each try is a new parser, 30,000 credits.
      const made = state.resources[change.address];
      const error = failureReason(made?.kind === 'Parser' ? made.failed?.error : undefined);
      if (previous?.kind === 'Parser') {
        state.resources[change.address] = {
          ...previous,
          failed: failureOf(
            previous.failed,
            previous.failed?.version ?? created.version,
            previous.failed?.error ?? error,
            change.definition,
            sameParserDefinition,
          ),
        };
      } else if (previous !== undefined) state.resources[change.address] = previous;
      else delete state.resources[change.address];
      recordDeleting(state, [deleting]);
    });
    throw new ScrapeformError(
      'apply.generation-failed',
      `the new parser FAILED: ${result.error?.message ?? status}; ${change.alsoDeletes !== undefined ? `the parsers it replaces (${[oldId, ...change.alsoDeletes].join(', ')}) stay` : `the old parser ${oldId} stays`}`,
      {
        hint: `common causes: ${FAILED_GENERATION_CAUSES}`,
      },
    );
  }
  // The old parser, and the parsers of an attempt before this one (its original, a new one that FAILED).
  const deleting = await deleteEach(ctx, change, result);
  await ctx.store.commit((state) => {
    const current = state.resources[change.address];
    if (current?.kind === 'Parser') delete current.replacing;
    recordDeleting(state, deleting);
  });
}

/**
 * Completes a replace a previous run left half done: the new parser is FINISHED; the old one goes. The change
 * names the new parser, so what is recorded does not depend on whether the caller's state had recovered it from
 * its intent yet (a library caller may pass state as read).
 */
async function finishReplace(
  change: ParserFinishReplace,
  result: ChangeResult,
  ctx: HandlerContext,
): Promise<void> {
  const deleting = await deleteEach(ctx, change, result);
  await ctx.store.commit((state) => {
    recordDeleting(state, deleting);
    state.resources[change.address] = {
      kind: 'Parser',
      id: change.id,
      name: change.name,
      version: change.version,
      definition: change.definition,
      descriptionsKnown: true,
      ...keptProtection(state.resources[change.address]),
    };
    clearIntent(state, change.address);
  });
}
