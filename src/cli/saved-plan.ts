import { readFile } from 'node:fs/promises';
import { ScrapeformError } from '../errors.js';
import type { Plan } from '../plan/model.js';

/**
 * A plan saved by `plan --out`, read for `apply --plan` and `show`: checked against the plan file's schema and its
 * digest. The reader (and its schema, about 15 ms to build) is loaded only here, not by every plan and apply.
 */
export async function readSavedPlan(file: string): Promise<Plan> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ScrapeformError(
      'apply.plan-unreadable',
      `cannot read the saved plan ${file}: ${(error as Error).message}`,
    );
  }
  const { parseSavedPlan } = await import('../plan/plan-file.js');
  return parseSavedPlan(text, file);
}
