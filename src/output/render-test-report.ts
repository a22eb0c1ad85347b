import type { ExpectCheckResult } from '../apply/run-expect-checks.js';
import type { Colors } from './colors.js';
import { renderChecks } from './render-checks.js';
import { renderJson } from './render-json.js';

/** A check Ctrl-C (or SIGTERM) stopped before its parse was sent. */
export interface NotRunCheck {
  address: string;
  url: string;
}

/** What `scrapeform test` reports: the checks that ran, and, when it was interrupted, those that did not. */
export interface TestReport {
  results: ExpectCheckResult[];
  interrupted: boolean;
  /** In plan order; empty unless interrupted. */
  notRun: NotRunCheck[];
}

/** `scrapeform test` for people (an interrupted run says on stderr how many checks were not run). */
export function renderTestReportHuman(report: TestReport, colors: Colors): string {
  if (report.results.length > 0) return renderChecks(report.results, colors);
  // Interrupted before the first check: there were checks to run.
  return report.notRun.length > 0
    ? 'No check ran: interrupted before the first parse was sent.'
    : 'No expect blocks to run.';
}

/**
 * `test --json`: an interrupted run is not passed, whatever the checks that ran gave (a CI job reading the JSON
 * rather than the exit code would report it green), and names the checks not run; `status` as apply's.
 */
export function renderTestReportJson(report: TestReport): string {
  const passed = !report.interrupted && report.results.every((r) => r.ok);
  return renderJson({
    status: report.interrupted ? 'interrupted' : passed ? 'passed' : 'failed',
    passed,
    results: report.results,
    notRun: report.notRun,
  });
}
