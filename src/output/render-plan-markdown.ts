import type { Plan, ResourceChange } from '../plan/model.js';
import { adoptsLiveObject, describesPartialPlan } from '../plan/model.js';
import { plannedRequests } from '../plan/plan-json.js';
import { detailChange } from './change-details.js';
import type { DetailLine } from './change-details.js';
import { BoundedText, compactRoom, cutNotice, listCuts, NOTICE_RESERVE } from './bounded-markdown.js';
import type { BoundedList } from './bounded-markdown.js';
import { htmlText, markdownCode, markdownText } from './escape-markdown.js';
import { renderJson } from './render-json.js';
import {
  describeExpectChecks,
  describeMove,
  describeProjectRuns,
  holdsBackParser,
  summarisePlan,
} from './render-plan.js';
import { formatCount } from '../format-count.js';

/** GitHub keeps at most 65,536 characters in a comment (its body, whatever puts it there). */
export const MARKDOWN_LIMIT = 65_536;

/**
 * Room left for what the Action writes above the plan in the same comment: its marker and the line naming the
 * workspace, directory and commit (under 1,000 characters), and for a plan refused by `--max-regenerations` the
 * refusal (its error clipped to 600 characters, about 720 with its heading and fence). action.yml keeps them under
 * this length, so `plan --markdown` fits in the rest and is never cut there (a cut inside a collapsed block would
 * fold the rest of the comment away).
 */
