import type { ApplyResult, ChangeResult } from '../apply/apply-model.js';
import { callText, recoveredCalls } from './call-text.js';
import { formatNames } from '../format-count.js';
import type { ExpectCheckResult } from '../apply/run-expect-checks.js';
import { createColors } from './colors.js';
import { markdownCode, markdownText, tableCode } from './escape-markdown.js';
import { printable } from './escape-text.js';
import type { Colors } from './colors.js';
import { renderChecks } from './render-checks.js';
import { renderResultDiffsHuman } from './render-result-diffs.js';
import type { ResultDiff } from './render-result-diffs.js';
import { renderJson } from './render-json.js';
import { BoundedText, cutNotice, NOTICE_RESERVE } from './bounded-markdown.js';
import { COMMENT_HEADER_RESERVE, MARKDOWN_LIMIT } from './render-plan-markdown.js';

/** What apply ended with: the results of the calls (none when there was nothing to do) and the expect checks. */
export interface ApplyReport {
  result: ApplyResult | undefined;
  checks: ExpectCheckResult[];
  /** What each regeneration did to the example results. */
  resultDiffs: ResultDiff[];
  /**
   * When nothing was applied: the plan's summary line, when it says more than that the services matched (parsers
   * lagging behind state, a partial plan: summarisePlan).
   */
  noChanges?: string;
  /**
   * The state error that stopped apply (a full disk, a lost lock; before, during or after its calls): the results hold
   * what was done by then, and the command exits 1 with this error on stderr too.
   */
  error?: { code: string; message: string; hint?: string; unrecorded?: string[] };
}

/**
 * The apply result for people: a line per object, failures with their hint, then the expect checks. Names, ids and
 * service texts are printable (escape-text.ts), as in the plan.
 */
export function renderApplyHuman(report: ApplyReport, colors: Colors): string {
  const { result, checks } = report;
  if (result === undefined) return '';
  const { green, red, yellow, dim, bold } = colors;
  const sorted = sortResults(result);
  const { ok, stopped, notStarted, failed } = sorted;
  const lines = ['', bold(`Apply ${outcomeWord(report, failed.length)}: ${countsText(sorted)}.`)];
  for (const r of ok) {
    lines.push(`  ${green('✓')} ${printable(r.address)} ${r.action}${where(r)}`);
    lines.push(...noteLines(r, colors));
  }
  const unrecorded = report.error?.unrecorded ?? [];
  for (const r of stopped) {
    // Its message says what state records of it; the write that was to record it failed (the error above).
    const said = unrecorded.includes(r.address)
      ? 'interrupted after its call was answered; the state write that followed failed, so state does not record it: the next apply reads it again'
      : (r.error?.message ?? 'interrupted');
    lines.push(`  ${yellow('■')} ${printable(r.address)} ${r.action}${where(r)}: ${printable(said)}`);
    lines.push(...noteLines(r, colors));
  }
  for (const r of failed) {
    lines.push(
      `  ${red('✗')} ${printable(r.address)} ${r.action}${where(r)}: ${printable(r.error?.message ?? 'failed')}`,
    );
    if (r.error?.hint !== undefined) lines.push(`      hint: ${printable(r.error.hint)}`);
    lines.push(...noteLines(r, colors));
  }
  for (const r of notStarted) lines.push(`  ${dim('-')} ${printable(r.address)} ${r.action}: not started`);
  if (unrecorded.length > 0)
    lines.push(
      `State does not hold all it did for ${formatNames(unrecorded.map(printable))}: the next apply reads ${unrecorded.length === 1 ? 'it' : 'them'} again.`,
    );
  if (result.interrupted)
    lines.push(
      report.error !== undefined
        ? 'Interrupted, and stopped by the error above: plan again to see what is left.'
        : 'Interrupted: state holds everything that was done; plan again to see what is left.',
    );
  if (checks.length > 0) lines.push('', `Expect checks:\n${renderChecks(checks, colors)}`);
  if (report.resultDiffs.length > 0)
    lines.push(
      '',
      'What the regenerations changed in the data:',
      renderResultDiffsHuman(report.resultDiffs, colors),
    );
  return lines.join('\n');
}

/**
 * The results as the summaries count them: applied; stopped by Ctrl-C after a call of theirs (a parser left
 * generating, an update between two PATCHes); not started; failed. An interrupted apply counted the first two as
 * failed, which read as if nothing had been made.
 */
