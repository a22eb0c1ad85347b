import { applyPlan } from '../apply/apply-plan.js';
import type { ApplyOptions, ApplyResult } from '../apply/apply-model.js';
import { runExpectChecks } from '../apply/run-expect-checks.js';
import { stoppedBeforeCalls, stoppedWith } from '../apply/unrecorded-calls.js';
import type { ExpectCheckResult } from '../apply/run-expect-checks.js';
import { ScrapeformError } from '../errors.js';
import { DEFAULT_CONCURRENCY } from '../model/vocabulary.js';
import type { ResultDiff } from '../output/render-result-diffs.js';
import {
  checkForgets,
  checkRecreates,
  checkRegenerations,
  approvalContext,
  decideApproval,
  refusalError,
} from '../plan/approval.js';
import type { ApprovalDecision, ApprovalFlags } from '../plan/approval.js';
import type { PlanOptions } from '../plan/build-plan.js';
import type { Plan } from '../plan/model.js';
import type { DesiredParser } from '../model/desired.js';
import { refuseOtherTarget, refuseStalePlan } from '../plan/stale-plan.js';
import { moveState } from '../plan/plan-moves.js';
import { protectedAddresses, recordProtection } from '../plan/record-protection.js';
import { stateBeforeCalls, withoutArchiving } from '../plan/refresh-state.js';
import { whileHolding } from '../state/backend.js';
import type { LockInfo } from '../state/backend.js';
import { lockUnlessInterrupted, writeUnlessInterrupted } from '../state/interruptible-state.js';
import type { Workspace } from './open-workspace.js';
import { planWorkspace, runTarget } from './plan-workspace.js';
import { recordResultDiffs } from './result-diffs.js';
import { withAccount } from '../state/state-account.js';
import { withEnvironmentRecorded } from '../state/state-environment.js';

/** What apply's own options the workspace passes through as they are. */
type PassedOn =
  | 'concurrency'
  | 'maxGenerating'
  | 'waitTimeoutMs'
  | 'noWait'
  | 'signal'
  | 'onEvent'
  | 'pollMinMs'
  | 'pollMaxMs'
  | 'stateWriteWindowMs';

export interface ApplyWorkspaceOptions extends ApprovalFlags, Pick<ApplyOptions, PassedOn> {
  /** Which objects to plan (ignored with `savedPlan`, which is applied exactly). */
  selection?: PlanOptions;
  /** A plan saved by `plan --out`: applied exactly, or refused when the state or live versions moved. */
  savedPlan?: Plan;
  /** Asks a person; without it (no terminal, CI) a plan that needs approval is refused with exit 3. */
  confirm?: (plan: Plan, decision: Extract<ApprovalDecision, { kind: 'ask' }>) => Promise<boolean>;
  /** Called with the plan before anything is sent (the CLI prints it). */
  onPlan?: (plan: Plan) => void;
  /**
   * Called when a dead run's lock was taken over.
   * @deprecated `onStaleLock` of the state location (open-workspace.ts, StateLocation) tells it for every command
   * that takes the lock; the CLI uses that one. Setting both reports a takeover twice.
   */
  onStaleLock?: (holder: LockInfo) => void;
  maxRegenerations?: number;
  /** `--recreate`: addresses whose unconfirmed earlier create may be sent again (approval.ts, checkRecreates). */
  recreate?: readonly string[];
  /** `--forget`: addresses of a kind the service shows none of that may be dropped from state (checkForgets). */
  forget?: readonly string[];
}

export interface ApplyWorkspaceOutcome {
  plan: Plan;
  /** Undefined when there was nothing to do. */
  result?: ApplyResult;
  /** The expect checks of the parsers just applied (after waiting; none with --no-wait or when interrupted). */
  checks: ExpectCheckResult[];
  /** What each regeneration changed in the example results (none with --no-wait). */
  resultDiffs: ResultDiff[];
}

/**
 * The whole apply of a workspace, under the state lock: plan (or check a saved plan is still current), record
 * versions that finished since, ask for approval, make the calls, run the expect checks. Never prints and never
 * exits: the caller renders the outcome.
 */
