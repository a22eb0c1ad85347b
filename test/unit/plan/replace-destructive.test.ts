import { describe, expect, it } from 'vitest';
import type { LiveParserDetails, LiveParserSummary } from '../../../src/api/live.js';
import type { DesiredParser } from '../../../src/model/desired.js';
import { renderPlanMarkdown } from '../../../src/output/render-plan-markdown.js';
import { decideApproval } from '../../../src/plan/approval.js';
import { buildPlan } from '../../../src/plan/build-plan.js';
import type { Plan } from '../../../src/plan/model.js';
import { plannedRequests } from '../../../src/plan/plan-json.js';
import type { State } from '../../../src/state/model.js';
import { desiredField, desiredParser, exampleUrl } from '../../helpers/desired.js';

/*
 * Every replace deletes the parser it replaces with all its versions. It asks for approval (and prevent_destroy
 * forbids it) unless the parser's one version FAILED: a later latest version means an earlier one may have
 * finished, and consumers may call it pinned.
 */

const fields = [desiredField('title', 'Title', { selector: 'h1' })];
const empty: State = { format_version: 1, serial: 0, lineage: '', resources: {} };

function summary(version: number, status: string): LiveParserSummary {
  return {
    id: 'p-live',
    name: 'shared',
    status,
    error: status === 'FAILED' ? 'boom' : null,
    generated_at: null,
    version,
  };
}

function details(version: number, status: string, urls = [exampleUrl('shared')]): LiveParserDetails {
  return {
    id: 'p-live',
    name: 'shared',
    version,
    status,
    error: status === 'FAILED' ? 'boom' : null,
    createdAt: null,
    generatedAt: null,
    exampleResult: urls.map((url) => ({ url, result: {} })),
    fields: [{ name: 'title', type: 'text' }],
  };
}

function adopting(
  version: number,
  status: string,
  desired: DesiredParser = desiredParser('shared', fields),
  urls?: string[],
): Plan {
  return buildPlan({
    parsers: [desired],
    projects: [],
    state: empty,
    live: {
      parsers: [summary(version, status)],
      details: { 'p-live': details(version, status, urls) },
      projects: [],
    },
  });
}

function only(plan: Plan): Plan['resource_changes'][number] {
  const [c] = plan.resource_changes;
  if (c === undefined || plan.resource_changes.length !== 1) throw new Error('expected exactly one change');
  return c;
}

describe('adopting a live parser whose latest version FAILED', () => {
  it('with earlier versions: the replace deletes them, so it is destructive, says the id changes and is warned of', () => {
    const plan = adopting(1, 'FAILED');
    const c = only(plan);
    expect(c.action).toBe('replace');
    expect(plannedRequests(c).map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /parsers',
      'DELETE /parsers/p-live',
    ]);
    expect(c.destructive).toBe(true);
    expect(c.breaking).toContain('parser id changes (p-live is deleted once the new one is FINISHED)');
    // --allow-adopt alone does not approve the delete.
    expect(decideApproval(plan, { autoApprove: true, allowAdopt: true })).toEqual({
      kind: 'ask',
      destructive: [{ address: 'parser.shared', action: 'replace' }],
      adopted: [],
    });
    expect(renderPlanMarkdown(plan)).toContain('[!WARNING]');
  });

  it('with earlier versions and prevent_destroy: the plan is an error', () => {
    expect(() => adopting(3, 'FAILED', desiredParser('shared', fields, { preventDestroy: true }))).toThrow(
      'parser.shared: lifecycle.prevent_destroy is set, and this plan would delete or replace it',
    );
  });

  it('whose only version (0) FAILED: nothing ever worked, so no approval beyond the adoption is asked', () => {
    const plan = adopting(0, 'FAILED');
    const c = only(plan);
    expect([c.action, c.destructive]).toEqual(['replace', false]);
    expect(decideApproval(plan, { autoApprove: true, allowAdopt: true })).toEqual({ kind: 'approved' });
  });
});

describe('adopting a live parser with other example pages', () => {
  it('is a destructive replace that prevent_destroy forbids', () => {
    const other = ['https://books.example/other/a.html'];
    expect(only(adopting(2, 'FINISHED', undefined, other)).destructive).toBe(true);
    expect(() =>
      adopting(2, 'FINISHED', desiredParser('shared', fields, { preventDestroy: true }), other),
    ).toThrow('parser.shared: lifecycle.prevent_destroy is set, and this plan would delete or replace it');
  });
});

describe('a managed parser no version of which scrapeform saw finish', () => {
  const state: State = {
    format_version: 1,
    serial: 2,
    lineage: 'l',
    resources: {
      'parser.shared': {
        kind: 'Parser',
        id: 'p-live',
        name: 'shared',
        version: null,
        definition: null,
        pending: {
          version: 0,
          definition: { urls: [exampleUrl('shared')], scraperParams: {}, fields },
        },
        descriptionsKnown: true,
      },
    },
  };
  const planFor = (version: number, desired = desiredParser('shared', fields)): Plan =>
    buildPlan({
      parsers: [desired],
      projects: [],
      state,
      live: {
        parsers: [summary(version, 'FAILED')],
        details: { 'p-live': details(version, 'FAILED') },
        projects: [],
      },
    });

  it('whose one version FAILED is created again without approval', () => {
    const c = only(planFor(0));
    expect([c.action, c.destructive]).toEqual(['replace', false]);
  });

  it('with a later version made outside scrapeform that FAILED: drift, and nothing is replaced or deleted', () => {
    // Past the pending create, the version made outside is reconciled as drift against what scrapeform sent (the
    // pending-versions fix): no replace, so nothing that may have worked (version 1) is deleted, and no credits.
    for (const desired of [
      desiredParser('shared', fields),
      desiredParser('shared', fields, { preventDestroy: true }),
    ]) {
      const plan = planFor(2, desired);
      expect(plan.resource_changes).toEqual([]);
      expect(plan.drift.map((d) => d.message)).toEqual([
        'version 2 was made outside scrapeform and FAILED: boom',
      ]);
    }
  });
});
