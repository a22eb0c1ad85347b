import { describe, expect, it } from 'vitest';
import type { LiveParserDetails, LiveParserSummary, LiveProject } from '../../../src/api/live.js';
import type { DesiredField, DesiredParser } from '../../../src/model/desired.js';
import { createColors } from '../../../src/output/colors.js';
import { renderPlan } from '../../../src/output/render-plan.js';
import {
  COMMENT_HEADER_RESERVE,
  MARKDOWN_LIMIT,
  renderPlanMarkdown,
} from '../../../src/output/render-plan-markdown.js';
import { buildPlan } from '../../../src/plan/build-plan.js';
import type { LiveSnapshot, Plan } from '../../../src/plan/model.js';
import type { State } from '../../../src/state/model.js';
import { desiredParser, desiredProject } from '../../helpers/desired.js';
import { liveProject } from '../../helpers/live.js';

/** Each parser's own page: the hostile names below reach its URL too. */
const parser = (name: string, fields: DesiredField[]): DesiredParser =>
  desiredParser(name, fields, { urls: [`https://books.example/${name}.html`] });

function summary(id: string, name: string, version: number, status = 'FINISHED'): LiveParserSummary {
  return { id, name, status, error: null, generated_at: null, version };
}

const emptyState = (): State => ({ format_version: 1, serial: 1, lineage: 'l', resources: {} });

/** Parser `q` applied with `recorded` at version 0, planned against a manifest declaring `declared`. */
function planOfQ(recorded: DesiredField[], declared: DesiredField[], reassert: string[] = []): Plan {
  const state = emptyState();
  state.resources['parser.q'] = {
    kind: 'Parser',
    id: 'p-q',
    name: 'q',
    version: 0,
    definition: { urls: ['https://books.example/q.html'], scraperParams: {}, fields: recorded },
    descriptionsKnown: true,
  };
  return buildPlan({
    parsers: [parser('q', declared)],
    projects: [],
    state,
    live: { parsers: [summary('p-q', 'q', 0)], details: {}, projects: [] },
    options: { reassert },
  });
}

describe('request bodies in the Markdown plan', () => {
  it('a body too long for the comment is left out, saying so, and pushes no other change out', () => {
    const list = Array.from({ length: 3_000 }, (_, i) => `https://books.example/catalogue/page-${i}.html`);
    const big = desiredProject('all-pages', { projectInput: { type: 'list', list } });
    const plan = buildPlan({
      parsers: [parser('shelf', [{ name: 'title', description: 'Shelf title' }])],
      projects: [big],
      state: emptyState(),
      live: { parsers: [], details: {}, projects: [] },
    });
    const markdown = renderPlanMarkdown(plan);
    expect(markdown.length + COMMENT_HEADER_RESERVE).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    expect(markdown).not.toContain('cut to fit the comment limit');
    const block = (address: string): string => markdown.slice(markdown.indexOf(`<code>${address}</code>`));
    expect(block('project.all-pages')).toMatch(
      /^[^]*?_Request bodies left out to fit the comment limit; `scrapeform plan --json` shows them\._/,
    );
    // The entries are still listed up to the limit, then counted.
    expect(markdown).toContain('+   https://books.example/catalogue/page-19.html');
    expect(markdown).toContain('    … and 2980 more');
    expect(block('parser.shelf').split('\n</details>')[0]).toContain(
      '<details><summary>Body of <code>POST /parsers</code></summary>',
    );
  });
});

/** Names, descriptions and service texts written to break out of a pull-request comment or a terminal. */
const HOSTILE =
  '</details>\n```\n![pixel](https://tracker.example/p.png) @everyone <img src=x onerror=alert(1)>';
const SPOOF = 'real\n- parser.production  delete\u001b[2K\u001b[1A\r';

