import { readFileSync } from 'node:fs';
import { resolveApiConfig } from '../api/config.js';
import type { ApiConfigOptions, ResolvedApiConfig } from '../api/config.js';
import { createApiClients } from '../api/create-clients.js';
import type { ApiClients } from '../api/create-clients.js';
import type { TransportEvent } from '../api/transport-contract.js';
import { MIN_KEY_LENGTH_IN_DATA } from '../api/redact.js';
import { ScrapeformError } from '../errors.js';
import { hasErrors } from '../manifest/diagnostic.js';
import {
  diagnosticsWithoutKeys,
  keysSet,
  keyVariables,
  valuesDeclared,
} from '../manifest/check-key-values.js';
import type { Diagnostic } from '../manifest/diagnostic.js';
import { loadManifests } from '../manifest/load-manifests.js';
import type { LoadedManifests } from '../manifest/load-manifests.js';
import { selectEnvironment } from '../manifest/project-file.js';
import type { SelectedEnvironment } from '../manifest/project-file.js';
import type { EnvironmentSettings } from '../manifest/project-file.js';
import type { LockInfo, StateBackend } from '../state/backend.js';
import { createStateBackend } from '../state/create-backend.js';
import { waitingForLock } from '../state/lock-wait.js';
import type { LockWait } from '../state/lock-wait.js';
import { reportingStaleLock } from '../state/report-stale-lock.js';
import { checkingEnvironment } from '../state/state-environment.js';

/** Where state lives: `--state PATH` or a postgres:// URL (`.scrapeform/state.json` by default), and the workspace. */
export interface StateLocation {
  statePath?: string;
  /** `--workspace NAME` for a database backend. */
  workspace?: string;
  /** `--lock-timeout`: how long taking the lock waits for another run (fails at once when absent). */
  lockWait?: LockWait;
  /** SCRAPEFORM_STATE_TIMEOUT: how long a state database may take to connect or to answer one query. */
  databaseTimeoutMs?: number;
  /**
   * Called when taking the lock took over the lock of a run that had died on this machine, whatever the command
   * (the CLI warns); the library never prints.
   */
  onStaleLock?: (holder: LockInfo) => void;
}

/** Which environment of scrapeform.yaml to act on (`--env`), and values for its variables (`--var-file`). */
export interface EnvironmentOptions {
  environment?: string | undefined;
  varFiles?: readonly string[] | undefined;
  /** The project file; found in the current folder (or the one folder of `paths`) when left out; false: none. */
  projectFile?: string | false | undefined;
  /** The paths the command reads: one folder given may be the project's. */
  paths?: readonly string[];
}

export interface ServicesOptions extends Omit<ApiConfigOptions, 'env'>, StateLocation, EnvironmentOptions {
  env: Readonly<Record<string, string | undefined>>;
  onTransportEvent?: (event: TransportEvent) => void;
  /** The command's Ctrl-C: no call starts another try after it, and a wait between tries ends (transport.ts). */
  interrupt?: AbortSignal;
}

export type WorkspaceOptions = ServicesOptions;

/** The state backend alone (commands that need no key), closed by `close()`. */
export interface OpenState {
  backend: StateBackend;
  close(): Promise<void>;
}

/** Clients and state for one command run: one owner, and one `close()` that releases both. */
export interface Services extends OpenState {
  clients: ApiClients;
  /** Things the caller should tell the user (a key file others can read); the library never prints them. */
  warnings: string[];
}

/** Services plus the manifests, loaded and valid. */
export interface Workspace extends Services {
  manifests: LoadedManifests;
  /**
   * Reads the manifests again with the options they were read with (set by openWorkspace), diagnostics quoting
   * the run's key nowhere: `drift --accept` checks that its edits made them declare the live values before it
   * records those in state, and `watch` reads them at every run.
   */
  reloadManifests?: () => Promise<LoadedManifests>;
}

export function openState(location: StateLocation): OpenState {
  const created = createStateBackend(
    location.statePath,
    location.workspace,
    location.databaseTimeoutMs !== undefined ? { databaseTimeoutMs: location.databaseTimeoutMs } : {},
  );
  const backend = reportingStaleLock(
    location.lockWait !== undefined ? waitingForLock(created, location.lockWait) : created,
    location.onStaleLock,
  );
  return { backend, close: async () => backend.close?.() };
}

/** The environment asked for, and what the run is given that wins over its settings (flags). */
type EnvironmentChoice = EnvironmentOptions & { env: ServicesOptions['env'] } & Pick<
    StateLocation,
    'statePath' | 'workspace'
  > &
  Pick<ApiConfigOptions, 'apiKeyEnv' | 'apiKeyFile'>;

