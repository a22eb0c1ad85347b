import type { ExpectCheckResult } from '../apply/run-expect-checks.js';
import type { Colors } from './colors.js';
import { renderChecks } from './render-checks.js';
import { renderJson } from './render-json.js';

/** `scrapeform test` for people. */
export function renderTestReportHuman(results: readonly ExpectCheckResult[], colors: Colors): string {
  return results.length === 0 ? 'No expect blocks to run.' : renderChecks(results, colors);
}

export function renderTestReportJson(results: readonly ExpectCheckResult[]): string {
  return renderJson({ passed: results.every((r) => r.ok), results });
}
