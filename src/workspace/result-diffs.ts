import type { ApiClients } from '../api/create-clients.js';
import type { LiveParserDetails } from '../api/live.js';
import type { ApplyResult } from '../apply/apply-plan.js';
import { READ_CONCURRENCY } from '../model/vocabulary.js';
import type { ResultDiff } from '../output/render-result-diffs.js';
import { diffResults } from '../output/render-result-changes.js';
import type { LiveSnapshot, Plan } from '../plan/model.js';
import { forEachLimited } from '../worker-pool.js';

/** A parser version whose example_result is compared with the one a regeneration makes. */
export interface ResultBaseline {
  address: string;
  id: string;
  version: number;
  exampleResult: LiveParserDetails['exampleResult'];
}

/**
 * Before apply: the example results of the versions that regenerating changes replace (an update's base version;
 * a replace's old parser, which is deleted once the new one finishes, so it must be read first). One GET each.
 * A version that cannot be read is left out: the report then says nothing about that parser rather than guess.
 */
export async function readResultBaselines(
  clients: ApiClients,
  plan: Plan,
  live: LiveSnapshot,
): Promise<ResultBaseline[]> {
  const wanted: Omit<ResultBaseline, 'exampleResult'>[] = [];
  for (const change of plan.resource_changes) {
    if (change.kind !== 'Parser' || !change.regenerates) continue;
    if (change.action === 'update')
      wanted.push({ address: change.address, id: change.id, version: change.baseVersion });
    else if (change.action === 'replace' && !change.finishing) {
      const current = live.parsers.find((p) => p.id === change.id);
      if (current !== undefined && current.status === 'FINISHED')
        wanted.push({ address: change.address, id: change.id, version: current.version });
    }
  }
  const baselines: ResultBaseline[] = [];
  await forEachLimited(wanted, READ_CONCURRENCY, async (ref) => {
    try {
      const details = await clients.parsers.get(ref.id, ref.version, undefined, { version: ref.version });
      if (details.exampleResult !== null) baselines.push({ ...ref, exampleResult: details.exampleResult });
    } catch {
      // No baseline, no comparison: the apply itself does not depend on it.
    }
  });
  return baselines;
}

/**
 * After apply: for every parser that regenerated to a FINISHED version, what changed in its example_result since
 * the baseline, and which fields disappeared from every example (a likely regression).
 */
export async function diffResultsAfterApply(
  clients: ApiClients,
  baselines: readonly ResultBaseline[],
  result: ApplyResult,
): Promise<ResultDiff[]> {
  const diffs: ResultDiff[] = [];
  await forEachLimited(baselines, READ_CONCURRENCY, async (baseline) => {
    const done = result.results.find((r) => r.address === baseline.address);
    if (done?.ok !== true || done.status !== 'FINISHED' || done.version === undefined || done.id === null)
      return;
    const id = String(done.id);
    try {
      const after = await clients.parsers.get(id, done.version, undefined, { version: done.version });
      if (after.exampleResult === null) return;
      diffs.push({
        address: baseline.address,
        from: { id: baseline.id, version: baseline.version },
        to: { id, version: done.version },
        changes: diffResults(baseline.exampleResult ?? [], after.exampleResult),
        missing: fieldsMissingEverywhere(baseline.exampleResult ?? [], after.exampleResult),
      });
    } catch {
      // As above: a report without this parser, never a failed apply.
    }
  });
  return diffs.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
}

/** Top-level fields that had a value in some example before and have none in any example after. */
export function fieldsMissingEverywhere(
  before: readonly { result: Record<string, unknown> }[],
  after: readonly { result: Record<string, unknown> }[],
): string[] {
  const present = (value: unknown): boolean =>
    value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0);
  const had = new Set(
    before.flatMap((e) =>
      Object.entries(e.result)
        .filter(([, v]) => present(v))
        .map(([k]) => k),
    ),
  );
  const has = new Set(
    after.flatMap((e) =>
      Object.entries(e.result)
        .filter(([, v]) => present(v))
        .map(([k]) => k),
    ),
  );
  return [...had].filter((field) => !has.has(field)).sort();
}