/**
 * The chosen environment's settings (state, workspace, key variable, service URLs), read from scrapeform.yaml;
 * undefined when the project has no environments. A project with environments needs one chosen.
 */
export function readEnvironmentSettings(options: EnvironmentChoice): EnvironmentSettings | undefined {
  return chosenEnvironment(options, 'nothing was sent').settings;
}

/**
 * The environment chosen in scrapeform.yaml (with its paths and variables), or a `manifest.invalid` error listing
 * the file's problems and saying what was not done (`consequence`): a command never goes on without it. Those
 * problems quote no key: a variable's value refused for its type is quoted, and a var file may hold a key by
 * mistake (checked here, before the manifests are read and their messages cleaned the same way).
 */
export function chosenEnvironment(options: EnvironmentChoice, consequence: string): SelectedEnvironment {
  const selected = selectEnvironment({
    env: options.env,
    paths: options.paths ?? [],
    environment: options.environment,
    varFiles: options.varFiles,
    projectFile: options.projectFile,
    given: { statePath: options.statePath, workspace: options.workspace, apiKeyEnv: options.apiKeyEnv },
  });
  if (hasErrors(selected.diagnostics)) {
    throw new ScrapeformError(
      'manifest.invalid',
      `scrapeform.yaml or the chosen environment has errors; ${consequence}`,
      {
        details: {
          diagnostics: diagnosticsWithoutKeys(
            selected.diagnostics.filter((d) => d.severity === 'error'),
            runKeys(selected, options),
          ),
        },
        hint: 'fix the problems above (scrapeform validate checks offline)',
      },
    );
  }
  return selected;
}

/**
 * The keys this run may hold: those in the variables that hold one (every environment's, and the one named by
 * --api-key-env), and the one in --api-key-file, read here already (best effort: resolveApiConfig reads it later and
 * reports a file it cannot read), since a var file may hold it by mistake before any key is resolved.
 */
function runKeys(selected: SelectedEnvironment, options: EnvironmentChoice): string[] {
  const names = keyVariables(selected.project?.config);
  if (options.apiKeyEnv !== undefined) names.add(options.apiKeyEnv);
  const keys = keysSet(names, options.env).map((k) => k.value);
  const inFile = options.apiKeyFile !== undefined ? keyInFile(options.apiKeyFile) : undefined;
  return inFile !== undefined ? [...keys, inFile] : keys;
}

function keyInFile(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Options with the environment's settings filled in where the caller gave none: what is given explicitly (a
 * flag) wins over the environment, and the environment's service URLs win over SCRAPEFORM_PARSER_URL and
 * SCRAPEFORM_PIPELINE_URL.
 */
export function withEnvironment<T extends ServicesOptions>(
  options: T,
  settings: EnvironmentSettings | undefined,
): T {
  if (settings === undefined) return options;
  return {
    ...options,
    ...(options.statePath === undefined && settings.state !== undefined ? { statePath: settings.state } : {}),
    ...(options.workspace === undefined && settings.workspace !== undefined
      ? { workspace: settings.workspace }
      : {}),
    ...(options.apiKeyEnv === undefined &&
    options.apiKeyFile === undefined &&
    settings.apiKeyEnv !== undefined
      ? { apiKeyEnv: settings.apiKeyEnv }
      : {}),
    env: {
      ...options.env,
      ...(settings.parserUrl !== undefined ? { SCRAPEFORM_PARSER_URL: settings.parserUrl } : {}),
      ...(settings.pipelineUrl !== undefined ? { SCRAPEFORM_PIPELINE_URL: settings.pipelineUrl } : {}),
    },
  };
}

/** Clients and state without manifests: for the day-two commands that act on what is already managed. */
export async function openServices(
  given: ServicesOptions,
  settings: EnvironmentSettings | undefined = readEnvironmentSettings(given),
  resolved?: ResolvedApiConfig,
): Promise<Services> {
  const options = withEnvironment(given, settings);
  const config = resolved ?? (await resolveApiConfig(options));
  const clients = createApiClients(config, {
    env: options.env,
    ...(options.onTransportEvent !== undefined ? { onEvent: options.onTransportEvent } : {}),
    ...(options.interrupt !== undefined ? { interrupt: options.interrupt } : {}),
  });
  const state = openState(options);
  // A state another declared environment last applied is refused at every read (state-environment.ts).
  const backend = checkingEnvironment(state.backend, settings);
  let closed: Promise<void> | undefined;
  return {
    clients,
    warnings: config.warnings,
    backend,
    // Both are closed even when one fails: a database pool left open keeps the process alive.
    close: () =>
      (closed ??= Promise.allSettled([clients.close(), state.close()]).then((outcomes) => {
        const failed = outcomes.find((o) => o.status === 'rejected');
        if (failed !== undefined) throw failed.reason;
      })),
  };
}

