import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { ApiConfig } from './config.js';
import { ParsersClient } from './parsers-client.js';
import { ProjectsClient } from './projects-client.js';
import { createConnectionPools } from './send-request.js';
import { createDispatcher, proxyConfigured } from './dispatcher.js';
import { Transport } from './transport.js';
import { DEFAULT_TIMEOUT_MS } from './transport-contract.js';
import type { TransportOptions } from './transport-contract.js';

export interface ApiClients {
  parsers: ParsersClient;
  projects: ProjectsClient;
  /**
   * The base URLs called (no key in them): a saved plan records them, and is refused against others. Clients
   * made by createApiClients have them; a plan made with clients put together by hand records no target.
   */
  endpoints?: { parsers: string; projects: string };
  /**
   * The deadline of one request try (`--timeout`), as the transport applies it; DEFAULT_TIMEOUT_MS when left out.
   * A wait gives the look it makes at its deadline this long (LookCutoff).
   */
  timeoutMs?: number;
  /**
   * Which account the key is, as a saved plan records it: the SHA-256 of `salt` and the key, cut to 16 hex digits.
   * With a salt of its own in each plan (drawn from the rest of it) it tells two keys apart and says nothing of
   * either (ACCOUNT_DIGEST_LENGTH). Clients
   * put together by hand have none, and their plans record no account.
   */
  accountDigest?: (salt: string) => string;
  /**
   * The undici dispatcher the calls go through when a proxy is configured (createDispatcher): the command's other
   * posts (`watch --notify`) take it too, so they go the way the calls go. Closed with the clients.
   */
  dispatcher?: Dispatcher;
  /** Closes the keep-alive connections so the process can exit. */
  close(): Promise<void>;
}

/**
 * Both clients over one transport: Node's http and https modules with keep-alive pools of their own, or with a
 * proxy configured fetch through one undici dispatcher.
 */
export function createApiClients(
  config: ApiConfig,
  options: Omit<TransportOptions, 'apiKey' | 'dispatcher' | 'pools'> & {
    env: Readonly<Record<string, string | undefined>>;
  },
): ApiClients {
  const { env, ...transportOptions } = options;
  const dispatcher = proxyConfigured(env) ? createDispatcher(env) : undefined;
  const pools = dispatcher === undefined ? createConnectionPools() : undefined;
  const timeoutMs = transportOptions.timeoutMs ?? config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // Aborted by close: a call still under way then is given up, not tried again. Plan, drift and status list both
  // services at once, and the first 401 of a refused key ends the command while the other list is on the wire:
  // its connection, destroyed by close, read as a network failure and printed `retrying ... (api.network)`
  // before the 401 error, and the retry was sent after the command was over.
  const closing = new AbortController();
  const { interrupt } = transportOptions;
  const transport = new Transport({
    ...transportOptions,
    interrupt: interrupt !== undefined ? AbortSignal.any([interrupt, closing.signal]) : closing.signal,
    timeoutMs,
    apiKey: config.apiKey,
    ...(dispatcher !== undefined ? { dispatcher } : {}),
    ...(pools !== undefined ? { pools } : {}),
  });
  return {
    parsers: new ParsersClient(transport, config.parserUrl),
    projects: new ProjectsClient(transport, config.pipelineUrl),
    endpoints: { parsers: endpointShown(config.parserUrl), projects: endpointShown(config.pipelineUrl) },
    timeoutMs,
    accountDigest: (salt) => accountDigest(salt, config.apiKey),
    ...(dispatcher !== undefined ? { dispatcher } : {}),
    // The command is over: what is still in flight was given up (a try past its deadline). destroy, not close:
    // close waits for it, and a proxy that never answers a tunnel held the process 300 s (undici's own bound).
    close: async () => {
      closing.abort();
      pools?.close();
      await dispatcher?.destroy();
    },
  };
}

/**
 * A base URL as a saved plan records it: no user name, password or query (a URL may carry credentials, and plan
 * files are CI artifacts), no trailing slash.
 */
function endpointShown(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    parsed.search = '';
    parsed.hash = '';
    return parsed.toString().replace(/\/+$/, '');
  } catch {
    return url.replace(/\/\/[^/@]*@/, '//').replace(/[?#].*$/, '');
  }
}

/** How many hex digits of the salted SHA-256 a saved plan keeps of the key: 64 bits, enough to tell keys apart. */
export const ACCOUNT_DIGEST_LENGTH = 16;

function accountDigest(salt: string, apiKey: string): string {
  return createHash('sha256')
    .update(`${salt}:${apiKey}`, 'utf8')
    .digest('hex')
    .slice(0, ACCOUNT_DIGEST_LENGTH);
}
