import { mistypedStateLocation, readStateLocation } from '../model/state-url.js';
import type { Diagnostic } from './diagnostic.js';
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
  const config = project?.parsed;
  if (project !== undefined && (config === undefined || project.place === undefined)) return [];
  const environments = Object.entries(config?.environments ?? {}).filter(
    ([name]) => options.environment === undefined || name === options.environment,
  );
  const declared = Object.keys(config?.environments ?? {}).length > 0;
  const out: Diagnostic[] = [];
  let fromVariable = !declared;
  for (const [name, environment] of environments) {
    if (environment.state === undefined) {
      fromVariable = true;
      continue;
    }
    const problem = problemOf(environment.state);
    if (problem !== undefined && project?.place !== undefined)
      out.push(
        at(
          project.place,
          ['environments', name, 'state'],
          'value',
          'config.state-location',
          problem.message,
          {
            hint: problem.hint,
          },
        ),
      );
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
