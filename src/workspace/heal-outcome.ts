import type { ApplyEvent } from '../apply/apply-model.js';
import { ScrapeformError } from '../errors.js';

/**
 * A call of a regenerating change that started a generation: a parser's create (version 0 generates) or a PATCH
 * that generates (apply says so: a 202, or a 200 to a PATCH adding or modifying a field). A PATCH of renames and
 * removes answered 200 made its version at once.
 */
export function startsGeneration(call: Extract<ApplyEvent, { type: 'call' }>): boolean {
  return call.generates ?? (call.method === 'POST' || (call.method === 'PATCH' && call.status === 202));
}

/** Why a heal was not made, when the apply refused it: the budget and consent working, not a failed run. */
export function skipReason(error: unknown): string | undefined {
  if (!(error instanceof ScrapeformError)) return undefined;
  switch (error.code) {
    case 'plan.too-many-regenerations':
    case 'apply.destroy-not-approved':
    case 'apply.adopt-not-approved':
    case 'apply.recreate-not-approved':
    case 'apply.forget-not-approved':
    case 'apply.not-approved':
      return error.message;
    case 'plan.unknown-address':
      // The heal selects only by the addresses it leaves out: one of them went from state and the manifests
      // between its two plans (an apply meanwhile).
      return 'the plan changed while healing (another apply?); the next run heals';
    default:
      return undefined;
  }
}
