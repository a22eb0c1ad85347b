import type { Plan, ResourceChange } from '../plan/model.js';
import { plannedRequests } from '../plan/plan-json.js';
import { createColors } from './colors.js';
import { renderFieldChange, summarisePlan } from './render-plan.js';

/** GitHub keeps at most 65,536 characters in a comment; leave room for the truncation line. */
export const MARKDOWN_LIMIT = 65_536;

const plain = createColors(false);

/**
 * The plan as a pull-request comment: the summary table first, destructive changes called out before anything
 * else, breaking output changes labelled, details collapsed, and long plans cut with a line saying how much was cut.
 * Every destructive change stays listed even when the details are cut.
 */
export function renderPlanMarkdown(plan: Plan, limit = MARKDOWN_LIMIT): string {
  const head: string[] = ['### scrapeform plan', '', `**${summarisePlan(plan)}**`, ''];
  const s = plan.summary;
  head.push(
    '| adopt | create | update | replace | delete | archive | regenerations | est. credits |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| ${s.adopt} | ${s.create} | ${s.update} | ${s.replace} | ${s.delete} | ${s.archive} | ${s.regenerations} | ${s.estimated_credits.toLocaleString('en-US')} |`,
    '',
  );
  const destructive = plan.resource_changes.filter((c) => c.destructive);
  if (destructive.length > 0) {
    head.push(
      `> [!WARNING]`,
      `> **${destructive.length} destructive ${destructive.length === 1 ? 'change' : 'changes'}** (need \`--allow-destroy\`):`,
    );
    for (const c of destructive)
      head.push(
        `> - \`${c.address}\` **${c.action}**${c.id !== null ? ` (${c.id})` : ''}: ${escape(c.reasons.join('; '))}`,
      );
    head.push('');
  }
  const breaking = plan.resource_changes.filter((c) => c.breaking.length > 0);
  if (breaking.length > 0) {
    head.push('**Breaking for consumers of the results**', '');
    for (const c of breaking) head.push(`- \`${c.address}\`: ${escape(c.breaking.join('; '))}`);
    head.push('');
  }
  if (plan.drift.length > 0) {
    head.push('**Drift** (changed outside scrapeform)', '');
    for (const d of plan.drift) head.push(`- \`${d.address}\`: ${escape(d.message)}`);
    head.push('');
  }
  if (plan.warnings.length > 0) {
    head.push('<details><summary>Warnings</summary>', '');
    for (const w of plan.warnings) head.push(`- ${escape(w)}`);
    head.push('', '</details>', '');
  }
  const headText = head.join('\n');
  const ordered = [...plan.resource_changes].sort((a, b) => Number(b.destructive) - Number(a.destructive));
  const blocks = ordered.map(renderChangeBlock);
  let out = headText;
  let shown = 0;
  for (const block of blocks) {
    const rest = blocks.length - shown - 1;
    const reserve = rest > 0 ? 200 : 0;
    if (out.length + block.length + reserve > limit) break;
    out += block;
    shown++;
  }
  if (shown < blocks.length) {
    const cut = blocks.length - shown;
    out += `\n_…${cut} more ${cut === 1 ? 'change' : 'changes'} cut to fit the comment limit; run \`scrapeform plan\` for the full plan._\n`;
  }
  return out;
}

function renderChangeBlock(change: ResourceChange): string {
  const badge = change.destructive ? ' ⚠️ destructive' : change.breaking.length > 0 ? ' 💥 breaking' : '';
  const lines = [
    `<details><summary><code>${change.address}</code> <b>${change.action}</b>${change.regenerates ? ' (regenerates)' : ''}${badge}</summary>`,
    '',
  ];
  for (const reason of change.reasons) lines.push(`- ${escape(reason)}`);
  if (change.origin !== undefined) lines.push(`- from ${escape(change.origin)}`);
  if (change.input_summary !== undefined) lines.push(`- inputs: ${escape(change.input_summary)}`);
  if (change.field_changes.length > 0) {
    lines.push('', '```diff');
    for (const fc of change.field_changes) {
      const text = renderFieldChange(fc, plain);
      lines.push(
        fc.change === 'add' ? text : fc.change === 'remove' ? text : `! ${text.replace(/^[~→] /, '')}`,
      );
    }
    lines.push('```');
  }
  const requests = plannedRequests(change);
  if (requests.length > 0) {
    lines.push('', 'Calls:', '');
    for (const r of requests) lines.push(`- \`${r.method} ${r.path}\``);
  }
  lines.push('', '</details>', '');
  return `${lines.join('\n')}\n`;
}

function escape(text: string): string {
  return text.replace(/[<>]/g, (c) => (c === '<' ? '&lt;' : '&gt;'));
}
