import { describe, expect, it } from 'vitest';
import type { DesiredParser } from '../../../src/model/desired.js';
import {
  COMMENT_HEADER_RESERVE,
  MARKDOWN_LIMIT,
  renderPlanMarkdown,
} from '../../../src/output/render-plan-markdown.js';
import { buildPlan } from '../../../src/plan/build-plan.js';
import type { LiveSnapshot, Plan, ResourceChange } from '../../../src/plan/model.js';
import type { State } from '../../../src/state/model.js';
import { desiredField, desiredParser } from '../../helpers/desired.js';

/** Parsers applied at version 3: `deleted` of them no manifest declares any more, `changed` declared with a new description. */
function planOf(counts: {
  deleted: number;
  changed?: number;
  created?: string[];
  replaced?: string[];
}): Plan {
  const state: State = { format_version: 1, serial: 1, lineage: 'l', resources: {} };
  const live: LiveSnapshot = { parsers: [], details: {}, projects: [] };
  const parsers: DesiredParser[] = [];
  const apply = (name: string, i: number, declare?: (p: DesiredParser) => DesiredParser): void => {
    const id = `4f3c2b1a-${String(i).padStart(4, '0')}-4e5f-8a9b-0c1d2e3f4a5b`;
    const recorded = desiredParser(name, [desiredField('title', 'Title')]);
    state.resources[`parser.${name}`] = {
      kind: 'Parser',
      id,
      name,
      version: 3,
      definition: { urls: recorded.urls, scraperParams: {}, fields: recorded.fields },
      descriptionsKnown: true,
    };
    live.parsers.push({ id, name, status: 'FINISHED', error: null, generated_at: null, version: 3 });
    if (declare !== undefined) parsers.push(declare(recorded));
  };
  for (let i = 0; i < counts.deleted; i++)
    apply(`catalogue-product-page-parser-number-${String(i).padStart(3, '0')}`, i);
  for (let i = 0; i < (counts.changed ?? 0); i++) {
    apply(`changed-${String(i).padStart(3, '0')}`, 1000 + i, (p) => ({
      ...p,
      fields: [desiredField('title', `Title changed ${i} ${'x'.repeat(400)}`)],
    }));
  }
  for (const [i, name] of (counts.replaced ?? []).entries()) {
    apply(name, 2000 + i, (p) => ({ ...p, urls: ['https://books.example/other.html'] }));
  }
  for (const name of counts.created ?? [])
    parsers.push(desiredParser(name, [desiredField('title', 'Title')]));
  return buildPlan({ parsers, projects: [], state, live });
}

/** How a change is named when its details are cut, or in the destructive list. */
const named = (c: ResourceChange): string =>
  `\`${c.address}\` **${c.action}**${c.regenerates ? ' (regenerates)' : ''}`;

describe('the Markdown plan fits a pull-request comment', () => {
  it('260 deletes: the whole comment, with the room the Action keeps for its header, is under 65,536 characters', () => {
    const plan = planOf({ deleted: 260 });
    expect(plan.summary.delete).toBe(260);
    const markdown = renderPlanMarkdown(plan);
    expect(markdown.length + COMMENT_HEADER_RESERVE).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    // Each delete is listed once, in the destructive list: no second "breaking" list repeats them.
    const first = plan.resource_changes[0]?.address ?? '';
    expect(markdown.split(`\`${first}\` **delete**`)).toHaveLength(2);
    expect(markdown).not.toContain('Breaking for consumers');
    expect(markdown).toContain('**260 destructive changes**');
    // Each entry says what cannot be undone, its id once (the reason names it): all 260 fit whole.
    const listed = markdown.split('\n').filter((l) => l.startsWith('> - `'));
    expect(listed).toHaveLength(260);
    expect(listed[0]).toBe(
      '> - `parser.catalogue-product-page-parser-number-000` **delete**: no manifest declares it any more; parser catalogue-product-page-parser-number-000 (4f3c2b1a-0000-4e5f-8a9b-0c1d2e3f4a5b) is deleted with all its versions',
    );
    expect(markdown).not.toContain('more destructive');
    // The details of the deletes that do not fit are cut; each is named above, so no list names them again.
    expect(markdown).not.toContain('Not shown in detail');
    expect(markdown).toMatch(
      /_…\d+ more changes cut to fit the comment limit; run `scrapeform plan` for the full plan\._\n$/,
    );
  });

  it('a destructive list longer than the comment names each entry compactly, then counts the rest', () => {
    const plan = planOf({ deleted: 260 });
    const markdown = renderPlanMarkdown(plan, 12_000);
    expect(markdown.length).toBeLessThanOrEqual(12_000);
    const listed = markdown.split('\n').filter((l) => l.startsWith('> - `'));
    expect(listed.length).toBeGreaterThan(100);
    expect(listed[0]).toBe(
      '> - `parser.catalogue-product-page-parser-number-000` **delete** (`4f3c2b1a-0000-4e5f-8a9b-0c1d2e3f4a5b`)',
    );
    const left = 260 - listed.length;
    expect(markdown).toContain(`> - _…and ${left} more destructive changes_`);
    expect(markdown).toContain(
      `_…260 more changes, ${left} list entries and part of ${listed.length} list entries cut to fit the comment limit`,
    );
    // The cut never leaves an open details block.
    expect(markdown.split('<details>').length).toBe(markdown.split('</details>').length);
  });
});

