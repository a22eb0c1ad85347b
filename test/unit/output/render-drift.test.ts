import { describe, expect, it } from 'vitest';
import { createColors } from '../../../src/output/colors.js';
import { renderDriftText } from '../../../src/output/render-drift.js';
import { renderMetrics } from '../../../src/output/render-metrics.js';
import { formatsOf, renderOutput } from '../../../src/output/render-output.js';
import type { DriftReport } from '../../../src/plan/drift.js';

const plain = createColors(false);

const report: DriftReport = {
  format_version: 1,
  status: 'drift',
  summary: {
    objects: 3,
    drifted: 2,
    revert: { calls: 2, regenerations: 0, credits: 0 },
    accept: { calls: 0, regenerations: 0, credits: 0 },
  },
  drift: [
    {
      address: 'parser.books',
      kind: 'Parser',
      name: 'books',
      id: 'p-1',
      drift: 'fields',
      message: 'version moved from 0 to 1 outside scrapeform: field price renamed to cost',
      state_version: 0,
      live_version: 1,
      changes: [{ change: 'rename', from: 'price', to: 'cost' }],
      revert: {
        calls: 1,
        regenerations: 0,
        credits: 0,
        requests: [
          {
            method: 'PATCH',
            path: '/parsers/p-1/1',
            body: { rename_fields: [{ name: 'cost', new_name: 'price' }] },
          },
        ],
      },
      accept: { calls: 0, regenerations: 0, credits: 0, possible: true, placeholders: [] },
      accepted: {
        kind: 'Parser',
        id: 'p-1',
        name: 'books',
        version: 1,
        definition: null,
        descriptionsKnown: true,
      },
    },
    {
      address: 'project.nightly',
      kind: 'Project',
      name: 'nightly',
      id: 7,
      drift: 'edited',
      message: 'edited outside scrapeform: scrapingInterval',
      changes: [{ change: 'edit', key: 'scrapingInterval', state: 'daily', live: 'weekly' }],
      revert: {
        calls: 1,
        regenerations: 0,
        credits: 0,
        requests: [{ method: 'PATCH', path: '/api/projects/7', body: { scrapingInterval: 'daily' } }],
      },
      accept: { calls: 0, regenerations: 0, credits: 0, possible: true, placeholders: [] },
    },
  ],
  warnings: [],
};

describe('drift renderers', () => {
  it('offers human, JSON and Markdown', () => {
    expect(formatsOf('drift')).toEqual(['human', 'json', 'markdown']);
  });

  it('human and Markdown', () => {
    expect(renderOutput('drift', 'human', report, plain)).toMatchSnapshot();
    expect(renderOutput('drift', 'markdown', report, plain)).toMatchSnapshot();
    expect(
      renderOutput(
        'drift',
        'human',
        { ...report, status: 'no_drift', drift: [], summary: { ...report.summary, drifted: 0 } },
        plain,
      ),
    ).toBe('No drift: the 3 managed objects match state.');
    expect(
      renderOutput(
        'drift',
        'human',
        { ...report, status: 'no_drift', drift: [], summary: { ...report.summary, drifted: 0, objects: 1 } },
        plain,
      ),
    ).toBe('No drift: the managed object matches state.');
  });

  it('the summary promises accepting only what can be accepted', () => {
    const refused = (at: number): DriftReport => ({
      ...report,
      drift: report.drift.map((d, i) =>
        i <= at ? { ...d, accept: { ...d.accept, possible: false, note: 'kept in state' } } : d,
      ),
    });
    const last = (text: string): string => text.split('\n').at(-1) ?? '';
    expect(last(renderOutput('drift', 'human', report, plain))).toBe(
      'Accept all (scrapeform drift --accept): free, no call',
    );
    expect(last(renderOutput('drift', 'human', refused(0), plain))).toBe(
      'Accept (scrapeform drift --accept): 1 of 2 can be accepted, free, no call',
    );
    expect(last(renderOutput('drift', 'human', refused(1), plain))).toBe(
      'Accept (scrapeform drift --accept): nothing can be accepted (see each object)',
    );
    expect(renderOutput('drift', 'markdown', refused(1), plain)).toContain(
      '**Accept** (`scrapeform drift --accept`): nothing can be accepted (see each object).',
    );
    expect(last(renderDriftText(refused(0)))).toBe(
      'Revert: 2 calls, no regeneration, 0 credits. Accept: 1 of 2 can be accepted, free, no call.',
    );
    expect(last(renderDriftText(report))).toBe(
      'Revert: 2 calls, no regeneration, 0 credits. Accept: free, no call.',
    );
  });

  it('JSON leaves out what accept records (internal)', () => {
    const json = JSON.parse(renderOutput('drift', 'json', report, plain)) as {
      drift: Record<string, unknown>[];
    };
    expect(json.drift.map((d) => 'accepted' in d)).toEqual([false, false]);
    expect(json.drift[0]?.revert).toEqual(report.drift[0]?.revert);
  });

  it('watch metrics in the Prometheus text format', () => {
    expect(
      renderMetrics({
        objects: 3,
        drifted: 1,
        runs: 4,
        failures: 1,
        heals: 1,
        creditsSpent: 30_000,
        notificationsSent: 2,
        notificationsFailed: 1,
        regenerationsLeft: 1,
        lastRunAt: 1_735_689_600_000,
        lastRunOk: true,
      }),
    ).toMatchSnapshot();
  });
});