type SortedResults = Record<'ok' | 'stopped' | 'notStarted' | 'failed', ChangeResult[]>;

function sortResults(result: ApplyResult): SortedResults {
  const sorted: SortedResults = { ok: [], stopped: [], notStarted: [], failed: [] };
  for (const r of result.results) {
    if (r.ok) sorted.ok.push(r);
    else if (notStarted(r)) sorted.notStarted.push(r);
    else if (r.error?.code === 'apply.interrupted') sorted.stopped.push(r);
    else sorted.failed.push(r);
  }
  return sorted;
}

/** Not started: Ctrl-C came first, or came just before the change's first call (no call of its own was made). */
function notStarted(r: ChangeResult): boolean {
  return r.skipped === true || (r.error?.code === 'apply.interrupted' && r.calls.length === 0);
}

/** How apply ended; a state error that stopped it first (its changes may all be applied or not started). */
function outcomeWord({ result, error }: ApplyReport, failed: number): string {
  if (error !== undefined) return 'stopped by a state error';
  return result?.interrupted === true ? 'interrupted' : failed === 0 ? 'complete' : 'finished with failures';
}

/** `2 applied, 1 failed`; after Ctrl-C also what it stopped and what it never started, when any. */
function countsText({ ok, stopped, notStarted, failed }: SortedResults): string {
  return [
    `${ok.length} applied`,
    ...(stopped.length > 0 ? [`${stopped.length} stopped while in progress`] : []),
    ...(notStarted.length > 0 ? [`${notStarted.length} not started`] : []),
    `${failed.length} failed`,
  ].join(', ');
}

/** ` ID version N`: the object a change made or acts on, when it has one. */
function where(r: ChangeResult): string {
  return r.id !== null
    ? ` ${printable(String(r.id))}${r.version !== undefined ? ` version ${r.version}` : ''}`
    : '';
}

/**
 * The lines under a change's own: for a create whose answer did not give its object, the status its POST got and
 * how the object was found; then its warnings.
 */
function noteLines(r: ChangeResult, colors: Colors): string[] {
  return [
    ...recoveredCalls(r.calls).map((c) => `      ${printable(callText(c))}`),
    ...(r.warnings ?? []).map((w) => `      ${colors.yellow('warning:')} ${printable(w)}`),
  ];
}

/**
 * The apply result as JSON (`apply --json`): status, one entry per change, the expect checks, and the state error
 * that stopped apply, if one did.
 */
export function renderApplyJson(report: ApplyReport): string {
  const { result, checks } = report;
  if (result === undefined) return renderJson({ status: 'no_changes', results: [] });
  const failed = report.error !== undefined || result.results.some((r) => !r.ok);
  return renderJson({
    status:
      report.error !== undefined
        ? 'failed'
        : result.interrupted
          ? 'interrupted'
          : failed
            ? 'failed'
            : 'applied',
    results: result.results,
    checks,
    result_changes: report.resultDiffs,
    ...(report.error !== undefined ? { error: report.error } : {}),
  });
}

/**
 * The apply report as Markdown (`apply --markdown-report FILE`), for CI to post on the merged pull request: what was
 * applied, what failed, the expect checks, and what each regeneration did to the data. Every value from manifests
 * or the service sits in a code span (escape-markdown.ts, as in the Markdown plan) or a code block of printable
 * lines, so it stays text and no bidi override reorders it. It fits a comment as the Markdown plan does (`limit`,
 * room kept for a header): GitHub refuses a longer body outright, and the example_result diffs of a few
 * regenerations can take megabytes. What does not fit is cut in this order and counted in a last line: the diffs
 * (each regeneration keeps its heading and likely regressions), then table rows (failures kept first).
 */
