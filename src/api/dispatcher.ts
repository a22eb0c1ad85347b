import { createRequire } from 'node:module';
import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';

/** Whether the environment names a proxy (HTTP_PROXY / HTTPS_PROXY, either case). */
export function proxyConfigured(env: Readonly<Record<string, string | undefined>>): boolean {
  return ['HTTP_PROXY', 'HTTPS_PROXY'].some((name) => (env[name.toLowerCase()] ?? env[name] ?? '') !== '');
}

/**
 * Creates the dispatcher scrapeform uses when a proxy is configured: keep-alive, timeouts, and HTTP(S)_PROXY /
 * NO_PROXY from env. undici is loaded here, on first use: without a proxy the clients use Node's http and https
 * modules (send-request.ts), which spares every command that calls the services the load of undici and most of
 * the CPU a call costs through fetch (deadlines are try-signal.ts's either way).
 */
export function createDispatcher(env: Readonly<Record<string, string | undefined>>): Dispatcher {
  const { EnvHttpProxyAgent } = createRequire(import.meta.url)('undici') as typeof Undici;
  const pick = (name: string): string | undefined => env[name.toLowerCase()] ?? env[name];
  return new EnvHttpProxyAgent({
    httpProxy: pick('HTTP_PROXY') ?? '',
    httpsProxy: pick('HTTPS_PROXY') ?? pick('HTTP_PROXY') ?? '',
    noProxy: pick('NO_PROXY') ?? '',
    keepAliveTimeout: 10_000,
    connect: { timeout: 10_000 },
    headersTimeout: 60_000,
    bodyTimeout: 120_000,
  });
}
