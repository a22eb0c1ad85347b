// What a previous apply leaves behind for a set of manifests: the state's resources and the emulator's data dir
// (every parser FINISHED at version 0, every project scheduled hourly), so a plan of them has nothing to do.
// Shared by bench/plan.js and bench/scale.js.
import { projectPayload } from '../../dist/index.js';

/** The state resources and the emulator-state.json content for `loaded` (a loadManifests result). */
export function seedSteadyWorkspace(loaded, key) {
  const now = new Date().toISOString();
  const resources = {};
  const parsers = loaded.parsers.map((p, i) => {
    const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    resources[p.address] = {
      kind: 'Parser',
      id,
      name: p.name,
      version: 0,
      definition: { urls: p.urls, scraperParams: {}, fields: p.fields },
      descriptionsKnown: true,
    };
    const version = { version: 0, status: 'FINISHED', error: null, createdAt: now, generatedAt: now };
    const stored = { ...version, fields: p.fields, compiled: [], exampleResult: [], pages: [] };
    return {
      id,
      name: p.name,
      account: key,
      createdAt: now,
      urls: p.urls,
      scraperParams: {},
      versions: [stored],
    };
  });
  const projects = loaded.projects.map((p, i) => {
    const payload = projectPayload(p);
    resources[p.address] = { kind: 'Project', id: i + 1, name: p.name, definition: payload };
    return {
      id: i + 1,
      account: key,
      name: p.name,
      schedulingEnabled: true,
      scrapingInterval: 'hourly',
      scheduledAt: null,
      createdAt: now,
      projectType: 'urls',
      projectInput: payload.projectInput,
      projectOutput: { type: 'save' },
      webhookOutput: null,
      notificationConfig: { notifyOnSuccess: 'never', notifyOnFailure: 'with_every_run' },
      apiParams: {},
      output_format: 'JSON',
      nextRunAt: null,
      queued: [],
      running: null,
    };
  });
  const emulatorState = {
    accounts: [{ key, credits: 1e9 }],
    parsers,
    projects: { projects, archived: [], jobs: [], nextProjectId: projects.length + 1, nextJobId: 1 },
    clockOffsetMs: 0,
  };
  return { resources, emulatorState };
}
