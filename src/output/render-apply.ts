import type { ApplyResult } from '../apply/apply-plan.js';
import type { ExpectCheckResult } from '../apply/run-expect-checks.js';
import type { Colors } from './colors.js';
import { renderChecks } from './render-checks.js';

/** What apply ended with: the results of the calls (none when there was nothing to do) and the expect checks. */
export interface ApplyReport {
  result: ApplyResult | undefined;
  checks: ExpectCheckResult[];
}

/** The apply result for people: a line per object, failures with their hint, then the expect checks. */
export function renderApplyHuman(report: ApplyReport, colors: Colors): string {
  const { result, checks } = report;
  if (result === undefined) return '';
  const { green, red, bold } = colors;
  const ok = result.results.filter((r) => r.ok);
  const failed = result.results.filter((r) => !r.ok);
  const lines = [
    '',
    bold(
      `Apply ${failed.length === 0 ? 'complete' : 'finished with failures'}: ${ok.length} applied, ${failed.length} failed.`,
    ),
  ];
  for (const r of ok) {
    const where = r.id !== null ? ` ${r.id}${r.version !== undefined ? ` version ${r.version}` : ''}` : '';
    lines.push(`  ${green('✓')} ${r.address} ${r.action}${where}`);
    lines.push(...warningLines(r.warnings, colors));
  }
  for (const r of failed) {
    lines.push(`  ${red('✗')} ${r.address} ${r.action}: ${r.error?.message ?? 'failed'}`);
    if (r.error?.hint !== undefined) lines.push(`      hint: ${r.error.hint}`);
    lines.push(...warningLines(r.warnings, colors));
  }
  if (result.interrupted)
    lines.push('Interrupted: state holds everything that was done; plan again to see what is left.');
  if (checks.length > 0) lines.push('', `Expect checks:\n${renderChecks(checks, colors)}`);
  return lines.join('\n');
}

function warningLines(warnings: readonly string[] | undefined, colors: Colors): string[] {
  return (warnings ?? []).map((w) => `      ${colors.yellow('warning:')} ${w}`);
}

/** The apply result as JSON (`apply --json`): status, one entry per change, and the expect checks. */
export function renderApplyJson(report: ApplyReport): string {
  const { result, checks } = report;
  if (result === undefined) return JSON.stringify({ status: 'no_changes', results: [] }, null, 2);
  const failed = result.results.some((r) => !r.ok);
  return JSON.stringify(
    {
      status: result.interrupted ? 'interrupted' : failed ? 'failed' : 'applied',
      results: result.results,
      checks,
    },
    null,
    2,
  );
}
