import { mistypedStateLocation, readStateLocation } from '../model/state-url.js';
import type { Diagnostic } from './diagnostic.js';
import { stateLocation } from './environment-states.js';
import type { Environment } from './interpolate.js';
import { findProjectFile, readProjectFile } from './project-file.js';
import { at } from './rules.js';

/** Where a state location came from when it is not written in scrapeform.yaml. */
const STATE_VARIABLE = 'SCRAPEFORM_STATE';

/**
 * What `validate` says of the state locations its environments would open: each one that no backend opens (a
 * PostgreSQL URL mistyped, `postgres//…` or `postgres:` without `//`, a path holding `USER:PASSWORD@`, a URL of
 * another scheme) is an error with the text every command that opens state refuses it with (state/create-backend.ts),
 * its password shown as ***. An environment's `state:` is reported at its line in scrapeform.yaml; one that names
 * none, and a project without environments, use `SCRAPEFORM_STATE`, reported once under that name. Only the
 * environment `--env` names is looked at, when it is given (none for an unknown one); nothing is opened or made. A
 * scrapeform.yaml its schema refuses gives none here: its errors come first.
 */
export function mistypedStateLocations(options: {
  paths: readonly string[];
  env: Environment;
  environment?: string | undefined;
}): Diagnostic[] {
  const file = findProjectFile(options.paths);
  const project = file !== undefined ? readProjectFile(file, options.env) : undefined;
  const out: Diagnostic[] = [];
  let fromVariable = true;
  if (project !== undefined) {
    const { parsed, place, folder } = project;
    if (parsed === undefined || place === undefined) return [];
    const declared = Object.entries(parsed.environments ?? {});
    const checked = declared.filter(
      ([name]) => options.environment === undefined || name === options.environment,
    );
    fromVariable =
      declared.length === 0 || checked.some(([, environment]) => environment.state === undefined);
    for (const [name, environment] of checked) {
      // As the commands open it: a file relative to scrapeform.yaml's folder, a URL (mistyped too) as written.
      const problem =
        environment.state !== undefined ? problemOf(stateLocation(environment.state, folder)) : undefined;
      if (problem !== undefined)
        out.push(
          at(place, ['environments', name, 'state'], 'value', 'config.state-location', problem.message, {
            hint: problem.hint,
          }),
        );
    }
  }
  const variable = options.env[STATE_VARIABLE];
  const problem = fromVariable && variable ? problemOf(variable) : undefined;
  if (problem !== undefined)
    out.push({
      severity: 'error',
      code: 'config.state-location',
      file: STATE_VARIABLE,
      line: 0,
      column: 0,
      path: '',
      message: problem.message,
      hint: problem.hint,
    });
  return out;
}

function problemOf(location: string): { message: string; hint: string } | undefined {
  const where = readStateLocation(location);
  return where.kind === 'postgres' || where.kind === 'file' ? undefined : mistypedStateLocation(where);
}
