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

export interface WorkspaceOptions extends Omit<ApiConfigOptions, 'env'> {
  env: Readonly<Record<string, string | undefined>>;
  paths?: readonly string[];
  /** `--state PATH` or a postgres:// URL; `.scrapeform/state.json` by default. */
  statePath?: string;
  /** `--workspace NAME` for a database backend. */
  workspace?: string;
  onTransportEvent?: (event: TransportEvent) => void;
}

export interface Workspace {
  manifests: LoadedManifests;
  clients: ApiClients;
  backend: StateBackend;
  close(): Promise<void>;
}

/** Loads and validates manifests first (nothing is sent while one is invalid), then builds clients and state. */
export async function openWorkspace(options: WorkspaceOptions): Promise<Workspace> {
  const manifests = await loadManifests({ paths: options.paths ?? [], env: options.env });
  if (!manifests.valid) {
    throw new ScrapeformError('manifest.invalid', 'the manifests have errors; nothing was sent', {
      details: { diagnostics: manifests.diagnostics },
      hint: 'fix the problems above (scrapeform validate checks offline)',
    });
  }
  const config = await resolveApiConfig(options);
  const clients = createApiClients(config, {
    env: options.env,
    ...(options.onTransportEvent !== undefined ? { onEvent: options.onTransportEvent } : {}),
  });
  const backend = createStateBackend(options.statePath, options.workspace);
  return {
    manifests,
    clients,
    backend,
    close: async () => {
      await clients.close();
      await backend.close?.();
    },
  };
}