export const COMMENT_HEADER_RESERVE = 2_048;

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
  out.add(['### scrapeform plan', '', `**${summarisePlan(plan)}**`, '', ''].join('\n'));
  const destructive = destructiveList(plan.resource_changes.filter((c) => c.destructive));
  const adopted = adoptedList(plan.resource_changes.filter(adoptsLiveObject));
  const costly = plan.resource_changes.filter((c) => !c.destructive && c.regenerates);
  const table = [
    '| adopt | create | update | replace | delete | archive | regenerations | est. credits |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| ${s.adopt} | ${s.create} | ${s.update} | ${s.replace} | ${s.delete} | ${s.archive} | ${s.regenerations} | ${formatCount(s.estimated_credits)} |`,
    '',
    '',
  ].join('\n');
  // The notes come first, yet give way to the counts table and to the names of every destructive change, adoption
  // and regeneration: room for those is kept while the notes are added (shortened, then cut and counted), so
  // hundreds of parsers held back cannot push a delete out of the comment.
  const costlyRoom = costlyIndexRoom(costly);
  const giveNoted = out.setAside(table.length + compactRoom(destructive) + compactRoom(adopted) + costlyRoom);
  // What a partial plan leaves out, and the parsers it holds back (no change planned, yet not in line), right under
  // the summary: not folded away among the other warnings, where a reviewer reading "Plan: 1 to create" or "No
  // changes planned: … (see the warning)" would not look.
  const noted = (w: string): boolean => describesPartialPlan(w) || holdsBackParser(w);
  out.addList({
    head: '> [!NOTE]\n',
    items: plan.warnings.filter(noted).map((w) => ({ lead: '> - ', text: w })),
    more: (left) => `> - _…and ${left} more_\n`,
    tail: '\n',
  });
  giveNoted();
  // The lines on project runs and expect checks are shortened, as list entries are, before the counts table is cut:
  // the expect checks name every parser checked, and one add with the table dropped both, uncounted, past the limit.
  const giveTable = out.setAside(table.length);
  out.addList({
    head: '',
    // A blank line between the lines and after them, as paragraphs.
    items: runLines(plan).map((line, i) => ({ lead: i > 0 ? '\n' : '', text: line })),
    more: (left) => `\n_…and ${left} more_\n`,
    tail: '\n',
  });
  giveTable();
  out.add(table);

  // Room for naming every change that regenerates should its details be cut (costly, and named nowhere else).
  const giveBack = out.setAside(costlyRoom);
  out.addList(destructive);
  out.addList(adopted);

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
    items: plan.warnings.filter((w) => !noted(w)).map((w) => ({ lead: '- ', text: w })),
    more: (left) => `- _…and ${left} more_\n`,
    tail: '\n</details>\n\n',
  });

  giveBack();
  // Destructive changes first, then those that regenerate (they cost credits), then the free ones.
  const rank = (c: ResourceChange): number => (c.destructive ? 0 : c.regenerates ? 1 : 2);
  const ordered = [...plan.resource_changes].sort((x, y) => rank(x) - rank(y));
  const blocks = ordered.map((change) => ({
    bare: renderChangeBlock(change, false),
    full: renderChangeBlock(change, true),
  }));
  // The changes whose details are cut are named in a list after the details, but for the destructive ones (listed,
  // or counted, above). Room for those that regenerate is kept as details are added: each is named before any free one.
  const unnamed = (from: number): ResourceChange[] => ordered.slice(from).filter((c) => !c.destructive);
  const index = (from: number): BoundedList => notShownList(unnamed(from));
  const indexRoom = (from: number): number =>
    from >= ordered.length ? 0 : costlyIndexRoom(unnamed(from).filter((c) => c.regenerates));
  // A change's request bodies are put in only while every later change still fits without its own: a long body
  // (an input list of thousands) never pushes another change out of the comment.
  let later = blocks.reduce((sum, b) => sum + b.bare.length, 0);
  let shown = 0;
  for (const block of blocks) {
    later -= block.bare.length;
    const part = out.fits(block.full.length + later) ? block.full : block.bare;
    if (!out.fits(part.length + indexRoom(shown + 1))) break;
    out.add(part);
    shown++;
  }
  out.cutChanges += ordered.length - shown;
  if (shown < ordered.length) out.addList(index(shown));

  const { cutChanges } = out;
  return `${out.text}${cutNotice(
    [cutChanges > 0 ? `${cutChanges} more ${cutChanges === 1 ? 'change' : 'changes'}` : '', ...listCuts(out)],
    'run `scrapeform plan` for the full plan',
  )}`;
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
      // would show reordering the text around them (Trojan Source): renderJson writes them as escapes, and `\u202e`
      // read back as JSON is the same character, so the body is still what is sent.
      lines.push(
        '',
        `<details><summary>Body of <code>${htmlText(`${r.method} ${r.path}`)}</code></summary>`,
        '',
        '```json',
        ...renderJson(r.body).split('\n'),
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
 * A detail line in a diff block: every line starts with a sign of ours (`!` for a change, `→` for a rename as in the
 * terminal plan, left uncoloured as a free change, a space for context), so no value can close the fence.
 */
function diffLine(detail: DetailLine): string {
  const sign = detail.sign === '~' ? '!' : detail.sign;
  return `${sign}${detail.depth === 1 ? '   ' : ' '}${detail.text}`;
}

/**
 * The changes whose details were cut, but for the destructive ones (the list above names them): those that
 * regenerate first, then the free ones, each on a line of its own, the last cut first should even this not fit.
 */
function notShownList(changes: ResourceChange[]): BoundedList {
  return {
    head: '**Not shown in detail** (cut to fit the comment limit)\n\n',
    items: changes.map((c) => ({ lead: `- ${changeName(c)}`, text: '' })),
    more: (left) =>
      `- _…and ${left} more ${left === 1 ? 'change' : 'changes'} not named here: \`scrapeform show\` on the saved plan (the Action's \`plan-file\`) lists every one_\n`,
    tail: '\n',
  };
}

/** The room notShownList takes to name `changes` (those that regenerate), with a line counting any others. */
function costlyIndexRoom(changes: ResourceChange[]): number {
  return compactRoom(notShownList(changes));
}

/**
 * The destructive changes, each with what consumers lose (a replace's new parser id, a delete's versions, an archive
 * that cannot be undone), said here once, as the terminal plan says it, not again in the breaking list.
 */
function destructiveList(changes: ResourceChange[]): BoundedList {
  const n = changes.length;
  return {
    head: `> [!WARNING]\n> **${n} destructive ${n === 1 ? 'change' : 'changes'}** (need \`--allow-destroy\`):\n`,
    items: changes.map((c) => {
      const text = [...c.reasons, ...c.breaking].join('; ');
      // The id once: a delete's reason already names it.
      const id = c.id !== null && text.includes(String(c.id)) ? '' : idText(c);
      return { lead: `> - ${changeName(c)}${id}: `, text, compact: `> - ${changeName(c)}${idText(c)}` };
    }),
    more: (left) => `> - _…and ${left} more destructive ${left === 1 ? 'change' : 'changes'}_\n`,
    tail: '\n',
  };
}

/** The changes that take over a live object no state manages. */
function adoptedList(changes: ResourceChange[]): BoundedList {
  const a = changes.length;
  return {
    head: `> [!IMPORTANT]\n> **${a} live ${a === 1 ? 'object' : 'objects'} taken over by name** that no state manages (need \`--allow-adopt\` or \`adopt: true\`; another state may manage ${a === 1 ? 'it' : 'them'}):\n`,
    items: changes.map((c) => ({
      lead: `> - ${markdownCode(c.address)} **${c.action}**${idText(c)}`,
      text: '',
    })),
    more: (left) => `> - _…and ${left} more_\n`,
    tail: '\n',
  };
}

/** A change's address and action, and whether it regenerates, as the lists name it. */
function changeName(change: ResourceChange): string {
  return `${markdownCode(change.address)} **${change.action}**${change.regenerates ? ' (regenerates)' : ''}`;
}

function idText(change: ResourceChange): string {
  return change.id !== null ? ` (${markdownCode(String(change.id))})` : '';
}

/** The project-runs and expect-checks lines (describeProjectRuns, describeExpectChecks), raw, or none. */
function runLines(plan: Plan): string[] {
  return [describeProjectRuns(plan), describeExpectChecks(plan)].filter((line) => line !== undefined);
}
