import type { Plan, ResourceChange } from '../plan/model.js';
import { adoptsLiveObject } from '../plan/model.js';
import { plannedRequests } from '../plan/plan-json.js';
import { detailChange } from './change-details.js';
import type { DetailLine } from './change-details.js';
import { htmlText, markdownCode, markdownText } from './escape-markdown.js';
import { printable } from './escape-text.js';
import { describeMove, describeProjectRuns, summarisePlan } from './render-plan.js';
import { formatCount } from '../format-count.js';

/** GitHub keeps at most 65,536 characters in a comment (its body, whatever puts it there). */
export const MARKDOWN_LIMIT = 65_536;

/**
 * Room left for what the Action writes above the plan in the same comment: its marker and the line naming the
 * workspace, directory and commit (action.yml keeps them under this length). `plan --markdown` fits in the rest.
 */
export const COMMENT_HEADER_RESERVE = 1_024;

/** Room always kept for the last line that says what was cut. */
const NOTICE_RESERVE = 200;
/** One list item's prose is cut to this, so one long reason cannot push every other item out. */
const ITEM_TEXT_MAX = 400;

/**
 * The plan as a pull-request comment: the summary table first, destructive changes and adoptions called out
 * before anything else, breaking output changes labelled, details collapsed. The whole text fits `limit`: lists
 * and details are cut, in that order of priority, with a line saying how much was cut; every destructive change
 * stays listed as long as the list itself fits. Every user and service value is escaped (escape-markdown.ts): a
 * name or description holding `</details>`, a code fence, an image link or `@everyone` stays text.
 */
export function renderPlanMarkdown(plan: Plan, limit = MARKDOWN_LIMIT - COMMENT_HEADER_RESERVE): string {
  const out = new BoundedText(limit - NOTICE_RESERVE);
  const s = plan.summary;
  out.add(
    [
      '### scrapeform plan',
      '',
      `**${summarisePlan(plan)}**`,
      '',
      ...runLines(plan),
      '| adopt | create | update | replace | delete | archive | regenerations | est. credits |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      `| ${s.adopt} | ${s.create} | ${s.update} | ${s.replace} | ${s.delete} | ${s.archive} | ${s.regenerations} | ${formatCount(s.estimated_credits)} |`,
      '',
      '',
    ].join('\n'),
  );

  const destructive = plan.resource_changes.filter((c) => c.destructive);
  const n = destructive.length;
  out.addList({
    head: `> [!WARNING]\n> **${n} destructive ${n === 1 ? 'change' : 'changes'}** (need \`--allow-destroy\`):\n`,
    items: destructive.map((c) => {
      // What consumers lose (a replace's new parser id, a delete's versions, an archive that cannot be undone) is
      // said here once, as the terminal plan says it, not again in the breaking list below.
      const why = [...c.reasons, ...c.breaking].join('; ');
      return `> - ${markdownCode(c.address)} **${c.action}**${idText(c)}: ${prose(why)}\n`;
    }),
    more: (left) => `> - _…and ${left} more destructive ${left === 1 ? 'change' : 'changes'}_\n`,
    tail: '\n',
  });

  const adopted = plan.resource_changes.filter(adoptsLiveObject);
  const a = adopted.length;
  out.addList({
    head: `> [!IMPORTANT]\n> **${a} live ${a === 1 ? 'object' : 'objects'} taken over by name** that no state manages (need \`--allow-adopt\` or \`adopt: true\`; another state may manage ${a === 1 ? 'it' : 'them'}):\n`,
    items: adopted.map((c) => `> - ${markdownCode(c.address)} **${c.action}**${idText(c)}\n`),
    more: (left) => `> - _…and ${left} more_\n`,
    tail: '\n',
  });

  // Destructive changes are listed once, above: a delete is not repeated as "breaking".
  const breaking = plan.resource_changes.filter((c) => c.breaking.length > 0 && !c.destructive);
  out.addList({
    head: '**Breaking for consumers of the results**\n\n',
    items: breaking.map((c) => `- ${markdownCode(c.address)}: ${prose(c.breaking.join('; '))}\n`),
    more: (left) => `- _…and ${left} more_\n`,
    tail: '\n',
  });

  out.addList({
    head: '**Drift** (changed outside scrapeform)\n\n',
    items: plan.drift.map((d) => `- ${markdownCode(d.address)}: ${prose(d.message)}\n`),
    more: (left) => `- _…and ${left} more_\n`,
    tail: '\n',
  });

  out.addList({
    head: '**Moved** by `moved:` hints (state only, no call)\n\n',
    items: (plan.moved ?? []).map((m) => `- ${prose(describeMove(m))}\n`),
    more: (left) => `- _…and ${left} more_\n`,
    tail: '\n',
  });

  out.addList({
    head: '<details><summary>Warnings</summary>\n\n',
    items: plan.warnings.map((w) => `- ${prose(w)}\n`),
    more: (left) => `- _…and ${left} more_\n`,
    tail: '\n</details>\n\n',
  });

  const ordered = [...plan.resource_changes].sort((x, y) => Number(y.destructive) - Number(x.destructive));
  const blocks = ordered.map((change) => ({
    bare: renderChangeBlock(change, false),
    full: renderChangeBlock(change, true),
  }));
  // A change's request bodies are put in only while every later change still fits without its own: a long body
  // (an input list of thousands) never pushes another change out of the comment.
  let later = blocks.reduce((n, b) => n + b.bare.length, 0);
  let shown = 0;
  for (const block of blocks) {
    later -= block.bare.length;
    const part = out.fits(block.full.length + later) ? block.full : block.bare;
    if (!out.add(part)) break;
    shown++;
  }
  out.cutChanges += ordered.length - shown;

  let text = out.text;
  if (out.cutChanges > 0 || out.cutItems > 0) {
    const parts = [
      out.cutChanges > 0 ? `${out.cutChanges} more ${out.cutChanges === 1 ? 'change' : 'changes'}` : '',
      out.cutItems > 0 ? `${out.cutItems} list ${out.cutItems === 1 ? 'entry' : 'entries'}` : '',
    ].filter((p) => p !== '');
    text += `\n_…${parts.join(' and ')} cut to fit the comment limit; run \`scrapeform plan\` for the full plan._\n`;
  }
  return text;
}

