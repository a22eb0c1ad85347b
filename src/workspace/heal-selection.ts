import { formatCount } from '../format-count.js';
import { CREDITS_PER_GENERATION, LEFT_REASONS } from '../model/vocabulary.js';
import type { LeftReason } from '../model/vocabulary.js';
import { printable } from '../output/escape-text.js';
import { summarise } from '../plan/build-plan.js';
import { approvalContext, needsAdoptConsent } from '../plan/approval.js';
import type { ApprovalContext } from '../plan/approval.js';
import type { DesiredParser, DesiredProject } from '../model/desired.js';
import type { Plan, ResourceChange } from '../plan/model.js';
import { stateBeforeCalls } from '../plan/refresh-state.js';
import type { PlannedWorkspace } from './plan-workspace.js';

/** A change of the plan a `watch --heal` leaves out of its apply (as `--exclude` would), and why. */
export interface LeftChange {
  address: string;
  action: string;
  /**
   * `destructive`: a delete, replace or archive, which a heal never makes (`apply --allow-destroy` does);
   * `starts-runs`: a project create, or a PATCH turning a project's schedule back on, which starts runs paid per page
   * (an `apply` makes it); `adopts`: a live object taken over by name that needs a person's consent (neither state
   * nor `adopt: true` covers it: `apply --allow-adopt` makes it); `regeneration-budget`: a regeneration beyond what
   * is left of `--max-regenerations`.
   */
  reason: LeftReason;
  /** With `regeneration-budget`: the credits its regeneration would cost. */
  credits?: number;
}

/**
 * What a heal leaves out of a plan, so the rest is applied: every destructive change, every change that starts
 * project runs (startsRuns), and the regenerating changes beyond the `budget` of regenerations left. Those that fit
 * are the first in plan order (parsers by address), so the same plan and budget always heal the same parsers; one
 * left out does not hold back the free heals (a rename back, a project PATCH) beside it.
 */
export function leftOutOfHeal(
  changes: readonly ResourceChange[],
  budget: number,
  consent?: ApprovalContext,
): LeftChange[] {
  let fitting = budget;
  return changes.flatMap((c): LeftChange[] => {
    if (c.destructive) return [{ address: c.address, action: c.action, reason: 'destructive' }];
    if (startsRuns(c)) return [{ address: c.address, action: c.action, reason: 'starts-runs' }];
    // Refused by the heal's apply (no --allow-adopt), it failed the whole round: left out, the rest is healed.
    if (consent !== undefined && needsAdoptConsent(c, consent))
      return [{ address: c.address, action: c.action, reason: 'adopts' }];
    if (!c.regenerates) return [];
    if (fitting > 0) {
      fitting--;
      return [];
    }
    return [
      {
        address: c.address,
        action: c.action,
        reason: 'regeneration-budget',
        credits: CREDITS_PER_GENERATION,
      },
    ];
  });
}

/**
 * Whether a change starts runs of a project, each paid per page: its create (a project archived outside scrapeform
 * made again, with its schedule and any `scheduledAt`), or a PATCH that turns its schedule back on. Archiving a
 * project, or pausing its schedule, is how a person stops what it spends: a heal does not undo that on its own at
 * the next interval, with no one asked; an `apply` does.
 */
function startsRuns(change: ResourceChange): boolean {
  if (change.kind !== 'Project') return false;
  if (change.action === 'create') return true;
  return change.action === 'update' && change.changed.schedulingEnabled === true;
}

/**
 * Whether a heal has nothing to do once what it leaves out is left out: no other change, no `moved:` hint, and
 * nothing an apply would record in state before its calls (versions finished since, prevent_destroy; see
 * applyWorkspace). Then no apply is run: it would take the lock to send and write nothing, at every run for as long
 * as the left-out changes stay, and a person's `scrapeform apply` meanwhile would fail on that lock for nothing.
 */
export function nothingToHeal(
  { plan, state, live }: PlannedWorkspace,
  left: readonly LeftChange[],
  declared: readonly (DesiredParser | DesiredProject)[],
): boolean {
  const leftOut = new Set(left.map((c) => c.address));
  if (plan.resource_changes.some((c) => !leftOut.has(c.address)) || (plan.moved ?? []).length > 0)
    return false;
  return stateBeforeCalls(state, live, declared) === state;
}

/** The plan as an apply that leaves out every one of its changes sees it: nothing to send. */
export function withoutChanges(plan: Plan): Plan {
  const { expect_checks: _checks, ...rest } = plan;
  return { ...rest, status: 'no_changes', summary: summarise([]), resource_changes: [] };
}

/** The words before each reason's list of changes, in a log line or a chat message. */
export type LeftLabels = Record<LeftChange['reason'], string>;

/**
 * One line per reason a heal left changes for: `${label}: parser.a (delete), parser.b (update, ~30,000 credits)`.
 * Addresses are escaped for where they go (a log, a chat).
 */
export function leftLines(
  left: readonly LeftChange[],
  labels: LeftLabels,
  escape: (text: string) => string = printable,
): string[] {
  return LEFT_REASONS.flatMap((reason) => {
    const changes = left.filter((c) => c.reason === reason);
    if (changes.length === 0) return [];
    const names = changes.map(
      (c) =>
        `${escape(c.address)} (${c.action}${c.credits !== undefined ? `, ~${formatCount(c.credits)} credits` : ''})`,
    );
    return [`${labels[reason]}: ${names.join(', ')}`];
  });
}

/** What a heal leaves out of a plan it read (leftOutOfHeal), with the adoptions state and the manifests consent to. */
export function leftOfPlan(
  { plan, state }: Pick<PlannedWorkspace, 'plan' | 'state'>,
  budget: number,
  manifests: { parsers: readonly DesiredParser[]; projects: readonly DesiredProject[] },
): LeftChange[] {
  const declared = [...manifests.parsers, ...manifests.projects];
  return leftOutOfHeal(
    plan.resource_changes,
    budget,
    approvalContext(state.resources, plan.resource_changes, declared),
  );
}