function hostilePlan() {
  const state = emptyState();
  state.resources['parser.drifted'] = {
    kind: 'Parser',
    id: 'p-drifted',
    name: 'drifted',
    version: 1,
    definition: {
      urls: ['https://books.example/drifted.html'],
      scraperParams: {},
      fields: [{ name: 'title', description: 'Title' }],
    },
    descriptionsKnown: true,
  };
  const details = (id: string, name: string, extra: Partial<LiveParserDetails>): LiveParserDetails => ({
    id,
    name,
    version: 2,
    status: 'FINISHED',
    error: null,
    createdAt: null,
    generatedAt: null,
    exampleResult: [],
    fields: [],
    ...extra,
  });
  const project = desiredProject('crawl', {
    projectInput: { type: 'list', list: ['https://b.example/1'] },
    scrapingInterval: 'daily',
    apiParams: { country_code: HOSTILE },
  });
  const liveCrawl: LiveProject = liveProject(5, 'crawl', {
    projectInput: { type: 'list', list: ['https://b.example/1'] },
    apiParams: { country_code: 'us' },
  });
  return buildPlan({
    parsers: [
      // From manifests: a hostile name (the planner is given it as fixture data, past validation) and description.
      parser(SPOOF, [{ name: 'title', description: HOSTILE, selector: HOSTILE }]),
      parser(HOSTILE, [{ name: 'title', description: 'Title' }]),
      parser('drifted', [{ name: 'title', description: 'Title' }]),
      parser('failed', [{ name: 'title', description: 'Title' }]),
    ],
    projects: [project],
    state,
    live: {
      parsers: [summary('p-drifted', 'drifted', 2), summary('p-failed', 'failed', 0, 'FAILED')],
      details: {
        // From live objects: a field added outside scrapeform, and a service error text.
        'p-drifted': details('p-drifted', 'drifted', {
          exampleResult: [{ url: 'https://books.example/drifted.html', result: {} }],
          fields: [
            { name: 'title', type: 'text' },
            { name: HOSTILE, type: 'text' },
          ],
        }),
        'p-failed': details('p-failed', 'failed', { version: 0, status: 'FAILED', error: HOSTILE }),
      },
      projects: [liveCrawl],
    },
  });
}

