import path from 'node:path';
import { DEFAULT_STATE_PATH, DEFAULT_WORKSPACE, workspaceStatePath } from '../model/state-location.js';
import { readStateLocation, readableUrl, redactUrl } from '../model/state-url.js';
import type { Diagnostic } from './diagnostic.js';
import type { Environment } from './interpolate.js';
import type { ObjectSource } from './object-source.js';
import { at } from './rules.js';
import type { WrittenConfig, WrittenEnvironment } from './schemas.js';

/** A state file is relative to the project folder (unless absolute); a URL (postgres://) is kept as written. */
export function stateLocation(state: string, folder: string): string {
  return isUrl(state) || path.isAbsolute(state) ? state : path.join(folder, state);
}

function isUrl(location: string): boolean {
  return readStateLocation(location).kind !== 'file';
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
    const { location, workspace } = environmentState(environment, folder, env);
    const key = stateKey(location, workspace);
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
        `environments "${first}" and "${name}" share one state (${shownState(location)}, workspace ${workspace}): each would plan deleting the other's objects`,
        {
          hint: `give each environment its own state: or workspace: (such as environments.${name}.state: .scrapeform/${name}.json)${named ? `; "${name}" names neither, so it uses the default` : ''}; state already written is not moved: keep it with the environment it belongs to`,
        },
      ),
    );
  }
  return out;
}

/** Where the run's state is: `--state` and `--workspace` (or a library caller's), else the environment's. */
export interface GivenState {
  statePath?: string | undefined;
  workspace?: string | undefined;
}

/**
 * A state given besides the environment's (`--state`, `--workspace`) that is another environment's: the chosen
 * environment's manifests would plan deleting the other's objects, and its key would act on them (a mis-set
 * `--state "$STATE"` in a CI job). Refused at the other environment, as config.shared-state is; a state no
 * environment declares (a copy, another workspace) is still taken.
 */
export function otherEnvironmentsState(
  config: WrittenConfig,
  place: ObjectSource,
  folder: string,
  env: Environment,
  chosen: { name: string; environment: WrittenEnvironment },
  given: GivenState,
): Diagnostic[] {
  if (given.statePath === undefined && given.workspace === undefined) return [];
  const own = environmentState(chosen.environment, folder, env);
  const location = given.statePath ?? own.location;
  const workspace = given.workspace ?? own.workspace;
  const key = stateKey(location, workspace);
  const other = Object.entries(config.environments ?? {}).find(([name, environment]) => {
    if (name === chosen.name) return false;
    const theirs = environmentState(environment, folder, env);
    return stateKey(theirs.location, theirs.workspace) === key;
  });
  if (other === undefined) return [];
  const [name] = other;
  return [
    at(
      place,
      ['environments', name],
      'key',
      'environment.state-of-other',
      `the state given (${shownState(location)}, workspace ${workspace}) is environment "${name}"'s, and this run is for environment "${chosen.name}": its manifests would plan deleting ${name}'s objects, and its key act on them`,
      {
        hint: `leave --state and --workspace out to use the state of environment "${chosen.name}", or choose --env ${name}`,
      },
    ),
  ];
}

/**
 * An environment's state and workspace; one that names neither `state:` nor `workspace:` uses the default, as the
 * CLI does (SCRAPEFORM_STATE and SCRAPEFORM_WORKSPACE, else `.scrapeform/state.json` in workspace default).
 */
function environmentState(
  environment: WrittenEnvironment,
  folder: string,
  env: Environment,
): { location: string; workspace: string } {
  return {
    location:
      environment.state !== undefined
        ? stateLocation(environment.state, folder)
        : env.SCRAPEFORM_STATE || DEFAULT_STATE_PATH,
    workspace: environment.workspace ?? (env.SCRAPEFORM_WORKSPACE || DEFAULT_WORKSPACE),
  };
}

/** One text per state reached, however its location is spelled. */
function stateKey(location: string, workspace: string): string {
  const read = readStateLocation(location);
  return read.kind === 'postgres'
    ? `${databaseKey(read.url)}\0${workspace}`
    : read.kind === 'file' || read.kind === 'postgres-not-url'
      ? path.resolve(workspaceStatePath(location, workspace))
      : `${read.shown}\0${workspace}`;
}

/** A location as messages show it: a URL without its password (a state: written as ${VARIABLE} holds it). */
function shownState(location: string): string {
  const read = readStateLocation(location);
  switch (read.kind) {
    case 'file':
      return location;
    case 'postgres':
      return redactUrl(location.trim());
    case 'postgres-not-url':
      return 'postgres: without //';
    default:
      return read.shown;
  }
}

/**
 * The state a PostgreSQL URL reaches, however it is spelled: `postgres://` or `postgresql://`, the host in any case,
 * the port 5432 written or not, the database name percent-encoded or not, the user in the URL or as `?user=`. The
 * login and `options` count: the tables are made in the session's current schema, which the role (a schema of its
 * own name, first in the default search path) or `options=-c search_path=…` chooses, so two environments that log
 * in differently may well hold separate states in one database. Nothing else does: a password, `sslmode`,
 * `application_name` or a timeout reach the same tables. A URL that names no database reaches the one named after
 * its user, as the driver does. A URL that cannot be read is kept as written (the backend refuses it).
 */
function databaseKey(url: string): string {
  const parsed = readableUrl(url);
  if (parsed === undefined) return url;
  const port = parsed.searchParams.get('port') ?? (parsed.port === '' ? '5432' : parsed.port);
  const host = (parsed.searchParams.get('host') ?? parsed.hostname).toLowerCase();
  const user = parsed.searchParams.get('user') ?? decoded(parsed.username);
  const database = decoded(parsed.pathname.replace(/^\//, '')) || user;
  const options = parsed.searchParams.get('options') ?? '';
  return JSON.stringify([host, port, database, user, options]);
}

/** Percent-encoding undone, or the text as written when it is not valid. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
