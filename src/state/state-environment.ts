import { ScrapeformError } from '../errors.js';
import { overriding } from './backend.js';
import type { StateBackend } from './backend.js';
import type { State } from './model.js';

// The environment of scrapeform.yaml that last applied changes with a state. Two environments that reach one state
// are refused by how their locations are spelled (manifest/environment-states.ts), but one state can be reached by
// spellings no comparison joins: `localhost` and `127.0.0.1`, a PGHOST, `Prod` and `prod` on a disk that ignores
// case, a symbolic link. The name recorded here catches those: a run of one declared environment that finds the
// state of another declared environment stops before it plans, since its manifests would plan deleting the other's
// objects and its key would act on them.

/** The run's environment and the other environments scrapeform.yaml declares. */
export interface RunEnvironment {
  name: string;
  others: readonly string[];
}

/** The environment state records, or undefined: none recorded, or a value of another shape (read as none). */
export function recordedEnvironment(state: State): string | undefined {
  const recorded: unknown = state.environment;
  return typeof recorded === 'string' && recorded !== '' ? recorded : undefined;
}

/** `state` recording `environment` as the one that applied it, or `state` itself when it does already (or none). */
export function withEnvironmentRecorded(state: State, environment: string | undefined): State {
  if (environment === undefined || recordedEnvironment(state) === environment) return state;
  return { ...state, environment };
}

/**
 * Refuses a state that another environment scrapeform.yaml still declares last applied. A state that records an
 * environment no longer declared (renamed, or taken out) is this run's to take: its next apply records the new name.
 */
export function checkStateEnvironment(state: State, run: RunEnvironment, location: string): State {
  const recorded = recordedEnvironment(state);
  if (recorded === undefined || recorded === run.name || !run.others.includes(recorded)) return state;
  throw new ScrapeformError(
    'state.other-environment',
    `the state ${location} was last applied by environment "${recorded}", and this run is for environment "${run.name}": its manifests would plan deleting ${recorded}'s objects, and its key act on them; nothing was changed`,
    {
      hint: `environments "${run.name}" and "${recorded}" reach this one state: check each one's state: and workspace: in scrapeform.yaml (and --state, --workspace, SCRAPEFORM_STATE, PGHOST); if this state is "${run.name}"'s now, rename or remove environment "${recorded}" in scrapeform.yaml, and the next apply records "${run.name}"`,
      details: { recorded, environment: run.name },
    },
  );
}

/** The backend whose every read checks that the state is not another declared environment's (checkStateEnvironment). */
export function checkingEnvironment(backend: StateBackend, run: RunEnvironment | undefined): StateBackend {
  if (run === undefined) return backend;
  return overriding(backend, {
    read: async () => checkStateEnvironment(await backend.read(), run, backend.location),
  });
}
