import { parserStatusKind } from '../api/parser-status.js';
import type { State } from '../state/model.js';
import type { LiveSnapshot } from './model.js';
import { latestVersions } from './latest-versions.js';
import { indexLive } from './plan-context.js';
import { recoverIntents } from './recover-intents.js';

/**
 * State brought up to date with what the lists show, without any call: a create a killed run sent but never
 * recorded is recorded as ours (recoverIntents), and a version that was still generating when apply returned
 * (`--no-wait`, or a killed run) and is now FINISHED becomes the recorded version. Returns undefined when nothing
 * changed.
 */
export function refreshState(state: State, read: LiveSnapshot): State | undefined {
  // A version the details show FINISHED while the list lags behind it is recorded too (latest-versions.ts).
  const live = latestVersions(read);
  const recovered = recoverIntents(state, live).state;
  let changed = recovered !== state;
  const { parserById } = indexLive(live);
  const resources = { ...recovered.resources };
  for (const [address, resource] of Object.entries(resources)) {
    if (resource.kind !== 'Parser' || resource.pending === undefined || resource.replacing !== undefined)
      continue;
    const summary = parserById.get(resource.id);
    if (summary?.version !== resource.pending.version || parserStatusKind(summary.status) !== 'done')
      continue;
    const { pending, failed: _failed, ...rest } = resource;
    resources[address] = {
      ...rest,
      version: pending.version,
      definition: pending.definition,
      descriptionsKnown: true,
    };
    changed = true;
  }
  return changed ? { ...recovered, resources } : undefined;
}
