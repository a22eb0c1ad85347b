import path from 'node:path';
import { DEFAULT_STATE_PATH, DEFAULT_WORKSPACE, workspaceStatePath } from '../model/state-location.js';
import { readStateLocation, readableUrl, redactUrl } from '../model/state-url.js';
import type { Diagnostic } from './diagnostic.js';
import type { Environment } from './interpolate.js';
import type { ObjectSource } from './object-source.js';
import { at } from './rules.js';
import type { WrittenConfig } from './schemas.js';

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
    const workspace = environment.workspace ?? (env.SCRAPEFORM_WORKSPACE || DEFAULT_WORKSPACE);
    const location =
      environment.state !== undefined
        ? stateLocation(environment.state, folder)
        : env.SCRAPEFORM_STATE || DEFAULT_STATE_PATH;
    const read = readStateLocation(location);
    const key =
      read.kind === 'postgres'
        ? `${databaseKey(read.url)}\0${workspace}`
        : read.kind === 'other-url'
          ? `${read.shown}\0${workspace}`
          : path.resolve(workspaceStatePath(location, workspace));
    // A URL is shown without its password (a state: written as ${VARIABLE} holds it once expanded).
    const shown =
      read.kind === 'file'
        ? location
        : read.kind === 'postgres-not-url'
          ? 'postgres: without //'
          : redactUrl(location.trim());
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
        `environments "${first}" and "${name}" share one state (${shown}, workspace ${workspace}): each would plan deleting the other's objects`,
        {
          hint: `give each environment its own state: or workspace: (such as environments.${name}.state: .scrapeform/${name}.json)${named ? `; "${name}" names neither, so it uses the default` : ''}; state already written is not moved: keep it with the environment it belongs to`,
        },
      ),
    );
  }
  return out;
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
