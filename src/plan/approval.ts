import { ScrapeformError } from '../errors.js';
import type { Plan } from './model.js';

export interface ApprovalFlags {
  /** `--allow-destroy`: deletes, replaces and archives may go ahead. */
  allowDestroy?: boolean;
  /** `--auto-approve`: a plan with no destructive change goes ahead without a question. */
  autoApprove?: boolean;
}

/** What applying a plan needs from a person: nothing, or a yes (to a destructive plan, or to any plan). */
export type ApprovalDecision =
  { kind: 'approved' } | { kind: 'ask'; destructive: { address: string; action: string }[] };

/**
 * Pure: whether a plan may be applied as flagged. Destructive changes need `--allow-destroy` or a yes; other
 * changes need `--auto-approve` or a yes (DESIGN section 3, approval).
 */
export function decideApproval(plan: Plan, flags: ApprovalFlags): ApprovalDecision {
  const destructive = plan.resource_changes
    .filter((c) => c.destructive)
    .map((c) => ({ address: c.address, action: c.action }));
  if (destructive.length > 0)
    return flags.allowDestroy === true ? { kind: 'approved' } : { kind: 'ask', destructive };
  return flags.autoApprove === true ? { kind: 'approved' } : { kind: 'ask', destructive: [] };
}

/** The error a command ends with (exit 3) when a plan was not approved; `asked`: a person said no. */
export function refusalError(
  decision: Extract<ApprovalDecision, { kind: 'ask' }>,
  asked: boolean,
): ScrapeformError {
  if (decision.destructive.length > 0) {
    return new ScrapeformError(
      'apply.destroy-not-approved',
      `not applied: the plan has destructive changes (${destroyedNames(decision)}); nothing was sent`,
      {
        status: 'input-needed',
        hint: asked
          ? 'answer yes, or pass --allow-destroy'
          : 'pass --allow-destroy to allow deletes, replaces and archives',
      },
    );
  }
  return new ScrapeformError('apply.not-approved', 'not applied: approval needed; nothing was sent', {
    status: 'input-needed',
    hint: asked ? 'answer yes to apply' : 'without a terminal (or with CI set) pass --auto-approve',
  });
}

/** `parser.a (delete), project.b (archive)`: what a destructive plan destroys. */
export function destroyedNames(decision: Extract<ApprovalDecision, { kind: 'ask' }>): string {
  return decision.destructive.map((c) => `${c.address} (${c.action})`).join(', ');
}

/** `--max-regenerations N`: a plan that regenerates more parsers than that is refused (exit 3). */
export function checkRegenerations(plan: Plan, max: number | undefined): void {
  if (max !== undefined && plan.summary.regenerations > max) {
    throw new ScrapeformError(
      'plan.too-many-regenerations',
      `the plan regenerates ${plan.summary.regenerations} parsers (~${plan.summary.estimated_credits.toLocaleString('en-US')} credits), more than --max-regenerations ${max}`,
      {
        status: 'input-needed',
        hint: 'split the change, or raise --max-regenerations after checking the cost',
      },
    );
  }
}
