import { createHash } from 'node:crypto';
import type { Plan } from './model.js';
import { toPlanJson } from './plan-json.js';

/** The key of a saved plan that holds the digest of the rest of the file; always the last key. */
export const DIGEST_KEY = 'digest';

/**
 * The text `plan --out` saves: the public plan JSON (what `plan --json` prints, byte for byte) with a last key,
 * `digest`, the SHA-256 of that JSON. Apply takes the file only when the digest matches, so every byte of the
 * reviewed plan is the plan applied.
 */
export function renderSavedPlan(plan: Plan): string {
  const content = toPlanJson(plan);
  const text = JSON.stringify(
    { ...content, [DIGEST_KEY]: digestOf(JSON.stringify(content, null, 2)) },
    null,
    2,
  );
  return `${text}\n`;
}

/** The digest a saved plan carries of its content (the plan JSON as `plan --json` prints it). */
export function digestOf(text: string): string {
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}
