import type { DriftChange, DriftCost, DriftReport } from '../plan/drift.js';
import type { Colors } from './colors.js';
import { chatText } from './escape-chat.js';
import { BoundedText, cutNotice, listCuts, NOTICE_RESERVE } from './bounded-markdown.js';
import { tableCode } from './escape-markdown.js';
import { COMMENT_HEADER_RESERVE, MARKDOWN_LIMIT } from './render-plan-markdown.js';
import { printable, printableJson } from './escape-text.js';
import { formatCount } from '../format-count.js';
import { renderJson } from './render-json.js';

/** The public drift JSON (`drift --json`, and the `drift` of a watch notification): what accept records is internal. */
export function toDriftJson(report: DriftReport): Record<string, unknown> {
  return {
    format_version: report.format_version,
    status: report.status,
    summary: report.summary,
    drift: report.drift.map(({ accepted: _accepted, ...entry }) => entry),
    warnings: report.warnings,
  };
}

export function renderDriftJson(report: DriftReport): string {
  return renderJson(toDriftJson(report));
}

/**
 * `scrapeform drift`: per object what moved, and what reverting or accepting it costs. Names and values come from
 * the live services (a field renamed by hand may hold anything): each is printable (escape-text.ts), as in a plan.
 */
export function renderDriftHuman(report: DriftReport, colors: Colors): string {
  const { bold, dim, yellow, red } = colors;
  const warnings = report.warnings.map((w) => yellow(`warning: ${printable(w)}`));
  if (report.status === 'no_drift') {
    return [noDrift(report.summary.objects), ...warnings].join('\n');
  }
  const lines = [
    bold(
      `Drift: ${report.summary.drifted} of ${report.summary.objects} managed ${plural(report.summary.objects, 'object')} changed outside scrapeform`,
    ),
    '',
  ];
  for (const entry of report.drift) {
    const mark = entry.drift === 'deleted' ? red('-') : yellow('~');
    lines.push(
      `  ${mark} ${bold(printable(entry.address))} ${dim(`(${printable(String(entry.id))})`)}  ${printable(entry.message)}`,
    );
    for (const change of entry.changes) lines.push(`      ${describe(change)}`);
    lines.push(
      `      ${dim('revert:')} ${cost(entry.revert)}${entry.revert.requests.length > 0 ? dim(` (${entry.revert.requests.map((r) => `${r.method} ${printable(r.path)}`).join(', ')})`) : ''}${entry.revert.note !== undefined ? dim(`; ${printable(entry.revert.note)}`) : ''}`,
    );
    lines.push(
      `      ${dim('accept:')} ${entry.accept.possible ? cost(entry.accept) : 'not possible'}${entry.accept.note !== undefined ? dim(`; ${printable(entry.accept.note)}`) : ''}`,
    );
  }
  lines.push(
    '',
    `Revert all (scrapeform apply): ${cost(report.summary.revert)}`,
    acceptAll(report, 'Accept all (scrapeform drift --accept)', 'Accept (scrapeform drift --accept)'),
    ...warnings,
  );
  return lines.join('\n');
}

/**
 * `drift --markdown`: a table for an issue or a pull-request comment. Every live value is escaped (escape-markdown.ts)
 * as in the Markdown plan: a name holding `</details>`, an image link or `@everyone` stays text in its cell. It fits
 * GitHub's limit as the Markdown plan does (`limit`, room kept for a header): GitHub refuses a longer issue body or
 * comment outright, and a service error or hundreds of drifted objects can take more. The totals always stay; what
 * moved is shortened first (longest texts first, saying by how much), then left out with every object still named
 * with its costs, then rows are cut, counted in a last line.
 */