/** Loads and validates manifests first (nothing is sent while one is invalid), then opens clients and state. */
export async function openWorkspace(options: WorkspaceOptions): Promise<Workspace> {
  const reloadManifests = (): Promise<LoadedManifests> =>
    loadManifests({
      paths: options.paths ?? [],
      env: options.env,
      environment: options.environment,
      varFiles: options.varFiles,
      projectFile: options.projectFile,
      given: { statePath: options.statePath, workspace: options.workspace, apiKeyEnv: options.apiKeyEnv },
    });
  const manifests = await reloadManifests();
  if (!manifests.valid) {
    throw new ScrapeformError('manifest.invalid', 'the manifests have errors; nothing was sent', {
      details: { diagnostics: await withoutRunKey(manifests, options) },
      hint: 'fix the problems above (scrapeform validate checks offline)',
    });
  }
  const config = await resolveApiConfig(withEnvironment(options, manifests.environment));
  refuseKeyInManifests(manifests, config.apiKey);
  // Read again later (watch, at every run), their diagnostics quote the run's key nowhere either: a bad commit's
  // `${VAR}` holding a key given by --api-key-env or --api-key-file reached the log, /healthz and the notification.
  const reloadWithoutKey = async (): Promise<LoadedManifests> => {
    const reloaded = await reloadManifests();
    return reloaded.valid
      ? reloaded
      : { ...reloaded, diagnostics: withoutKey(reloaded.diagnostics, config.apiKey) };
  };
  return {
    manifests,
    reloadManifests: reloadWithoutKey,
    ...(await openServices(options, manifests.environment, config)),
  };
}

/**
 * The diagnostics of manifests that have errors, quoting the run's key nowhere: loadManifests takes out the value
 * of every key variable, and this the key read some other way (`--api-key-file`, `--api-key-env`), when it can be
 * read: the manifest errors come first, whether or not there is a key.
 */
async function withoutRunKey(manifests: LoadedManifests, options: WorkspaceOptions): Promise<Diagnostic[]> {
  const apiKey = await resolveApiConfig(withEnvironment(options, manifests.environment)).then(
    (config) => config.apiKey,
    () => '',
  );
  return withoutKey(manifests.diagnostics, apiKey);
}

/** Diagnostics quoting this key nowhere; one too short to be told from ordinary text (a test's) is not looked for. */
function withoutKey(diagnostics: readonly Diagnostic[], apiKey: string): Diagnostic[] {
  return apiKey.length < MIN_KEY_LENGTH_IN_DATA
    ? [...diagnostics]
    : diagnosticsWithoutKeys(diagnostics, [apiKey]);
}

/**
 * A declared value that holds the API key (a `${...}` reference to its variable in a webhook URL, say) would be
 * written to state, to saved plans and to every plan's output: refused before anything is sent or written.
 */
function refuseKeyInManifests(manifests: LoadedManifests, apiKey: string): void {
  // A key that short (an emulator's or a test's) would be found in ordinary words; real keys are 32 characters.
  if (apiKey.length < MIN_KEY_LENGTH_IN_DATA) return;
  const holding = [...manifests.parsers, ...manifests.projects].filter(
    (m) => valuesDeclared(m, [{ value: apiKey }]).length > 0,
  );
  if (holding.length === 0) return;
  throw new ScrapeformError(
    'manifest.api-key-in-value',
    `the API key is in a declared value of ${holding.map((m) => `${m.address} (${m.source.file}:${m.source.line})`).join(', ')}; scrapeform writes declared values to state, saved plans and its output, where the key never goes; nothing was sent`,
    {
      hint: 'take the key out of the manifest (a webhook that needs a secret should read it from its own service, not from a reference to the ScraperAPI key)',
    },
  );
}

/** Runs `work` with what was opened and closes it afterwards, whatever happens. */
export async function using<T extends OpenState, R>(
  opened: T | Promise<T>,
  work: (opened: T) => Promise<R>,
): Promise<R> {
  const resource = await opened;
  try {
    return await work(resource);
  } finally {
    await resource.close();
  }
}
