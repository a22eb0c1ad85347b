import type { Plan } from '../plan/model.js';
import { toPlanJson } from '../plan/plan-json.js';
import { renderJson } from './render-json.js';

/** The public plan format (`format_version` 1), as `plan --json` prints it and `plan --out` saves it. */
export function renderPlanJson(plan: Plan): string {
  return renderJson(toPlanJson(plan));
}
