import type { ApplyResult } from '../apply/apply-model.js';
import type { ExpectCheckResult } from '../apply/run-expect-checks.js';
import { createColors } from './colors.js';
import type { Colors } from './colors.js';
import { renderChecks } from './render-checks.js';
import { renderResultDiffsHuman } from './render-result-diffs.js';
import type { ResultDiff } from './render-result-diffs.js';

/** What apply ended with: the results of the calls (none when there was nothing to do) and the expect checks. */
export interface ApplyReport {
  result: ApplyResult | undefined;
  checks: ExpectCheckResult[];
  /** What each regeneration did to the example results. */
  resultDiffs: ResultDiff[];
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
  if (report.resultDiffs.length > 0)
    lines.push(
      '',
      'What the regenerations changed in the data:',
      renderResultDiffsHuman(report.resultDiffs, colors),
    );
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
      result_changes: report.resultDiffs,
    },
    null,
    2,
  );
}

/**
 * The apply report as Markdown (`apply --markdown-report FILE`), for CI to post on the merged pull request: what was
 * applied, what failed, the expect checks, and what each regeneration did to the data. Every value from manifests
 * or the service sits in a code span or block, so it stays text.
 */
export function renderApplyMarkdown(report: ApplyReport): string {
  const { result, checks, resultDiffs } = report;
  if (result === undefined)
    return '### scrapeform apply\n\nNo changes: the live services already matched the manifests.\n';
  const failed = result.results.filter((r) => !r.ok);
  const lines = [
    `### scrapeform apply: ${result.interrupted ? 'interrupted' : failed.length === 0 ? 'complete' : 'finished with failures'}`,
    '',
    `${result.results.length - failed.length} applied, ${failed.length} failed.`,
    '',
    '| object | action | result |',
    '| --- | --- | --- |',
    ...result.results.map(
      (r) =>
        `| ${codeSpan(r.address)} | ${r.action} | ${r.ok ? `ok${r.id !== null ? ` ${codeSpan(String(r.id))}${r.version !== undefined ? ` version ${r.version}` : ''}` : ''}` : `failed: ${codeSpan(r.error?.message ?? 'failed')}`} |`,
    ),
  ];
  if (checks.length > 0) {
    const bad = checks.filter((c) => !c.ok);
    lines.push('', `**Expect checks:** ${checks.length - bad.length} of ${checks.length} passed.`);
    for (const c of bad)
      lines.push(
        `- ${codeSpan(c.address)} ${codeSpan(c.url)}: ${codeSpan(c.error ?? c.mismatches.map((m) => m.path).join(', '))}`,
      );
  }
  for (const d of resultDiffs) {
    lines.push('', `#### Data: ${codeSpan(d.address)}, version ${d.from.version} -> ${d.to.version}`);
    for (const field of d.missing)
      lines.push(
        `> [!WARNING]\n> Likely regression: ${codeSpan(field)} had a value before and is missing from every example now.`,
      );
    lines.push(
      '',
      '<details><summary>example_result diff</summary>',
      '',
      codeBlock(renderResultDiffsHuman([d], PLAIN)),
      '',
      '</details>',
    );
  }
  return `${lines.join('\n')}\n`;
}

const PLAIN = createColors(false);

/** A code span that no backtick in the text can close early, with line breaks folded. */
function codeSpan(text: string): string {
  const flat = text.replace(/[\r\n]+/g, ' ').replace(/\|/g, '\\|');
  const longest = Math.max(0, ...[...flat.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${flat.startsWith('`') || flat.endsWith('`') ? ` ${flat} ` : flat}${fence}`;
}

/** A fenced block longer than any backtick run inside it, so `</details>` or a fence in a value stays text. */
function codeBlock(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}diff\n${text}\n${fence}`;
}
