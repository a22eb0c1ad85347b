import { parserStatusKind } from '../api/parser-status.js';
import type { DesiredParser, DesiredProject } from '../model/desired.js';
import { withoutPending } from '../state/model.js';
import type { State } from '../state/model.js';
import type { LiveSnapshot } from './model.js';
import { latestVersions } from './latest-versions.js';
import { failuresSoFar } from './plan-parser-generation.js';
import { indexLive } from './plan-context.js';
import { recordProtection } from './record-protection.js';
import { recoverIntents } from './recover-intents.js';

/**
 * State brought up to date with what the lists show, without any call: a create a killed run sent but never
 * recorded is recorded as ours (recoverIntents), a version that was still generating when apply returned
 * (`--no-wait`, a wait that timed out, or a killed run) and is now FINISHED becomes the recorded version (one now
 * FAILED is recorded as a failure, counted as apply counts one it waits for, the new parser of a replace under way
 * too), a project created and not seen since that a list or a read by id shows loses its `unseenSince`, and a
 * parser being deleted that neither a list nor a read by id shows any more leaves `deleting`. Returns undefined
 * when nothing changed.
 */
export function refreshState(state: State, read: LiveSnapshot): State | undefined {
  // A version the details show FINISHED while the list lags behind it is recorded too (latest-versions.ts).
  const live = latestVersions(read);
  const recovered = recoverIntents(state, live).state;
  let changed = recovered !== state;
  const { parserById, projectById } = indexLive(live);
  const resources = { ...recovered.resources };
  for (const [address, resource] of Object.entries(resources)) {
    // A project created and not seen since is seen now: a 404 for it later means it is gone (unseen-create.ts).
    if (resource.kind === 'Project' && resource.unseenSince !== undefined && projectById.has(resource.id)) {
      const { unseenSince: _unseenSince, ...seen } = resource;
      resources[address] = seen;
      changed = true;
      continue;
    }
    if (resource.kind !== 'Parser' || resource.pending === undefined) continue;
    const summary = parserById.get(resource.id);
    if (summary?.version !== resource.pending.version) continue;
    const kind = parserStatusKind(summary.status);
    if (kind === 'failed') {
      // Counted as apply counts a failure it waits for (failuresSoFar): the retry a plan makes of it is a try too.
      // The new parser of a replace under way too: apply's next replace carries the count to the parser it makes.
      resources[address] = { ...withoutPending(resource), failed: failuresSoFar(resource, summary) };
      changed = true;
      continue;
    }
    // A replace's new parser FINISHED is finished by the plan (finishReplace), which deletes the old one.
    if (kind !== 'done' || resource.replacing !== undefined) continue;
    const { pending, failed: _failed, ...rest } = resource;
    resources[address] = {
      ...rest,
      version: pending.version,
      definition: pending.definition,
      descriptionsKnown: true,
    };
    changed = true;
  }
  // A parser being deleted that the snapshot lacks is gone: readLive left it out only on a 404 (or 410) by id as
  // well. One whose read by id failed otherwise is kept: not read is not gone.
  const deleting = Object.entries(recovered.deleting ?? {});
  const stillShown = deleting.filter(([id]) => parserById.has(id) || read.deletingUnread?.[id] !== undefined);
  if (stillShown.length === deleting.length) return changed ? { ...recovered, resources } : undefined;
  const { deleting: _deleting, ...rest } = recovered;
  return {
    ...rest,
    resources,
    ...(stillShown.length > 0 ? { deleting: Object.fromEntries(stillShown) } : {}),
  };
}

/**
 * What an apply records before any call (none is needed): versions a previous run left generating that have finished
 * since, then each declared object's prevent_destroy (a manifest deleted later does not lift it). The state itself
 * when neither changes it. applyWorkspace writes it; watch --heal skips an apply that would write nothing else.
 */
export function stateBeforeCalls(
  state: State,
  live: LiveSnapshot,
  declared: readonly (DesiredParser | DesiredProject)[],
): State {
  const refreshed = refreshState(state, live) ?? state;
  const protectedState = recordProtection(refreshed, declared) ?? refreshed;
  return withoutArchiving(protectedState, declared);
}

/**
 * `state` with no `archiving` mark on a project a manifest declares again, or `state` itself when none has one. The
 * mark lets the next plan archive again without --allow-destroy, on the consent given to the archive the service
 * accepted (202); a project declared again withdrew that consent, and a mark left on it would let a later removal
 * of its manifest archive it, which cannot be undone, with no one asked (watch --heal included).
 */
export function withoutArchiving(state: State, declared: readonly (DesiredParser | DesiredProject)[]): State {
  const marked = declared.filter((d) => {
    const entry = state.resources[d.address];
    return entry?.kind === 'Project' && entry.archiving !== undefined;
  });
  if (marked.length === 0) return state;
  const resources = { ...state.resources };
  for (const { address } of marked) {
    const entry = resources[address];
    if (entry?.kind !== 'Project') continue;
    const { archiving: _archiving, ...kept } = entry;
    resources[address] = kept;
  }
  return { ...state, resources };
}
