import path from 'node:path';
import { DEFAULT_API_KEY_ENV } from '../model/vocabulary.js';
import type { Diagnostic } from './diagnostic.js';
import { otherEnvironmentsState } from './environment-states.js';
import type { GivenState } from './environment-states.js';
import { inProject } from './environment-reach.js';
import type { Environment } from './interpolate.js';
import type { ObjectSource } from './object-source.js';
import { at } from './rules.js';
import type { WrittenConfig, WrittenEnvironment } from './schemas.js';

/**
 * What a run is given besides the chosen environment: flags (`--state`, `--workspace`, `--api-key-env`), or a
 * library caller's options, which win over the environment's settings.
 */
export interface GivenSettings extends GivenState {
  apiKeyEnv?: string | undefined;
}

/**
 * What the run is given that belongs to another environment of scrapeform.yaml: its state, or the variable holding
 * its key. Each is refused at that environment, before anything is sent.
 */
export function givenToOtherEnvironment(
  config: WrittenConfig,
  place: ObjectSource,
  folder: string,
  env: Environment,
  chosen: { name: string; environment: WrittenEnvironment },
  given: GivenSettings,
  varFiles: readonly string[] = [],
): Diagnostic[] {
  return [
    ...otherEnvironmentsState(config, place, folder, env, chosen, given),
    ...otherEnvironmentsKey(config, place, chosen, given.apiKeyEnv),
    ...otherEnvironmentsVarFiles(config, place, folder, chosen, varFiles),
  ];
}

/**
 * A `--var-file` that is one of another environment's `varFiles` and none of the chosen one's: its values win over
 * the chosen environment's own (they come last), so this environment would be planned with the other's values (a
 * mis-set CI variable, `--var-file "$VARS"`): other objects declared, each created in this account (30,000 credits a
 * parser), and every parser reading a changed scraping parameter replaced. A file both environments list is shared
 * on purpose; one no environment lists is the run's own.
 */
function otherEnvironmentsVarFiles(
  config: WrittenConfig,
  place: ObjectSource,
  folder: string,
  chosen: { name: string; environment: WrittenEnvironment },
  varFiles: readonly string[],
): Diagnostic[] {
  const listed = (environment: WrittenEnvironment): Set<string> =>
    new Set((environment.varFiles ?? []).map((written) => path.resolve(inProject(folder, written))));
  const own = listed(chosen.environment);
  return varFiles.flatMap((file) => {
    const resolved = path.resolve(file);
    if (own.has(resolved)) return [];
    const other = Object.entries(config.environments ?? {}).find(
      ([name, environment]) => name !== chosen.name && listed(environment).has(resolved),
    );
    if (other === undefined) return [];
    const [name, environment] = other;
    const index = (environment.varFiles ?? []).findIndex(
      (w) => path.resolve(inProject(folder, w)) === resolved,
    );
    return [
      at(
        place,
        ['environments', name, 'varFiles', index],
        'value',
        'environment.var-file-of-other',
        `--var-file ${file} is a var file of environment "${name}", and this run is for environment "${chosen.name}": ${name}'s values would be planned in ${chosen.name}'s account`,
        {
          hint: `leave --var-file out to use the varFiles of environment "${chosen.name}", or choose --env ${name}`,
        },
      ),
    ];
  });
}

/**
 * `--api-key-env` naming the key variable of another environment (its `apiKeyEnv`, or SCRAPERAPI_API_KEY for one
 * that names none) and not the chosen one's: the chosen environment's objects would be read with the other
 * account's key, found missing there, and created again in that account (30,000 credits a parser) under the
 * chosen environment's state, which then loses track of its own. Two environments naming one variable share an
 * account, and that is theirs to decide.
 */
function otherEnvironmentsKey(
  config: WrittenConfig,
  place: ObjectSource,
  chosen: { name: string; environment: WrittenEnvironment },
  apiKeyEnv: string | undefined,
): Diagnostic[] {
  const own = chosen.environment.apiKeyEnv ?? DEFAULT_API_KEY_ENV;
  if (apiKeyEnv === undefined || apiKeyEnv === own) return [];
  const other = Object.entries(config.environments ?? {}).find(
    ([name, environment]) =>
      name !== chosen.name && (environment.apiKeyEnv ?? DEFAULT_API_KEY_ENV) === apiKeyEnv,
  );
  if (other === undefined) return [];
  const [name, environment] = other;
  return [
    at(
      place,
      environment.apiKeyEnv !== undefined ? ['environments', name, 'apiKeyEnv'] : ['environments', name],
      environment.apiKeyEnv !== undefined ? 'value' : 'key',
      'environment.key-of-other',
      `--api-key-env ${apiKeyEnv} holds the key of environment "${name}", and this run is for environment "${chosen.name}": ${chosen.name}'s objects would be read in ${name}'s account, and those not found there created again in it`,
      {
        hint: `leave --api-key-env out to use ${own}, the key variable of environment "${chosen.name}", or choose --env ${name}`,
      },
    ),
  ];
}
