import { readFile } from 'node:fs/promises';
import { ScrapeformError } from '../errors.js';
import type { Plan } from '../plan/model.js';

/** A plan saved by `plan --out`, read for `apply --plan` and `show`. */
export async function readSavedPlan(file: string): Promise<Plan> {
  let plan: Plan;
  try {
    plan = JSON.parse(await readFile(file, 'utf8')) as Plan;
  } catch (error) {
    throw new ScrapeformError(
      'apply.plan-unreadable',
      `cannot read the saved plan ${file}: ${(error as Error).message}`,
    );
  }
  if (plan.format_version !== 1 || plan.fingerprint === undefined) {
    throw new ScrapeformError(
      'apply.plan-unreadable',
      `${file} is not a plan saved by scrapeform plan --out`,
    );
  }
  return plan;
}
