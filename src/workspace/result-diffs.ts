import type { ApiClients } from '../api/create-clients.js';
import type { LiveParserDetails, LiveParserSummary } from '../api/live.js';
import type { CallSlot, ChangeResult, RegenerationHooks } from '../apply/apply-model.js';
import type { ResultDiff } from '../output/render-result-diffs.js';
import { diffResults } from '../output/render-result-changes.js';
import type { LiveSnapshot, ResourceChange } from '../plan/model.js';
import { byCodeUnit } from '../code-unit-order.js';

/** A parser version whose example_result is compared with the one a regeneration makes. */
export interface ResultBaseline {
  address: string;
  id: string;
  version: number;
  exampleResult: LiveParserDetails['exampleResult'];
}

/** The hooks that read the example results around each regeneration of an apply, and what they found. */
export interface ResultDiffRecorder {
  hooks: RegenerationHooks;
  /** What each regeneration changed, by address: complete once the apply is over. */
  diffs(): ResultDiff[];
}

/**
 * Reads the example results an apply's report compares, each parser's around its own regeneration (applyPlan's
 * hooks) rather than all of them before the first call and after the last, which added both to the apply's time:
 * before its first call (while the wave before it generates), a regenerating change reads the version it replaces
 * (readResultBaseline); once its new version is FINISHED, while other changes still run, it reads that one and the
 * two are compared (diffResultAfterApply). A version that cannot be read is left out: the report then says nothing
 * about that parser rather than guess, and the apply never fails for it. The caller reads nothing with --no-wait
 * (no hooks) and reports nothing for an interrupted apply.
 */
export function recordResultDiffs(
  clients: ApiClients,
  live: Pick<LiveSnapshot, 'parsers'>,
  /** Ctrl-C: a read under way is called off (and not retried), so it holds neither apply nor the process. */
  signal?: AbortSignal,
): ResultDiffRecorder {
  const baselines = new Map<string, ResultBaseline>();
  const diffs: ResultDiff[] = [];
  let liveById: Map<string, LiveParserSummary> | undefined;
  return {
    hooks: {
      beforeFirstCall: async (change, call) => {
        liveById ??= new Map(live.parsers.map((p) => [p.id, p]));
        const baseline = await readResultBaseline(clients, change, liveById, call, signal);
        if (baseline !== undefined) baselines.set(change.address, baseline);
      },
      afterFinished: async (change, result, call) => {
        const baseline = baselines.get(change.address);
        if (baseline === undefined) return;
        baselines.delete(change.address);
        const diff = await diffResultAfterApply(clients, baseline, result, call, signal);
        if (diff !== undefined) diffs.push(diff);
      },
    },
    diffs: () => [...diffs].sort((a, b) => byCodeUnit(a.address, b.address)),
  };
}

/**
 * Before a regenerating change's first call: the example result of the version it replaces (an update's base
 * version; a replace's old parser, which is deleted once the new one finishes, so it must be read first). One GET;
 * undefined for a change with nothing to compare (a create) or a version that cannot be read.
 */
export async function readResultBaseline(
  clients: ApiClients,
  change: ResourceChange,
  liveById: ReadonlyMap<string, LiveParserSummary>,
  call: CallSlot,
  signal?: AbortSignal,
): Promise<ResultBaseline | undefined> {
  if (change.kind !== 'Parser' || !change.regenerates) return undefined;
  let version: number;
  if (change.action === 'update') version = change.baseVersion;
  else if (change.action === 'replace' && !change.finishing) {
    const current = liveById.get(change.id);
    if (current === undefined || current.status !== 'FINISHED') return undefined;
    version = current.version;
  } else return undefined;
  try {
    // Its example_result is what is read: details that leave the fields out are no reason to compare nothing.
    const details = await call(() =>
      clients.parsers.get(change.id, version, signal, { version, fieldsUnread: true }),
    );
    if (details.exampleResult === null) return undefined;
    return { address: change.address, id: change.id, version, exampleResult: details.exampleResult };
  } catch {
    // No baseline, no comparison: the apply itself does not depend on it.
    return undefined;
  }
}

/**
 * Once a change that had a baseline is done with its new version FINISHED: what changed in its example_result, and
 * which fields disappeared from every example (a likely regression). One GET; undefined when it cannot be read.
 */
export async function diffResultAfterApply(
  clients: ApiClients,
  baseline: ResultBaseline,
  done: ChangeResult,
  call: CallSlot,
  signal?: AbortSignal,
): Promise<ResultDiff | undefined> {
  const version = done.version;
  if (!done.ok || done.status !== 'FINISHED' || version === undefined || done.id === null) return undefined;
  const id = String(done.id);
  try {
    const after = await call(() => clients.parsers.get(id, version, signal, { version, fieldsUnread: true }));
    if (after.exampleResult === null) return undefined;
    return {
      address: baseline.address,
      from: { id: baseline.id, version: baseline.version },
      to: { id, version },
      changes: diffResults(baseline.exampleResult ?? [], after.exampleResult),
      missing: fieldsMissingEverywhere(baseline.exampleResult ?? [], after.exampleResult),
    };
  } catch {
    // As above: a report without this parser, never a failed apply.
    return undefined;
  }
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
