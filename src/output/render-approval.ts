import type { ApprovalDecision } from '../plan/approval.js';
import { destroyedNames } from '../plan/approval.js';
import type { Plan } from '../plan/model.js';
import { summarisePlan } from './render-plan.js';

/** The yes/no question apply asks at a terminal. */
export function renderApprovalQuestion(
  plan: Plan,
  decision: Extract<ApprovalDecision, { kind: 'ask' }>,
): string {
  return decision.destructive.length > 0
    ? `This plan destroys: ${destroyedNames(decision)}. Archive and delete cannot be undone. Apply it?`
    : `${summarisePlan(plan)} Apply it?`;
}
