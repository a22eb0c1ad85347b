import type { ApprovalDecision } from '../plan/approval.js';
import { adoptedNames, destroyedNames } from '../plan/approval.js';
import type { Plan } from '../plan/model.js';
import { summarisePlan } from './render-plan.js';

/** The yes/no question apply asks at a terminal. */
export function renderApprovalQuestion(
  plan: Plan,
  decision: Extract<ApprovalDecision, { kind: 'ask' }>,
): string {
  const parts: string[] = [];
  if (decision.destructive.length > 0)
    parts.push(`This plan destroys: ${destroyedNames(decision)}. Archive and delete cannot be undone.`);
  if (decision.adopted.length > 0)
    parts.push(
      `This plan takes over live objects no state manages: ${adoptedNames(decision)}. Another state may manage them.`,
    );
  return parts.length > 0 ? `${parts.join(' ')} Apply it?` : `${summarisePlan(plan)} Apply it?`;
}
