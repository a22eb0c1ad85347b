import path from 'node:path';
import { DEFAULT_STATE_PATH, DEFAULT_WORKSPACE, workspaceStatePath } from '../model/state-location.js';
import type { Diagnostic } from './diagnostic.js';
import type { Environment } from './interpolate.js';
import type { ObjectSource } from './object-source.js';
import { at } from './rules.js';
import type { WrittenConfig } from './schemas.js';

/** A state file is relative to the project folder; a URL (postgres://) is kept as written. */
export function stateLocation(state: string, folder: string): string {
  return isUrl(state) ? state : path.join(folder, state);
}

function isUrl(location: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(location);
}

/**
 * Two environments that resolve to one state would each plan deleting the other's objects, and with separate
 * accounts re-create a parser (30,000 credits) at every switch: refused, at the later environment. An environment
 * that names neither `state:` nor `workspace:` uses the default, as the CLI does (SCRAPEFORM_STATE and
 * SCRAPEFORM_WORKSPACE, else `.scrapeform/state.json` in workspace default). Nothing is moved: existing state
 * stays where it is until the user says which environment it belongs to.
 */
export function sharedStates(
  config: WrittenConfig,
  place: ObjectSource,
  folder: string,
  env: Environment,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Map<string, string>();
  for (const [name, environment] of Object.entries(config.environments ?? {})) {
    const workspace = environment.workspace ?? (env.SCRAPEFORM_WORKSPACE || DEFAULT_WORKSPACE);
    const location =
      environment.state !== undefined
        ? stateLocation(environment.state, folder)
        : env.SCRAPEFORM_STATE || DEFAULT_STATE_PATH;
    const key = isUrl(location)
      ? `${location}\0${workspace}`
      : path.resolve(workspaceStatePath(location, workspace));
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, name);
      continue;
    }
    const named = environment.state === undefined && environment.workspace === undefined;
    out.push(
      at(
        place,
        ['environments', name],
        'key',
        'config.shared-state',
        `environments "${first}" and "${name}" share one state (${location}, workspace ${workspace}): each would plan deleting the other's objects`,
        {
          hint: `give each environment its own state: or workspace: (such as environments.${name}.state: .scrapeform/${name}.json)${named ? `; "${name}" names neither, so it uses the default` : ''}; state already written is not moved: keep it with the environment it belongs to`,
        },
      ),
    );
  }
  return out;
}