export async function applyWorkspace(
  ws: Workspace,
  options: ApplyWorkspaceOptions,
): Promise<ApplyWorkspaceOutcome> {
  // Before the lock and any read: a plan for another environment or account is refused with nothing sent.
  if (options.savedPlan !== undefined)
    refuseOtherTarget(options.savedPlan, runTarget(ws), ws.clients.accountDigest);
  // Ctrl-C while a state database does not answer ends the wait at once, and leaves no lock behind.
  const lock = await lockUnlessInterrupted(ws.backend, 'apply', options.signal);
  const applying = async (): Promise<ApplyWorkspaceOutcome> => {
    const stale = ws.backend.staleLockBroken;
    if (stale !== undefined) options.onStaleLock?.(stale);
    const recreate = {
      ...(options.recreate !== undefined ? { recreate: options.recreate } : {}),
      ...(options.forget !== undefined ? { forget: options.forget } : {}),
    };
    const fresh = await planWorkspace(
      ws,
      options.savedPlan !== undefined ? recreate : { ...options.selection, ...recreate },
      options.signal !== undefined ? { signal: options.signal } : {},
    ).catch((error: unknown) => {
      if (options.signal?.aborted !== true) throw error;
      // The state read given up (readUnlessInterrupted) says so itself.
      if (error instanceof ScrapeformError && error.status === 'interrupted') throw error;
      throw new ScrapeformError(
        'apply.interrupted',
        'interrupted while reading the services; nothing was sent',
        {
          status: 'interrupted',
          cause: error,
        },
      );
    });
    const declared = [...ws.manifests.parsers, ...ws.manifests.projects];
    let plan = fresh.plan;
    if (options.savedPlan !== undefined) {
      refuseStalePlan(options.savedPlan, fresh.plan, fresh.state, protectedAddresses(fresh.state, declared));
      plan = options.savedPlan;
    }
    // What finished since and each declared object's prevent_destroy are recorded before any call (stateBeforeCalls).
    // Then the moves of `moved:` hints: the plan's changes are at the new addresses.
    const protectedState = stateBeforeCalls(fresh.state, fresh.live, declared);
    // A project moved to an address a manifest declares loses an `archiving` mark there too (withoutArchiving).
    const moved = withoutArchiving(moveState(protectedState, plan.moved ?? []), declared);
    options.onPlan?.(plan);
    if (plan.status === 'no_changes') {
      // Nothing to approve or send: what finished since and the protection are recorded, as a successful run does. A
      // write that fails stops apply with its (empty) result, as it does before the calls of a plan of changes.
      if (protectedState !== fresh.state)
        await writeUnlessInterrupted(ws.backend, protectedState, options.signal).catch((error: unknown) => {
          throw stoppedBeforeCalls(error, [], fresh.state);
        });
      return { plan, checks: [], resultDiffs: [] };
    }
    checkRegenerations(plan, options.maxRegenerations);
    // A saved plan is checked as it was saved, and by what a fresh plan says of the same changes now: a plan saved
    // before the service stopped showing an object (or by an older build) carries no reason to hold it back.
    const saved = options.savedPlan !== undefined;
    for (const held of saved ? [plan, sameChanges(fresh.plan, plan)] : [plan]) {
      checkRecreates(held, options.recreate ?? [], saved);
      checkForgets(held, options.forget ?? [], saved);
    }
    const decision = decideApproval(
      plan,
      options,
      approvalContext(moved.resources, plan.resource_changes, declared),
    );
    if (decision.kind === 'ask') {
      const asked = options.confirm !== undefined;
      if (!asked || !(await options.confirm?.(plan, decision))) throw refusalError(decision, asked);
    }
    // Written only now: a run refused (approval, --max-regenerations, --recreate) changes nothing, so the saved plan
    // a reviewer approved is still current when applied again with consent. Nothing was sent before this write, and
    // everything in it is read again from the services by the next run, so a run killed before it loses nothing.
    // And the run's key, as a salted digest (state-account.ts): the key this state's objects were made with; and the
    // environment applying them (state-environment.ts), so that another environment reaching this state is refused.
    const recorded = withEnvironmentRecorded(
      withAccount(
        moved !== protectedState ? (recordProtection(moved, declared) ?? moved) : protectedState,
        ws.clients.accountDigest,
      ),
      ws.manifests.environment?.name,
    );
    // A write that fails stops apply with its result (apply --json prints it): every change not started.
    const state =
      recorded !== fresh.state
        ? await writeUnlessInterrupted(ws.backend, recorded, options.signal).catch((error: unknown) => {
            throw stoppedBeforeCalls(error, plan.resource_changes, fresh.state);
          })
        : fresh.state;
    // What each regeneration changes in the example results, read around its own generation (none with --no-wait).
    const resultDiffs =
      options.noWait === true ? undefined : recordResultDiffs(ws.clients, fresh.live, options.signal);
    const result = await applyPlan({
      plan,
      clients: ws.clients,
      backend: ws.backend,
      state,
      concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
      ...(options.maxGenerating !== undefined ? { maxGenerating: options.maxGenerating } : {}),
      // What this plan read: creates take it as what existed before them (no list per create).
      live: fresh.live,
      // What the manifests protect: recorded with each create's intent and object, not only at the end of the run.
      protect: new Set(declared.filter((object) => object.preventDestroy).map((object) => object.address)),
      ...(options.waitTimeoutMs !== undefined ? { waitTimeoutMs: options.waitTimeoutMs } : {}),
      ...(options.noWait !== undefined ? { noWait: options.noWait } : {}),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
      ...(options.onEvent !== undefined ? { onEvent: options.onEvent } : {}),
      ...(options.pollMinMs !== undefined ? { pollMinMs: options.pollMinMs } : {}),
      ...(options.pollMaxMs !== undefined ? { pollMaxMs: options.pollMaxMs } : {}),
      ...(options.stateWriteWindowMs !== undefined ? { stateWriteWindowMs: options.stateWriteWindowMs } : {}),
      ...(resultDiffs !== undefined ? { hooks: resultDiffs.hooks } : {}),
    });
    // Each declared object's protection, as the run ends (those it created or adopted hold it already, from the write
    // that recorded them, so a run killed before this write leaves them protected too). Every call is
    // made: a write that fails stops apply with its result as it is (apply --json prints it), and no expect check.
    const created = recordProtection(result.state, declared);
    if (created !== undefined)
      result.state = await ws.backend.write(created).catch((error: unknown) => {
        throw stoppedWith(error, result);
      });
    // The expect blocks of the parsers just applied are checked; a failure fails the command but rolls nothing back.
    // Only those the plan lists, at the URLs it lists: a saved plan's reviewer saw these, and each parse may be paid.
    const applied = new Set(result.results.filter((r) => r.ok).map((r) => r.address));
    const toCheck = plannedChecks(
      ws.manifests.parsers.filter((p) => applied.has(p.address)),
      plan,
    );
    const checks =
      result.interrupted || options.noWait === true
        ? []
        : await runExpectChecks(
            ws.clients,
            toCheck,
            result.state,
            undefined,
            options.signal,
            true,
            result.paymentRefused,
          );
    return {
      plan,
      result,
      checks,
      resultDiffs: result.interrupted || resultDiffs === undefined ? [] : resultDiffs.diffs(),
    };
  };
  // A lock file that cannot be removed once every call is made (a disk gone read-only) fails the command, which
  // still says what it did.
  return whileHolding(lock, applying, (release, outcome) =>
    outcome.result !== undefined ? stoppedWith(release, outcome.result) : release,
  );
}

/**
 * The parsers' expect checks the plan lists (`expect_checks`), each with only the URLs listed for it: the manifests
 * read now may hold more than a saved plan was made with (an `expect` added after `plan --out`), and those were never
 * reviewed.
 */
function plannedChecks(parsers: readonly DesiredParser[], plan: Plan): DesiredParser[] {
  const listed = new Map((plan.expect_checks ?? []).map((c) => [c.address, new Set(c.urls)]));
  return parsers.flatMap((p) => {
    const urls = listed.get(p.address);
    const expect = urls === undefined ? [] : p.expect.filter((e) => urls.has(e.url));
    return expect.length > 0 ? [{ ...p, expect }] : [];
  });
}

/** The fresh plan's changes at the addresses and with the actions of the saved plan: what applying it does now. */
function sameChanges(fresh: Plan, saved: Plan): Plan {
  const actions = new Map(saved.resource_changes.map((c) => [c.address, c.action]));
  return {
    ...fresh,
    resource_changes: fresh.resource_changes.filter((c) => actions.get(c.address) === c.action),
  };
}