export function renderApplyMarkdown(
  report: ApplyReport,
  limit = MARKDOWN_LIMIT - COMMENT_HEADER_RESERVE,
): string {
  const { result, checks, resultDiffs } = report;
  if (result === undefined)
    return `### scrapeform apply\n\n${markdownText(report.noChanges ?? 'No changes: the live services already matched the manifests.')}\n`;
  const out = new BoundedText(limit - NOTICE_RESERVE);
  const sorted = sortResults(result);
  const object = (r: ChangeResult): string =>
    r.id !== null
      ? ` ${tableCode(String(r.id))}${r.version !== undefined ? ` version ${r.version}` : ''}`
      : '';
  // A create whose answer did not give its object says so, after its object: its POST got no 201.
  const recovered = (r: ChangeResult): string =>
    recoveredCalls(r.calls)
      .map((c) => ` (${tableCode(callText(c))})`)
      .join('');
  const outcome = (r: ChangeResult): string =>
    r.ok
      ? `ok${object(r)}${recovered(r)}`
      : notStarted(r)
        ? 'not started'
        : `${r.error?.code === 'apply.interrupted' ? 'stopped' : 'failed'}${object(r)}${recovered(r)}: ${tableCode(r.error?.message ?? 'failed')}`;
  out.add(`### scrapeform apply: ${outcomeWord(report, sorted.failed.length)}\n\n${countsText(sorted)}.\n\n`);
  // The state error that stopped apply, before the table: CI posts this report without the log that has it.
  if (report.error !== undefined) {
    const { code, message, hint } = report.error;
    out.addList({
      head: '',
      items: [
        { lead: `- **Error** ${markdownCode(code)}: `, text: message },
        ...(hint !== undefined ? [{ lead: '- **Hint:** ', text: hint }] : []),
      ],
      more: () => '',
      tail: '\n',
    });
  }
  const head = '| object | action | result |\n| --- | --- | --- |\n';
  const row = (r: ChangeResult): string => `| ${tableCode(r.address)} | ${r.action} | ${outcome(r)} |\n`;
  const rows = result.results.map(row);
  // In their order while the table fits; else what did not go as planned first, so no failure is the row cut.
  const table = out.fits(head.length + rows.join('').length)
    ? result.results
    : [...sorted.failed, ...sorted.stopped, ...sorted.notStarted, ...sorted.ok];
  out.addList({
    head,
    items: table.map((r) => ({ lead: row(r).slice(0, -1), text: '' })),
    more: (left) => `| _…and ${left} more_ | | |\n`,
    tail: '',
  });
  if (checks.length > 0) {
    const bad = checks.filter((c) => !c.ok);
    const passed = `\n**Expect checks:** ${checks.length - bad.length} of ${checks.length} passed.\n`;
    out.addList({
      head: passed,
      items: bad.map((c) => ({
        lead: `- ${markdownCode(c.address)} ${markdownCode(c.url)}: ${markdownCode(c.error ?? c.mismatches.map((m) => m.path).join(', '))}`,
        text: '',
      })),
      more: (left) => `- _…and ${left} more_\n`,
      tail: '',
    });
    // A list with no entry writes no heading: every check passed.
    if (bad.length === 0) out.add(passed);
  }
  // Each regeneration's heading and likely regressions before any diff: room for all of them is kept as diffs are
  // added.
  const bare = resultDiffs.map((d) => {
    const lines = ['', `#### Data: ${markdownCode(d.address)}, version ${d.from.version} -> ${d.to.version}`];
    for (const field of d.missing)
      lines.push(
        `> [!WARNING]\n> Likely regression: ${markdownCode(field)} had a value before and is missing from every example now.`,
      );
    return `${lines.join('\n')}\n`;
  });
  let later = bare.reduce((sum, b) => sum + b.length, 0);
  let cutDiffs = 0;
  for (const [i, d] of resultDiffs.entries()) {
    const heading = bare[i] ?? '';
    later -= heading.length;
    const diff = [
      '',
      '<details><summary>example_result diff</summary>',
      '',
      codeBlock(renderResultDiffsHuman([d], PLAIN)),
      '',
      '</details>',
      '',
    ].join('\n');
    if (out.fits(heading.length + diff.length + later)) out.add(heading + diff);
    else if (out.add(heading)) cutDiffs++;
    else out.cutChanges++;
  }
  return `${out.text}${cutNotice(
    [
      cutDiffs > 0 ? `${cutDiffs} example_result ${cutDiffs === 1 ? 'diff' : 'diffs'}` : '',
      out.cutChanges > 0 ? `${out.cutChanges} data ${out.cutChanges === 1 ? 'section' : 'sections'}` : '',
      out.cutItems > 0 ? `${out.cutItems} ${out.cutItems === 1 ? 'row' : 'rows'}` : '',
    ],
    'the apply log shows every one',
  )}`;
}

const PLAIN = createColors(false);

/** A fenced block longer than any backtick run inside it, so `</details>` or a fence in a value stays text. */
function codeBlock(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}diff\n${text}\n${fence}`;
}
