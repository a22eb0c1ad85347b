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
/**
 * A list entry's text is whole unless the list does not fit the comment. Then the longest entries are shortened,
 * each no more than needed and never below this, so one long reason cannot push every other entry out.
 */
const ITEM_TEXT_MIN = 400;

/**
 * The plan as a pull-request comment: the summary table first, destructive changes and adoptions called out
 * before anything else, breaking output changes labelled, details collapsed. Nothing is cut unless the whole text
 * would not fit `limit`; then lists and details are cut, in that order of priority, each cut counted where it is
 * made and in a last line: an entry's text is shortened (saying by how many characters) before any entry is left
 * out, so every destructive change stays listed as long as the list itself fits. Every user and service value is
 * escaped (escape-markdown.ts): a name or description holding `</details>`, a code fence, an image link or
 * `@everyone` stays text.
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
    items: destructive.map((c) => ({
      lead: `> - ${markdownCode(c.address)} **${c.action}**${idText(c)}: `,
      // What consumers lose (a replace's new parser id, a delete's versions, an archive that cannot be undone) is
      // said here once, as the terminal plan says it, not again in the breaking list below.
      text: [...c.reasons, ...c.breaking].join('; '),
    })),
    more: (left) => `> - _…and ${left} more destructive ${left === 1 ? 'change' : 'changes'}_\n`,
    tail: '\n',
  });

  const adopted = plan.resource_changes.filter(adoptsLiveObject);
  const a = adopted.length;
  out.addList({
    head: `> [!IMPORTANT]\n> **${a} live ${a === 1 ? 'object' : 'objects'} taken over by name** that no state manages (need \`--allow-adopt\` or \`adopt: true\`; another state may manage ${a === 1 ? 'it' : 'them'}):\n`,
    items: adopted.map((c) => ({
      lead: `> - ${markdownCode(c.address)} **${c.action}**${idText(c)}`,
      text: '',
    })),
    more: (left) => `> - _…and ${left} more_\n`,
    tail: '\n',
  });

  // Destructive changes are listed once, above: a delete is not repeated as "breaking".
  const breaking = plan.resource_changes.filter((c) => c.breaking.length > 0 && !c.destructive);
  out.addList({
    head: '**Breaking for consumers of the results**\n\n',
    items: breaking.map((c) => ({ lead: `- ${markdownCode(c.address)}: `, text: c.breaking.join('; ') })),
    more: (left) => `- _…and ${left} more_\n`,
    tail: '\n',
  });

  out.addList({
    head: '**Drift** (changed outside scrapeform)\n\n',
    items: plan.drift.map((d) => ({ lead: `- ${markdownCode(d.address)}: `, text: d.message })),
    more: (left) => `- _…and ${left} more_\n`,
    tail: '\n',
  });

  out.addList({
    head: '**Moved** by `moved:` hints (state only, no call)\n\n',
    items: (plan.moved ?? []).map((m) => ({ lead: '- ', text: describeMove(m) })),
    more: (left) => `- _…and ${left} more_\n`,
    tail: '\n',
  });

  out.addList({
    head: '<details><summary>Warnings</summary>\n\n',
    items: plan.warnings.map((w) => ({ lead: '- ', text: w })),
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
  const { cutChanges, cutItems, shortenedItems } = out;
  if (cutChanges > 0 || cutItems > 0 || shortenedItems > 0) {
    const parts = [
      cutChanges > 0 ? `${cutChanges} more ${cutChanges === 1 ? 'change' : 'changes'}` : '',
      cutItems > 0 ? `${cutItems} list ${cutItems === 1 ? 'entry' : 'entries'}` : '',
      shortenedItems > 0
        ? `part of ${shortenedItems} list ${shortenedItems === 1 ? 'entry' : 'entries'}`
        : '',
    ].filter((p) => p !== '');
    const listed =
      parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1) ?? ''}` : parts.join('');
    text += `\n_…${listed} cut to fit the comment limit; run \`scrapeform plan\` for the full plan._\n`;
  }
  return text;
}

/** A list entry: its lead (Markdown of ours, already escaped) and its text (a user or service value, raw). */
interface ListItem {
  lead: string;
  text: string;
}

/** Text that never grows past its limit: what does not fit is counted instead. */
class BoundedText {
  text = '';
  cutChanges = 0;
  cutItems = 0;
  shortenedItems = 0;

  constructor(private readonly limit: number) {}

  fits(length: number): boolean {
    return this.text.length + length <= this.limit;
  }

  add(part: string): boolean {
    if (!this.fits(part.length)) return false;
    this.text += part;
    return true;
  }

  /**
   * A list with its heading. Every entry whole when they all fit; else every entry, the longest texts shortened to
   * the longest length at which they all fit (not below ITEM_TEXT_MIN); else entries shortened to that minimum
   * while they fit, then a line counting the rest.
   */
  addList(list: { head: string; items: ListItem[]; more: (left: number) => string; tail: string }): void {
    const { items } = list;
    if (items.length === 0) return;
    const keep = list.tail.length + list.more(items.length).length;
    if (this.text.length + list.head.length + keep > this.limit) {
      this.cutItems += items.length;
      return;
    }
    // The room the loop below allows: it keeps the tail and a line counting the rest free to the end.
    const room = this.limit - this.text.length - list.head.length - keep;
    const size = (cap: number): number => items.reduce((n, item) => n + renderItem(item, cap).length, 0);
    const longest = Math.max(...items.map((item) => item.text.length));
    let cap = longest;
    if (size(longest) > room) {
      cap = ITEM_TEXT_MIN;
      if (size(ITEM_TEXT_MIN) <= room) {
        // The longest cap at which every entry still fits: no entry loses more than the limit needs.
        let tooLong = longest;
        while (tooLong - cap > 1) {
          const middle = Math.floor((cap + tooLong) / 2);
          if (size(middle) <= room) cap = middle;
          else tooLong = middle;
        }
      }
    }
    this.text += list.head;
    let i = 0;
    for (const item of items) {
      const line = renderItem(item, cap);
      if (this.text.length + line.length + keep > this.limit) break;
      this.text += line;
      if (item.text.length > cap) this.shortenedItems++;
      i++;
    }
    const left = items.length - i;
    if (left > 0) {
      this.text += list.more(left);
      this.cutItems += left;
    }
    this.text += list.tail;
  }
}

/** One list entry on its line, its text cut to `cap` characters, saying how many more there were. */
function renderItem(item: ListItem, cap: number): string {
  if (item.text === '') return `${item.lead}\n`;
  if (item.text.length <= cap) return `${item.lead}${markdownText(item.text)}\n`;
  // Never split a surrogate pair: half a character would show as a replacement sign.
  const end = /[\ud800-\udbff]/.test(item.text.charAt(cap - 1)) ? cap - 1 : cap;
  const left = item.text.length - end;
  return `${item.lead}${markdownText(item.text.slice(0, end))}… _(${formatCount(left)} more ${left === 1 ? 'character' : 'characters'} cut to fit the comment limit)_\n`;
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
  for (const reason of change.reasons) lines.push(`- ${markdownText(reason)}`);
  if (change.origin !== undefined) lines.push(`- from ${markdownText(change.origin)}`);
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

/** The project-runs line (describeProjectRuns) and the blank line after it, or nothing. */
function runLines(plan: Plan): string[] {
  const runs = describeProjectRuns(plan);
  return runs !== undefined ? [markdownText(runs), ''] : [];
}
