import { createHash } from 'node:crypto';

/** The key of a saved plan that holds the digest of the rest of the file; always the last key. */
export const DIGEST_KEY = 'digest';

/**
 * The digest a saved plan carries of its content: the plan JSON, indented, with every character as it is (the file
 * itself escapes controls: output/render-saved-plan.ts). Read back, the values give the same text again.
 */
export function digestOf(text: string): string {
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}
