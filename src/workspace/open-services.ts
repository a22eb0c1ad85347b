import { resolveApiConfig } from '../api/config.js';
import { createApiClients } from '../api/create-clients.js';
import type { ApiClients } from '../api/create-clients.js';
import type { TransportEvent } from '../api/transport.js';
import { ScrapeformError } from '../errors.js';
import type { StateBackend } from '../state/backend.js';
import { createStateBackend } from '../state/create-backend.js';
import type { ParserState, ProjectState, State } from '../state/model.js';

export interface ServicesOptions {
  env: Readonly<Record<string, string | undefined>>;
  statePath?: string;
  workspace?: string;
  apiKeyEnv?: string;
  apiKeyFile?: string;
  onTransportEvent?: (event: TransportEvent) => void;
}

export interface Services {
  clients: ApiClients;
  backend: StateBackend;
  close(): Promise<void>;
}

/** Clients and state without manifests: for the day-two commands that act on what is already managed. */
export async function openServices(options: ServicesOptions): Promise<Services> {
  const config = await resolveApiConfig(options);
  const clients = createApiClients(config, {
    env: options.env,
    ...(options.onTransportEvent !== undefined ? { onEvent: options.onTransportEvent } : {}),
  });
  return {
    clients,
    backend: createStateBackend(options.statePath, options.workspace),
    close: () => clients.close(),
  };
}

/** The state entry of a managed parser, or a clear error naming what is managed. */
export function managedParser(state: State, address: string): ParserState {
  const resource = state.resources[normaliseAddress(address, 'parser')];
  if (resource?.kind !== 'Parser') throw notManaged(state, address, 'Parser');
  return resource;
}

export function managedProject(state: State, address: string): ProjectState {
  const resource = state.resources[normaliseAddress(address, 'project')];
  if (resource?.kind !== 'Project') throw notManaged(state, address, 'Project');
  return resource;
}

/** `books-product` is taken as `parser.books-product` (or project.) when the kind is clear from the command. */
function normaliseAddress(address: string, kind: 'parser' | 'project'): string {
  return address.startsWith(`${kind}.`) ? address : `${kind}.${address}`;
}

function notManaged(state: State, address: string, kind: 'Parser' | 'Project'): ScrapeformError {
  const known = Object.entries(state.resources)
    .filter(([, r]) => r.kind === kind)
    .map(([a]) => a);
  return new ScrapeformError('cli.unknown-address', `${address} is not a managed ${kind.toLowerCase()}`, {
    hint:
      known.length > 0
        ? `managed: ${known.join(', ')}`
        : 'nothing is managed yet: run scrapeform apply (or import) first',
  });
}