/** Text that never grows past its limit: what does not fit is counted instead. */
class BoundedText {
  text = '';
  cutChanges = 0;
  cutItems = 0;

  constructor(private readonly limit: number) {}

  fits(length: number): boolean {
    return this.text.length + length <= this.limit;
  }

  add(part: string): boolean {
    if (!this.fits(part.length)) return false;
    this.text += part;
    return true;
  }

  /** A list with its heading: items while they fit with the heading's tail, then a line counting the rest. */
  addList(list: { head: string; items: string[]; more: (left: number) => string; tail: string }): void {
    if (list.items.length === 0) return;
    const keep = list.tail.length + list.more(list.items.length).length;
    if (this.text.length + list.head.length + keep > this.limit) {
      this.cutItems += list.items.length;
      return;
    }
    this.text += list.head;
    let i = 0;
    for (const item of list.items) {
      if (this.text.length + item.length + keep > this.limit) break;
      this.text += item;
      i++;
    }
    const left = list.items.length - i;
    if (left > 0) {
      this.text += list.more(left);
      this.cutItems += left;
    }
    this.text += list.tail;
  }
}

/**
 * One change, collapsed: why, every value old -> new (change-details.ts, as the human plan shows them), the calls,
 * and with `bodies` each request body whole in a collapsed block of its own.
 */
function renderChangeBlock(change: ResourceChange, bodies: boolean): string {
  const badge = change.destructive ? ' ⚠️ destructive' : change.breaking.length > 0 ? ' 💥 breaking' : '';
  const adopts = adoptsLiveObject(change) ? ' 🔓 adopts' : '';
  const lines = [
    `<details><summary><code>${htmlText(change.address)}</code> <b>${change.action}</b>${change.regenerates ? ' (regenerates)' : ''}${badge}${adopts}</summary>`,
    '',
  ];
  for (const reason of change.reasons) lines.push(`- ${prose(reason)}`);
  if (change.origin !== undefined) lines.push(`- from ${prose(change.origin)}`);
  const diff = detailChange(change).map(diffLine);
  if (diff.length > 0) lines.push('', '```diff', ...diff, '```');
  const requests = plannedRequests(change);
  if (requests.length > 0) {
    lines.push('', 'Calls:', '');
    for (const r of requests) lines.push(`- ${markdownCode(`${r.method} ${r.path}`)}`);
    const withBody = requests.filter((r) => r.body !== undefined);
    if (withBody.length > 0 && !bodies) {
      lines.push(
        '',
        '_Request bodies left out to fit the comment limit; `scrapeform plan --json` shows them._',
      );
    }
    for (const r of bodies ? withBody : []) {
      // JSON.stringify escapes line breaks inside strings, so every line starts with a space, a quote, a bracket or
      // a brace: no value can close the fence or start HTML. It leaves bidirectional controls raw, which GitHub
      // would show reordering the text around them (Trojan Source): each line is made printable as the terminal's
      // layoutJson does, and `\u202e` read back as JSON is the same character, so the body is still what is sent.
      lines.push(
        '',
        `<details><summary>Body of <code>${htmlText(`${r.method} ${r.path}`)}</code></summary>`,
        '',
        '```json',
        ...JSON.stringify(r.body, null, 2).split('\n').map(printable),
        '```',
        '',
        '</details>',
      );
    }
  }
  lines.push('', '</details>', '');
  return `${lines.join('\n')}\n`;
}

/**
 * A detail line in a diff block: every line starts with a sign of ours (`!` for a change, a space for context),
 * so no value can close the fence.
 */
function diffLine(detail: DetailLine): string {
  const sign = detail.sign === '~' || detail.sign === '→' ? '!' : detail.sign;
  return `${sign}${detail.depth === 1 ? '   ' : ' '}${detail.text}`;
}

function idText(change: ResourceChange): string {
  return change.id !== null ? ` (${markdownCode(String(change.id))})` : '';
}

function prose(text: string): string {
  return markdownText(text.length > ITEM_TEXT_MAX ? `${text.slice(0, ITEM_TEXT_MAX - 1)}…` : text);
}

/** The project-runs line (describeProjectRuns) and the blank line after it, or nothing. */
function runLines(plan: Plan): string[] {
  const runs = describeProjectRuns(plan);
  return runs !== undefined ? [markdownText(runs), ''] : [];
}