describe('hostile text stays text', () => {
  const plan = hostilePlan();

  it('the fixture carries the hostile text into names, descriptions, reasons, drift and project values', () => {
    const all = JSON.stringify(plan);
    expect(plan.resource_changes.map((c) => c.action).sort()).toEqual([
      'create',
      'create',
      'replace',
      'update',
    ]);
    expect(plan.drift.map((d) => d.message)).toEqual([
      `version moved from 1 to 2 outside scrapeform; fields added: ${HOSTILE}`,
    ]);
    expect(all.split(JSON.stringify(HOSTILE).slice(1, -1)).length).toBeGreaterThan(5);
  });

  it('in Markdown: no HTML, image, fence, mention or line break escapes from a value', () => {
    const markdown = renderPlanMarkdown(plan);
    expect(markdown).not.toContain('\u001b');
    expect(markdown).not.toContain('\r');
    // The only fences are ours, opened and closed on lines of their own: a diff, every line inside led by a sign
    // (or a space for context), and request bodies as JSON, every line inside led by JSON's own punctuation.
    const lines = markdown.split('\n');
    const fences = lines.flatMap((l, i) => (/^\s{0,3}(```|~~~)/.test(l) ? [i] : []));
    expect(fences.length % 2).toBe(0);
    const kinds = new Set<string>();
    for (let i = 0; i < fences.length; i += 2) {
      const [open = 0, close = 0] = [fences[i], fences[i + 1]];
      expect(['```diff', '```json']).toContain(lines[open]);
      expect(lines[close]).toBe('```');
      kinds.add(lines[open] ?? '');
      const led = lines[open] === '```diff' ? /^[-+! ] [^`]/ : /^(\s*["{}[\]]|\s+[-\d]|\s+(true|false|null))/;
      for (const inside of lines.slice(open + 1, close)) expect(inside).toMatch(led);
    }
    expect([...kinds].sort()).toEqual(['```diff', '```json']);
    // Outside code (fenced blocks and <code> in the summaries, shown literally), no markup forms from a value.
    const outsideCode = lines
      .filter((_, i) => !fences.some((f, k) => k % 2 === 0 && i >= f && i <= (fences[k + 1] ?? f)))
      .join('\n')
      .replace(/<code>[^\n]*?<\/code>/g, '');
    const opened = lines.filter((l) => l.startsWith('<details>')).length;
    expect(outsideCode.split('</details>').length - 1).toBe(opened);
    expect(outsideCode).not.toContain('<img');
    expect(outsideCode).not.toContain('![');
    expect(outsideCode).not.toMatch(/@everyone/);
    expect(outsideCode.match(/<\/?[a-z]+/g)?.filter((t) => !/^<\/?(details|summary|b)$/.test(t))).toEqual([]);
    // The text is still there, shown: escaped, not dropped.
    expect(markdown).toContain(
      'fields added: &lt;/details&gt;\\\\n\\`\\`\\`\\\\n\\!\\[pixel\\](https://tracker.example/p.png) @\u2060everyone &lt;img',
    );
    expect(markdown).toContain(
      '<summary><code>parser.&lt;/details&gt;\\n```\\n![pixel](https://tracker.example/p.png) @everyone &lt;img src=x onerror=alert(1)&gt;</code>',
    );
  });

  it('for people: a name cannot split, overwrite or colour a line of the plan', () => {
    const text = renderPlan(plan, createColors(false));
    expect(text).not.toContain('\u001b');
    expect(text).not.toContain('\r');
    expect(text.split('\n').some((l) => l.startsWith('- parser.production'))).toBe(false);
    expect(text).toContain('+ parser.real\\n- parser.production  delete\\u001b[2K\\u001b[1A\\r  create');
    // Descriptions are quoted with their quotes and line breaks escaped.
    expect(text).toContain(
      '+ title (selector </details>\\n```\\n![pixel](https://tracker.example/p.png) @everyone <img src=x onerror=alert(1)>): "</details>\\n```\\n![pixel](https://tracker.example/p.png) @everyone <img src=x onerror=alert(1)>"',
    );
  });

  it('a description with quotes inside is quoted with them escaped', () => {
    const quoted = planOfQ(
      [{ name: 'a', description: 'Say "hi"' }],
      [{ name: 'a', description: 'Say "hello"' }],
    );
    expect(renderPlan(quoted, createColors(false))).toContain(
      '~ a: description "Say \\"hi\\"" -> "Say \\"hello\\""',
    );
  });
});

describe('old -> new values of a project update (deep-diff)', () => {
  const project = desiredProject('nightly', {
    projectInput: { type: 'list', list: ['https://b.example/1', 'https://b.example/2'] },
    scrapingInterval: 'weekly',
    webhookOutput: { url: 'https://hooks.example/new', webhookEncoding: 'multipart_form_data_encoding' },
    notificationConfig: { notifyOnSuccess: 'daily', notifyOnFailure: 'with_every_run' },
    apiParams: { country_code: 'de', premium: true },
  });
  const state = emptyState();
  state.resources['project.nightly'] = { kind: 'Project', id: 7, name: 'nightly', definition: {} };
  const live: LiveProject = liveProject(7, 'nightly', {
    projectInput: { type: 'list', list: ['https://b.example/1'] },
    webhookOutput: { url: 'https://hooks.example/old' },
    apiParams: { country_code: 'us', render: true },
  });
  const plan = buildPlan({
    parsers: [],
    projects: [project],
    state,
    live: { parsers: [], details: {}, projects: [live] },
  });

  it('shows each nested value that changes, old and new, for people', () => {
    expect(renderPlan(plan, createColors(false))).toBe(
      [
        'Plan: 1 to update (no regeneration; project runs cost credits per page).',
        'Project runs: the project created, or changed in what or when it scrapes, takes 2 pages a run, paid per page as it runs (not by this apply; public docs: 6 credits a plain page, more with render or premium).',
        '',
        '~ project.nightly (7)  update, 1 call',
        '    # changed: projectInput, scrapingInterval, webhookOutput, notificationConfig, apiParams',
        '    ~ inputs: +1 −0 entries (2 in all)',
        '        + https://b.example/2',
        '    ~ scrapingInterval: "daily" -> "weekly"',
        '    ~ webhookOutput.url: "https://hooks.example/old" -> "https://hooks.example/new"',
        '    + webhookOutput.webhookEncoding: "multipart_form_data_encoding"',
        '    ~ notificationConfig.notifyOnSuccess: "never" -> "daily"',
        '    ~ apiParams.country_code: "us" -> "de"',
        '    - apiParams.render: true',
        '    + apiParams.premium: true',
        // The whole body, broken between values only.
        '    PATCH /api/projects/7',
        '      {',
        '        "projectInput": {"type":"list","list":["https://b.example/1","https://b.example/2"]},',
        '        "scrapingInterval": "weekly",',
        '        "webhookOutput": {"url":"https://hooks.example/new","webhookEncoding":"multipart_form_data_encoding"},',
        '        "notificationConfig": {"notifyOnSuccess":"daily","notifyOnFailure":"with_every_run"},',
        '        "apiParams": {"country_code":"de","premium":true}',
        '      }',
      ].join('\n'),
    );
  });

  it('and in the Markdown diff', () => {
    expect(renderPlanMarkdown(plan)).toContain(
      [
        '```diff',
        '! inputs: +1 −0 entries (2 in all)',
        '+   https://b.example/2',
        '! scrapingInterval: "daily" -> "weekly"',
        '! webhookOutput.url: "https://hooks.example/old" -> "https://hooks.example/new"',
        '+ webhookOutput.webhookEncoding: "multipart_form_data_encoding"',
        '! notificationConfig.notifyOnSuccess: "never" -> "daily"',
        '! apiParams.country_code: "us" -> "de"',
        '- apiParams.render: true',
        '+ apiParams.premium: true',
        '```',
      ].join('\n'),
    );
  });
});

describe('--reassert of an unchanged definition', () => {
  it('shows what is sent, not an empty change', () => {
    const plan = planOfQ([{ name: 'a', description: 'A' }], [{ name: 'a', description: 'A' }], ['parser.q']);
    expect(renderPlan(plan, createColors(false))).toContain(
      '    ~ a: description "A" (reasserted: the service never returned its description)',
    );
  });
});

describe('what cannot be undone, in the Markdown plan as in the terminal plan', () => {
  it('a parser delete and a project archive carry their irreversibility note in the warning block', () => {
    const state = emptyState();
    state.resources['parser.del-me'] = {
      kind: 'Parser',
      id: 'p-del',
      name: 'del-me',
      version: 0,
      definition: { urls: ['https://books.example/del-me.html'], scraperParams: {}, fields: [] },
      descriptionsKnown: true,
    };
    state.resources['project.archive-me'] = { kind: 'Project', id: 1, name: 'archive-me', definition: {} };
    const plan = buildPlan({
      parsers: [],
      projects: [],
      state,
      live: {
        parsers: [summary('p-del', 'del-me', 0)],
        details: {},
        projects: [{ id: 1, name: 'archive-me', projectType: 'urls' }],
      },
    });
    const markdown = renderPlanMarkdown(plan);
    expect(markdown).toContain(
      [
        '> [!WARNING]',
        '> **2 destructive changes** (need `--allow-destroy`):',
        '> - `parser.del-me` **delete**: no manifest declares it any more; parser del-me (p-del) is deleted with all its versions',
        '> - `project.archive-me` **archive** (`1`): no manifest declares it any more; archive cannot be undone through the API',
        '',
        '',
      ].join('\n'),
    );
    // Listed once, above: not again as "breaking".
    expect(markdown).not.toContain('Breaking for consumers');
    // The terminal plan states the same facts.
    const text = renderPlan(plan, createColors(false));
    expect(text).toContain('parser.del-me: parser del-me (p-del) is deleted with all its versions');
    expect(text).toContain('project.archive-me: archive cannot be undone through the API');
  });
});

describe('bidirectional controls (Trojan Source) in the Markdown plan', () => {
  it('are escaped in the request-body JSON as in the diff, so GitHub cannot show the text reordered', () => {
    const description = 'Title \u202eRAEY REP 000,01$ GNIGRAHC\u202c end \u2066x\u2069 \u2028 \u0085';
    const plan = buildPlan({
      parsers: [parser('bidi', [{ name: 'title', description }])],
      projects: [],
      state: emptyState(),
      live: { parsers: [], details: {}, projects: [] },
    });
    const markdown = renderPlanMarkdown(plan);
    expect(markdown).not.toMatch(/[\u0085\u202a-\u202e\u2028\u2066-\u2069]/);
    const escaped = 'Title \\u202eRAEY REP 000,01$ GNIGRAHC\\u202c end \\u2066x\\u2069 \\u2028 \\u0085';
    expect(markdown).toContain(`+ title: "${escaped}"\n`);
    const body = [
      '```json',
      '{',
      '  "name": "bidi",',
      '  "urls": [',
      '    "https://books.example/bidi.html"',
      '  ],',
      '  "fields": [',
      '    {',
      '      "name": "title",',
      `      "description": "${escaped}"`,
      '    }',
      '  ]',
      '}',
      '```',
    ].join('\n');
    expect(markdown).toContain(body);
    // Still the JSON that is sent: the escapes read back as the same characters.
    const json = body.split('\n').slice(1, -1).join('\n');
    expect(JSON.parse(json)).toEqual({
      name: 'bidi',
      urls: ['https://books.example/bidi.html'],
      fields: [{ name: 'title', description }],
    });
  });
});

describe('zero-width characters in names', () => {
  it('are escaped in the terminal and Markdown plans, so two names cannot look identical', () => {
    const names = ['books', 'bo\u200boks', 'boo\u200cks', 'book\u200ds', 'b\u2060ooks', '\ufeffbooks'];
    const plan = buildPlan({
      parsers: names.map((n) => parser(n, [{ name: 'title', description: 'T' }])),
      projects: [],
      state: emptyState(),
      live: { parsers: [], details: {}, projects: [] },
    });
    const human = renderPlan(plan, createColors(false));
    const markdown = renderPlanMarkdown(plan);
    expect(human).not.toMatch(/[\u200b-\u200d\u2060\ufeff]/);
    expect(markdown).not.toMatch(/[\u200b-\u200d\u2060\ufeff]/);
    const shown = ['books', 'bo\\u200boks', 'boo\\u200cks', 'book\\u200ds', 'b\\u2060ooks', '\\ufeffbooks'];
    for (const name of shown) {
      expect(human).toContain(`+ parser.${name}  create`);
      expect(markdown).toContain(`<details><summary><code>parser.${name}</code> <b>create</b>`);
    }
  });
});

describe('list entries are whole unless the comment limit needs room, and any cut is counted', () => {
  /** Parser `q` recorded with `n` fields of long names, declared with none of them: one long breaking entry. */
  function removesMany(
    n: number,
    name = (i: number) => `outside_added_field_number_${String(i).padStart(2, '0')}`,
  ) {
    const fields = Array.from({ length: n }, (_, i) => ({ name: name(i), description: `Field ${i}` }));
    return planOfQ(
      [{ name: 'title', description: 'Title' }, ...fields],
      [{ name: 'title', description: 'Title' }],
    );
  }

  it('a small plan: a breaking entry of 20 removals is listed whole, with no cut and no notice', () => {
    const plan = removesMany(20);
    const entry = plan.resource_changes[0]?.breaking.join('; ') ?? '';
    expect(entry.length).toBeGreaterThan(600);
    const markdown = renderPlanMarkdown(plan);
    expect(markdown).toContain(
      `**Breaking for consumers of the results**\n\n- \`parser.q\`: ${entry.replace(/_/g, '\\_')}\n\n`,
    );
    expect(markdown).toContain('removes outside\\_added\\_field\\_number\\_19\n');
    expect(markdown).not.toContain('cut to fit');
  });

  it('a drift entry longer than 400 characters is listed whole', () => {
    const state = emptyState();
    state.resources['parser.d'] = {
      kind: 'Parser',
      id: 'p-d',
      name: 'd',
      version: 1,
      definition: { urls: ['https://books.example/d.html'], scraperParams: {}, fields: [] },
      descriptionsKnown: true,
    };
    const added = Array.from({ length: 20 }, (_, i) => ({ name: `outside_field_${i}`, type: 'text' }));
    const plan = buildPlan({
      parsers: [parser('d', [])],
      projects: [],
      state,
      live: {
        parsers: [summary('p-d', 'd', 2)],
        details: {
          'p-d': {
            id: 'p-d',
            name: 'd',
            version: 2,
            status: 'FINISHED',
            error: null,
            createdAt: null,
            generatedAt: null,
            exampleResult: [],
            fields: added,
          },
        },
        projects: [],
      },
    });
    const message = plan.drift[0]?.message ?? '';
    expect(message.length).toBeGreaterThan(400);
    const markdown = renderPlanMarkdown(plan);
    expect(markdown).toContain(`- \`parser.d\`: ${message.replace(/_/g, '\\_')}\n\n`);
    expect(markdown).not.toContain('cut to fit');
  });

  it('entries too long for the comment are shortened, each saying how much, all still listed, and counted', () => {
    // Three changes whose breaking entries are each about 9,000 characters, in a comment of 12,000.
    const state = emptyState();
    const parsers: DesiredParser[] = [];
    const live: LiveSnapshot = { parsers: [], details: {}, projects: [] };
    for (const name of ['a', 'b', 'c']) {
      const fields = Array.from({ length: 300 }, (_, i) => ({
        name: `field_${name}_${i}`,
        description: 'F',
      }));
      state.resources[`parser.${name}`] = {
        kind: 'Parser',
        id: `p-${name}`,
        name,
        version: 0,
        definition: { urls: [`https://books.example/${name}.html`], scraperParams: {}, fields },
        descriptionsKnown: true,
      };
      parsers.push(parser(name, [{ name: 'title', description: 'Title' }]));
      live.parsers.push(summary(`p-${name}`, name, 0));
    }
    const plan = buildPlan({ parsers, projects: [], state, live });
    const markdown = renderPlanMarkdown(plan, 12_000);
    expect(markdown.length).toBeLessThanOrEqual(12_000);
    const entries = markdown.split('\n').filter((l) => /^- `parser\.[abc]`: /.test(l));
    expect(entries).toHaveLength(3);
    for (const [i, entry] of entries.entries()) {
      const whole = plan.resource_changes[i]?.breaking.join('; ') ?? '';
      const shown =
        /^- `parser\.[abc]`: (.*)… _\((\d[\d,]*) more characters cut to fit the comment limit\)_$/.exec(
          entry,
        );
      expect(shown).not.toBeNull();
      const [, text = '', left = ''] = shown ?? [];
      // What is shown is the start of the entry, and the count is exactly what is left out.
      const raw = text.replace(/\\_/g, '_');
      expect(whole.startsWith(raw)).toBe(true);
      expect(Number(left.replace(/,/g, ''))).toBe(whole.length - raw.length);
      expect(raw.length).toBeGreaterThan(400);
    }
    expect(markdown).toMatch(
      /_…3 more changes and part of 3 list entries cut to fit the comment limit; run `scrapeform plan` for the full plan\._\n$/,
    );
  });
});