describe('a cut comment still names every destructive and every regenerating change', () => {
  it('420 deletes and a create: every delete listed (compactly), the create named though its details are cut', () => {
    const plan = planOf({ deleted: 420, created: ['keep'] });
    const markdown = renderPlanMarkdown(plan);
    expect(markdown.length + COMMENT_HEADER_RESERVE).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    for (const change of plan.resource_changes.filter((c) => c.destructive)) {
      expect(markdown).toContain(`> - ${named(change)} (\`${String(change.id)}\`)\n`);
    }
    expect(markdown).not.toContain('more destructive');
    expect(markdown).not.toContain('<code>parser.keep</code>');
    expect(markdown).toContain(
      '**Not shown in detail** (cut to fit the comment limit)\n\n- `parser.keep` **create** (regenerates)\n\n',
    );
  });

  it('114 regenerating updates, a replace and 5 deletes: each update named, before any free change', () => {
    const plan = planOf({ deleted: 5, changed: 114, replaced: ['moved'] });
    expect(plan.summary).toMatchObject({ update: 114, replace: 1, delete: 5 });
    const markdown = renderPlanMarkdown(plan);
    expect(markdown.length + COMMENT_HEADER_RESERVE).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    // Details in order: the destructive changes, then those that regenerate.
    const details = [...markdown.matchAll(/<summary><code>([^<]+)<\/code>/g)].map((m) => m[1]);
    expect(details.slice(0, 6).sort()).toEqual(
      plan.resource_changes
        .filter((c) => c.destructive)
        .map((c) => c.address)
        .sort(),
    );
    const index = markdown.slice(markdown.indexOf('**Not shown in detail**'));
    const updates = plan.resource_changes.filter((c) => c.action === 'update');
    const cut = updates.filter((c) => !details.includes(c.address));
    expect(cut.length).toBeGreaterThan(10);
    for (const change of cut) expect(index).toContain(`- ${named(change)}\n`);
    expect(index).not.toContain('not named here');
  });

  it('when even the names do not fit, says how many are not named and where every one is', () => {
    const plan = planOf({ deleted: 0, created: Array.from({ length: 300 }, (_, i) => `new-${i}`) });
    const markdown = renderPlanMarkdown(plan, 8_000);
    expect(markdown.length).toBeLessThanOrEqual(8_000);
    const listed = markdown
      .split('\n')
      .filter((l) => /^- `parser\.new-\d+` \*\*create\*\* \(regenerates\)$/.test(l));
    expect(listed.length).toBeGreaterThan(50);
    const shown = markdown.split('<details>').length - 1;
    expect(markdown).toContain(
      `- _…and ${300 - shown - listed.length} more changes not named here: \`scrapeform show\` on the saved plan (the Action's \`plan-file\`) lists every one_\n`,
    );
  });

  it('hundreds of parsers held back: the notes above the table never push out the counts, a delete or a regeneration', () => {
    // Held-back parsers are noted right under the summary, above everything else: written first, they took all the
    // room, and the counts table, the destructive list and the index of regenerating changes went, uncounted or
    // as "…and 1 more destructive change" naming none.
    const plan = planOf({ deleted: 250, created: ['keep'] });
    for (let i = 0; i < 800; i++) {
      const name = `parser.catalogue-page-${String(i).padStart(3, '0')}`;
      plan.warnings.push(`${name}: version 2 is still generating; plan again once it finishes`);
    }
    const markdown = renderPlanMarkdown(plan);
    expect(markdown.length + COMMENT_HEADER_RESERVE).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    expect(markdown).toContain('| 0 | 1 | 0 | 0 | 250 | 0 | 1 |');
    for (const change of plan.resource_changes.filter((c) => c.destructive)) {
      expect(markdown).toContain(`> - ${named(change)}`);
    }
    expect(markdown).not.toContain('more destructive');
    expect(markdown).toContain('- `parser.keep` **create** (regenerates)\n');
    // The notes give way instead, counted where they are cut.
    expect(markdown).toMatch(/> - _…and \d+ more_\n/);
  });
});
