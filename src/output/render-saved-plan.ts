import type { Plan } from '../plan/model.js';
import { toPlanJson } from '../plan/plan-json.js';
import { DIGEST_KEY, digestOf } from '../plan/save-plan.js';
import { renderJson } from './render-json.js';

/**
 * The text `plan --out` saves: the public plan JSON (what `plan --json` prints, byte for byte, control and bidi
 * characters escaped alike) with a last key, `digest`, the SHA-256 of that content as plain JSON. Apply takes the
 * file only when the digest matches the values it reads back (an escape reads back as the character it stands
 * for), so every value of the reviewed plan is the plan applied.
 */
export function renderSavedPlan(plan: Plan): string {
  const content = toPlanJson(plan);
  return `${renderJson({ ...content, [DIGEST_KEY]: digestOf(JSON.stringify(content, null, 2)) })}\n`;
}
