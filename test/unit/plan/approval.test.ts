import { describe, expect, it } from 'vitest';
import type { LiveParserDetails, LiveProject } from '../../../src/api/live.js';
import type { DesiredParser } from '../../../src/model/desired.js';
import { renderApprovalQuestion } from '../../../src/output/render-approval.js';
import { decideApproval, refusalError } from '../../../src/plan/approval.js';
import type { ApprovalContext } from '../../../src/plan/approval.js';
import { buildPlan } from '../../../src/plan/build-plan.js';
import { adoptsLiveObject } from '../../../src/plan/model.js';
import type { State } from '../../../src/state/model.js';
import { desiredParser, desiredProject, exampleUrl } from '../../helpers/desired.js';
import { liveProject } from '../../helpers/live.js';

const parser = (name: string): DesiredParser =>
  desiredParser(name, [{ name: 'title', description: 'Title' }]);

function details(id: string, name: string, fields: string[]): LiveParserDetails {
  return {
    id,
    name,
    version: 1,
    status: 'FINISHED',
    error: null,
    createdAt: null,
    generatedAt: null,
    exampleResult: [{ url: exampleUrl(name), result: {} }],
    fields: fields.map((f) => ({ name: f, type: 'text' })),
  };
}

const liveNightly: LiveProject = liveProject(9, 'nightly', {
  projectInput: { type: 'list', list: ['https://b.example/0'] },
});

/** `found` is live with the same fields (adopt), `grown` is live with fewer (adopt by an update), and `nightly`
 * is a live project with another list (adopt by an update); `mine` is managed by this state already. */
function adoptingPlan() {
  const state: State = {
    format_version: 1,
    serial: 1,
    lineage: 'l',
    resources: {
      'parser.mine': {
        kind: 'Parser',
        id: 'p-mine',
        name: 'mine',
        version: 1,
        definition: {
          urls: [exampleUrl('mine')],
          scraperParams: {},
          fields: [{ name: 'title', description: 'Old' }],
        },
        descriptionsKnown: true,
      },
    },
  };
  const summary = (id: string, name: string) => ({
    id,
    name,
    status: 'FINISHED',
    error: null,
    generated_at: null,
    version: 1,
  });
  const plan = buildPlan({
    parsers: [parser('found'), parser('grown'), parser('mine')],
    projects: [
      desiredProject('nightly', {
        projectInput: { type: 'list', list: ['https://b.example/1'] },
        scrapingInterval: 'daily',
      }),
    ],
    state,
    live: {
      parsers: [summary('p-found', 'found'), summary('p-grown', 'grown'), summary('p-mine', 'mine')],
      details: {
        'p-found': details('p-found', 'found', ['title']),
        'p-grown': details('p-grown', 'grown', []),
      },
      projects: [liveNightly],
    },
  });
  return { plan, state };
}

const none: ApprovalContext = { managed: new Set(), adoptAllowed: new Set() };

describe('adoption needs consent', () => {
  const { plan, state } = adoptingPlan();
  const managed = new Set(Object.keys(state.resources));

  it('marks every change that takes over a live object, whatever its action', () => {
    expect(plan.resource_changes.map((c) => [c.address, c.action, adoptsLiveObject(c)])).toEqual([
      ['parser.found', 'adopt', true],
      ['parser.grown', 'update', true],
      ['parser.mine', 'update', false],
      ['project.nightly', 'update', true],
    ]);
  });

  it('asks even with --auto-approve, naming each adoption', () => {
    const decision = decideApproval(plan, { autoApprove: true }, { ...none, managed });
    expect(decision).toEqual({
      kind: 'ask',
      destructive: [],
      adopted: [
        { address: 'parser.found', action: 'adopt' },
        { address: 'parser.grown', action: 'update' },
        { address: 'project.nightly', action: 'update' },
      ],
    });
    if (decision.kind !== 'ask') throw new Error('expected a question');
    expect(renderApprovalQuestion(plan, decision)).toBe(
      'This plan takes over live objects no state manages: parser.found (adopt), parser.grown (update), project.nightly (update). Another state may manage them. Apply it?',
    );
    const error = refusalError(decision, false);
    expect([error.code, error.message, error.hint]).toEqual([
      'apply.adopt-not-approved',
      'not applied: the plan has adoptions of live objects no state manages (parser.found (adopt), parser.grown (update), project.nightly (update)); nothing was sent',
      'pass --allow-adopt (or set adopt: true in the manifest) to take them over, after checking no other state manages them',
    ]);
  });

  it('--allow-adopt approves the plan, as --allow-destroy does', () => {
    expect(decideApproval(plan, { allowAdopt: true }, { ...none, managed })).toEqual({ kind: 'approved' });
    expect(decideApproval(plan, { allowDestroy: true }, { ...none, managed }).kind).toBe('ask');
  });

  it('adopt: true in a manifest consents for that object only', () => {
    const decision = decideApproval(
      plan,
      { autoApprove: true },
      { managed, adoptAllowed: new Set(['parser.found', 'project.nightly']) },
    );
    expect(decision).toEqual({
      kind: 'ask',
      destructive: [],
      adopted: [{ address: 'parser.grown', action: 'update' }],
    });
  });

  it('never asks about an address the state holds: our own object, such as a recovered interrupted create', () => {
    const recovered = new Set([...managed, 'parser.found', 'parser.grown', 'project.nightly']);
    expect(decideApproval(plan, { autoApprove: true }, { ...none, managed: recovered })).toEqual({
      kind: 'approved',
    });
  });

  it('a destructive adoption needs both consents, and the refusal names both', () => {
    const { plan: replacing } = (() => {
      const p = parser('found');
      p.urls = [exampleUrl('elsewhere')];
      return {
        plan: buildPlan({
          parsers: [p],
          projects: [],
          state: { format_version: 1, serial: 0, lineage: 'l', resources: {} },
          live: {
            parsers: [
              {
                id: 'p-found',
                name: 'found',
                status: 'FINISHED',
                error: null,
                generated_at: null,
                version: 1,
              },
            ],
            details: { 'p-found': details('p-found', 'found', ['title']) },
            projects: [],
          },
        }),
      };
    })();
    expect(replacing.resource_changes.map((c) => [c.action, c.destructive, adoptsLiveObject(c)])).toEqual([
      ['replace', true, true],
    ]);
    const decision = decideApproval(replacing, { allowDestroy: true }, none);
    expect(decision).toEqual({
      kind: 'ask',
      destructive: [],
      adopted: [{ address: 'parser.found', action: 'replace' }],
    });
    const both = decideApproval(replacing, {}, none);
    if (both.kind !== 'ask') throw new Error('expected a question');
    expect(refusalError(both, true).message).toBe(
      'not applied: the plan has destructive changes (parser.found (replace)) and adoptions of live objects no state manages (parser.found (replace)); nothing was sent',
    );
    expect(decideApproval(replacing, { allowDestroy: true, allowAdopt: true }, none)).toEqual({
      kind: 'approved',
    });
  });
});