export function renderDriftMarkdown(
  report: DriftReport,
  limit = MARKDOWN_LIMIT - COMMENT_HEADER_RESERVE,
): string {
  if (report.status === 'no_drift') {
    return `### scrapeform drift\n\n${noDrift(report.summary.objects)}\n`;
  }
  const out = new BoundedText(limit - NOTICE_RESERVE);
  out.add(
    `### scrapeform drift\n\n${report.summary.drifted} of ${report.summary.objects} managed ${plural(report.summary.objects, 'object')} changed outside scrapeform.\n\n`,
  );
  const totals = `**Revert all** (\`scrapeform apply\`): ${cost(report.summary.revert)}. ${acceptAll(report, '**Accept all** (`scrapeform drift --accept`)', '**Accept** (`scrapeform drift --accept`)')}.\n`;
  const giveTotals = out.setAside(totals.length);
  out.addList({
    head: '| object | what moved | revert | accept |\n| --- | --- | --- | --- |\n',
    items: report.drift.map((d) => {
      const costs = ` | ${cost(d.revert)} | ${d.accept.possible ? cost(d.accept) : 'not possible'} |`;
      return {
        lead: `| ${tableCode(d.address)} | `,
        text: d.message,
        after: costs,
        compact: `| ${tableCode(d.address)} | _cut to fit the comment limit_${costs}`,
      };
    }),
    more: (left) => `| _…and ${left} more_ | | | |\n`,
    tail: '\n',
  });
  giveTotals();
  out.add(totals);
  out.addList({
    head: '',
    items: report.warnings.map((w) => ({ lead: '\n> ', text: w })),
    more: (left) => `\n> _…and ${left} more warnings_\n`,
    tail: '',
  });
  return `${out.text}${cutNotice(listCuts(out), 'run `scrapeform drift` for the full report')}`;
}

/**
 * A one-paragraph summary, as a chat message (`watch --notify`): a line per object, its values escaped for chat
 * (escape-chat.ts), so a live name cannot mention a channel or hide a link.
 */
export function renderDriftText(report: DriftReport): string {
  if (report.status === 'no_drift')
    return `scrapeform: no drift (${report.summary.objects} managed ${plural(report.summary.objects, 'object')})`;
  return [
    `scrapeform: ${report.summary.drifted} of ${report.summary.objects} managed ${plural(report.summary.objects, 'object')} changed outside scrapeform`,
    ...report.drift.map((d) => `• ${chatText(d.address)}: ${chatText(d.message)}`),
    `Revert: ${cost(report.summary.revert)}. ${acceptAll(report, 'Accept', 'Accept')}.`,
  ].join('\n');
}

/**
 * What accepting the whole report does: its cost when every object can be accepted, else how many can (the
 * others say why on their own line), so the summary never promises what `--accept` then refuses.
 */
function acceptAll(report: DriftReport, all: string, some: string): string {
  const possible = report.drift.filter((d) => d.accept.possible).length;
  if (possible === report.drift.length) return `${all}: ${cost(report.summary.accept)}`;
  if (possible === 0) return `${some}: nothing can be accepted (see each object)`;
  return `${some}: ${possible} of ${report.drift.length} can be accepted, ${cost(report.summary.accept)}`;
}

function describe(change: DriftChange): string {
  switch (change.change) {
    case 'rename':
      return `field ${printable(change.from)} renamed to ${printable(change.to)}`;
    case 'remove':
      return `field ${printable(change.field)} removed`;
    case 'add':
      return `field ${printable(change.field)} added${change.parent ? ' (a parent)' : ''}`;
    case 'edit':
      return `${printable(change.key)}: ${printableJson(change.state) ?? 'unset'} (state) -> ${printableJson(change.live) ?? 'unset'} (live)`;
  }
}

function cost(c: DriftCost): string {
  if (c.calls === 0) return 'free, no call';
  return `${c.calls} ${plural(c.calls, 'call')}, ${c.regenerations === 0 ? 'no regeneration' : `${c.regenerations} ${plural(c.regenerations, 'regeneration')}`}, ${formatCount(c.credits)} credits`;
}

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}

/** `No drift: the 3 managed objects match state.`, or `the managed object matches` for one. */
function noDrift(objects: number): string {
  return objects === 1
    ? 'No drift: the managed object matches state.'
    : `No drift: the ${objects} managed ${plural(objects, 'object')} match state.`;
}
