import { describe, expect, it } from 'vitest';
import { createColors } from '../../../src/output/colors.js';
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
        regenerationsLeft: 1,
        lastRunAt: 1_735_689_600_000,
        lastRunOk: true,
      }),
    ).toMatchSnapshot();
  });
});