describe('drift renderers with a hostile live field name', () => {
  // A field renamed through the API: the service takes any name, control characters and bidi overrides included.
  const name =
    'x\u001b[2K\r</details>\n## All good @everyone ![t](http://localhost/p) <img src=x> \u202eevil `code` | cell';
  const shown =
    'x\\u001b[2K\\r</details>\\n## All good @everyone ![t](http://localhost/p) <img src=x> \\u202eevil `code` | cell';
  const [books] = report.drift;
  if (books === undefined) throw new Error('fixture');
  const hostile: DriftReport = {
    ...report,
    summary: { ...report.summary, drifted: 1 },
    drift: [
      {
        ...books,
        message: `version moved from 0 to 1 outside scrapeform: field price renamed to ${name}`,
        changes: [{ change: 'rename', from: 'price', to: name }],
        revert: { ...books.revert, requests: [{ method: 'PATCH', path: '/parsers/p-1/1\u202e' }] },
      },
    ],
    warnings: [`live name ${name}`],
  };

  it('in the terminal, escaped as the plan escapes it: no line forged, nothing cleared or reordered', () => {
    expect(renderOutput('drift', 'human', hostile, plain).split('\n')).toEqual([
      'Drift: 1 of 3 managed objects changed outside scrapeform',
      '',
      `  ~ parser.books (p-1)  version moved from 0 to 1 outside scrapeform: field price renamed to ${shown}`,
      `      field price renamed to ${shown}`,
      '      revert: 1 call, no regeneration, 0 credits (PATCH /parsers/p-1/1\\u202e)',
      '      accept: free, no call',
      '',
      'Revert all (scrapeform apply): 2 calls, no regeneration, 0 credits',
      'Accept all (scrapeform drift --accept): free, no call',
      `warning: live name ${shown}`,
    ]);
  });

  it('in Markdown, text: no HTML, heading, image, mention, bidi override or table cell escapes', () => {
    // Markdown shows `\\u001b` as `\u001b`; the word joiner after `@` stops the mention.
    const text = String.raw`x\\u001b\[2K\\r&lt;/details&gt;\\n## All good @`.concat(
      '\u2060',
      String.raw`everyone \!\[t\](http://localhost/p) &lt;img src=x&gt; \\u202eevil \`code\` \| cell`,
    );
    expect(renderOutput('drift', 'markdown', hostile, plain).split('\n')).toEqual([
      '### scrapeform drift',
      '',
      '1 of 3 managed objects changed outside scrapeform.',
      '',
      '| object | what moved | revert | accept |',
      '| --- | --- | --- | --- |',
      `| \`parser.books\` | version moved from 0 to 1 outside scrapeform: field price renamed to ${text} | 1 call, no regeneration, 0 credits | free, no call |`,
      '',
      '**Revert all** (`scrapeform apply`): 2 calls, no regeneration, 0 credits. **Accept all** (`scrapeform drift --accept`): free, no call.',
      '',
      `> live name ${text}`,
      '',
    ]);
  });

  it('in a notification, on its lines, its tags as text for chat', () => {
    // `@everyone` pings a Discord or Mattermost channel: a zero-width space after the `@` shows the same and pings none.
    const chat = shown
      .replace('</details>', '&lt;/details&gt;')
      .replace('<img src=x>', '&lt;img src=x&gt;')
      .replace('@everyone', '@\u200beveryone');
    expect(renderDriftText(hostile).split('\n')).toEqual([
      'scrapeform: 1 of 3 managed objects changed outside scrapeform',
      `• parser.books: version moved from 0 to 1 outside scrapeform: field price renamed to ${chat}`,
      'Revert: 2 calls, no regeneration, 0 credits. Accept: free, no call.',
    ]);
  });
});
