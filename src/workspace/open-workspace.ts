import { resolveApiConfig } from '../api/config.js';
import type { ApiConfigOptions } from '../api/config.js';
import { createApiClients } from '../api/create-clients.js';
import type { ApiClients } from '../api/create-clients.js';
import type { TransportEvent } from '../api/transport.js';
import { ScrapeformError } from '../errors.js';
import { loadManifests } from '../manifest/load-manifests.js';
import type { LoadedManifests } from '../manifest/load-manifests.js';
import type { StateBackend } from '../state/backend.js';
import { createStateBackend } from '../state/create-backend.js';
import { waitingForLock } from '../state/lock-wait.js';
import type { LockWait } from '../state/lock-wait.js';

/** Where state lives: `--state PATH` or a postgres:// URL (`.scrapeform/state.json` by default), and the workspace. */
export interface StateLocation {
  statePath?: string;
  /** `--workspace NAME` for a database backend. */
  workspace?: string;
  /** `--lock-timeout`: how long taking the lock waits for another run (fails at once when absent). */
  lockWait?: LockWait;
}

export interface ServicesOptions extends Omit<ApiConfigOptions, 'env'>, StateLocation {
  env: Readonly<Record<string, string | undefined>>;
  onTransportEvent?: (event: TransportEvent) => void;
}

export interface WorkspaceOptions extends ServicesOptions {
  paths?: readonly string[];
}

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
}

export function openState(location: StateLocation): OpenState {
  const created = createStateBackend(location.statePath, location.workspace);
  const backend = location.lockWait !== undefined ? waitingForLock(created, location.lockWait) : created;
  return { backend, close: async () => backend.close?.() };
}

/** Clients and state without manifests: for the day-two commands that act on what is already managed. */
export async function openServices(options: ServicesOptions): Promise<Services> {
  const config = await resolveApiConfig(options);
  const clients = createApiClients(config, {
    env: options.env,
    ...(options.onTransportEvent !== undefined ? { onEvent: options.onTransportEvent } : {}),
  });
  const state = openState(options);
  let closed: Promise<void> | undefined;
  return {
    clients,
    warnings: config.warnings,
    backend: state.backend,
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
  const manifests = await loadManifests({ paths: options.paths ?? [], env: options.env });
  if (!manifests.valid) {
    throw new ScrapeformError('manifest.invalid', 'the manifests have errors; nothing was sent', {
      details: { diagnostics: manifests.diagnostics },
      hint: 'fix the problems above (scrapeform validate checks offline)',
    });
  }
  return { manifests, ...(await openServices(options)) };
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
