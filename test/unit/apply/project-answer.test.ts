import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyPlan } from '../../../src/apply/apply-plan.js';
import type { ApplyEvent } from '../../../src/apply/apply-model.js';
import type { ApiClients } from '../../../src/api/create-clients.js';
import type { LiveProject } from '../../../src/api/live.js';
import type { Plan, ProjectUpdate } from '../../../src/plan/model.js';
import { FileStateBackend } from '../../../src/state/file-backend.js';
import type { State } from '../../../src/state/model.js';

/** Issue 13: after a project PATCH apply reads the answer; a field that did not take is warned about and kept. */
const definition = {
  name: 'nightly',
  projectType: 'urls',
  output_format: 'CSV',
  apiParams: { render: true },
};

function planOf(change: ProjectUpdate): Plan {
  return {
    format_version: 1,
    status: 'changes',
    summary: {
      create: 0,
      update: 1,
      replace: 0,
      delete: 0,
      archive: 0,
      adopt: 0,
      regenerations: 0,
      estimated_credits: 0,
    },
    resource_changes: [change],
    drift: [],
    warnings: [],
    fingerprint: { state_lineage: 'l', state_serial: 1, live: {} },
  };
}

async function applyWithAnswer(
  answer: LiveProject,
): Promise<{ state: State; events: ApplyEvent[]; warnings?: string[] }> {
  const backend = new FileStateBackend(
    path.join(await mkdtemp(path.join(tmpdir(), 'sf-answer-')), 'state.json'),
  );
  const state: State = {
    format_version: 1,
    serial: 0,
    lineage: '',
    resources: {
      'project.nightly': {
        kind: 'Project',
        id: 7,
        name: 'nightly',
        definition: { ...definition, output_format: 'JSON', apiParams: {} },
      },
    },
  };
  const written = await backend.write(state);
  const clients = {
    // A read by id (an answer that leaves a field sent out is looked past) finds the project as answered.
    projects: { update: async () => answer, get: async () => answer },
  } as unknown as ApiClients;
  const events: ApplyEvent[] = [];
  const change: ProjectUpdate = {
    kind: 'Project',
    action: 'update',
    address: 'project.nightly',
    name: 'nightly',
    id: 7,
    reasons: [],
    regenerates: false,
    destructive: false,
    field_changes: [],
    breaking: [],
    changed: { output_format: 'CSV', apiParams: { render: true } },
    definition,
  };
  const result = await applyPlan({
    plan: planOf(change),
    clients,
    backend,
    state: written,
    onEvent: (e) => events.push(e),
  });
  expect(result.results[0]?.ok).toBe(true);
  return {
    state: await backend.read(),
    events,
    ...(result.results[0]?.warnings !== undefined ? { warnings: result.results[0].warnings } : {}),
  };
}

describe('reading the answer of a project PATCH', () => {
  it('records what the service holds for a field that did not take, and warns once', async () => {
    const { state, events, warnings } = await applyWithAnswer({
      id: 7,
      name: 'nightly',
      output_format: 'JSON',
      apiParams: { render: true },
    });
    expect(state.resources['project.nightly']).toEqual({
      kind: 'Project',
      id: 7,
      name: 'nightly',
      definition,
      held: { output_format: 'JSON' },
    });
    const message =
      'output_format was sent as "CSV" but the service answered "JSON"; state records what the service holds, and plan does not send it again until the manifest changes';
    expect(warnings).toEqual([message]);
    expect(events.filter((e) => e.type === 'warning')).toEqual([
      { type: 'warning', address: 'project.nightly', message },
    ]);
  });

  it('an answer that leaves the fields out, or reflects them, records nothing held', async () => {
    for (const answer of [{ id: 7 }, { id: 7, outputFormat: 'CSV', apiParams: { render: true } }]) {
      const { state, warnings } = await applyWithAnswer(answer);
      expect(state.resources['project.nightly']).not.toHaveProperty('held');
      expect(warnings).toBeUndefined();
    }
  });
});
