import { describe, expect, it } from 'vitest';
import type { Plan, ResourceChange } from '../../../src/plan/model.js';
import { describeProjectRuns, projectRuns, summarisePlan } from '../../../src/output/render-plan.js';
import { summarise } from '../../../src/plan/build-plan.js';

const list = (n: number) => ({
  type: 'list',
  list: Array.from({ length: n }, (_, i) => `https://b.example/${i}`),
});

function planOf(partial: Partial<ResourceChange>[]): Plan {
  const changes = partial.map((c) => ({ reasons: [], regenerates: false, ...c })) as ResourceChange[];
  return {
    format_version: 1,
    status: 'changes',
    summary: summarise(changes),
    resource_changes: changes,
    drift: [],
    warnings: [],
    fingerprint: { state_lineage: '', state_serial: 0, live: {} },
  };
}

/** "no credits" must not read as free while the projects a plan creates or re-targets will scrape pages. */
describe('project runs in the plan summary', () => {
  it('counts creates and updates of what or when a project scrapes, with the pages of one run', () => {
    const plan = planOf([
      { kind: 'Project', action: 'create', address: 'project.a', definition: { projectInput: list(3) } },
      {
        kind: 'Project',
        action: 'create',
        address: 'project.hooked',
        definition: { projectInput: { type: 'webhook_input', url: 'https://l.example/urls' } },
      },
      {
        kind: 'Project',
        action: 'update',
        address: 'project.b',
        changed: { scrapingInterval: 'hourly' },
        definition: { projectInput: list(2) },
      },
      // A webhook output changed scrapes nothing new.
      {
        kind: 'Project',
        action: 'update',
        address: 'project.c',
        changed: { webhookOutput: null },
        definition: { projectInput: list(50) },
      },
    ]);
    expect(projectRuns(plan)).toEqual({ projects: 3, pages: 5, webhookInputs: 1 });
    expect(summarisePlan(plan)).toBe(
      'Plan: 2 to create, 2 to update (no regeneration; project runs cost credits per page).',
    );
    expect(describeProjectRuns(plan)).toBe(
      'Project runs: the 3 projects created, or changed in what or when they scrape, take 5 pages a run plus what a webhook input lists, paid per page as they run (not by this apply; public docs: 6 credits a plain page, more with render or premium).',
    );
  });

  it('says nothing of runs when no project scrapes anew', () => {
    const plan = planOf([
      {
        kind: 'Project',
        action: 'update',
        address: 'project.c',
        changed: { webhookOutput: null },
        definition: { projectInput: list(1) },
      },
    ]);
    expect(summarisePlan(plan)).toBe('Plan: 1 to update (no regeneration, no credits).');
    expect(describeProjectRuns(plan)).toBeUndefined();
  });
});
