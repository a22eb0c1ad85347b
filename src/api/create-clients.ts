import type { ApiConfig } from './config.js';
import { ParsersClient } from './parsers-client.js';
import { ProjectsClient } from './projects-client.js';
import { createDispatcher, proxyConfigured, Transport } from './transport.js';
import type { TransportOptions } from './transport.js';

export interface ApiClients {
  parsers: ParsersClient;
  projects: ProjectsClient;
  /** Closes the keep-alive connections so the process can exit. */
  close(): Promise<void>;
}

/** Both clients over one transport: Node's own fetch, or with a proxy configured one undici dispatcher for it. */
export function createApiClients(
  config: ApiConfig,
  options: Omit<TransportOptions, 'apiKey' | 'dispatcher'> & {
    env: Readonly<Record<string, string | undefined>>;
  },
): ApiClients {
  const { env, ...transportOptions } = options;
  const dispatcher = proxyConfigured(env) ? createDispatcher(env) : undefined;
  const transport = new Transport({
    ...(config.timeoutMs !== undefined ? { timeoutMs: config.timeoutMs } : {}),
    ...transportOptions,
    apiKey: config.apiKey,
    ...(dispatcher !== undefined ? { dispatcher } : {}),
  });
  return {
    parsers: new ParsersClient(transport, config.parserUrl),
    projects: new ProjectsClient(transport, config.pipelineUrl),
    close: async () => dispatcher?.close(),
  };
}
