import { createRequire } from 'node:module';
import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';
import { ScrapeformError } from '../errors.js';
import { credentialsHidden, readableUrl } from '../model/state-url.js';

/** Whether the environment names a proxy (HTTP_PROXY / HTTPS_PROXY, either case). */
export function proxyConfigured(env: Readonly<Record<string, string | undefined>>): boolean {
  return ['HTTP_PROXY', 'HTTPS_PROXY'].some((name) => (env[name.toLowerCase()] ?? env[name] ?? '') !== '');
}

/**
 * Creates the dispatcher scrapeform uses when a proxy is configured: keep-alive, a connect timeout, and HTTP(S)_PROXY /
 * NO_PROXY from env. undici is loaded here, on first use: without a proxy the clients use Node's http and https
 * modules (send-request.ts), which spares every command that calls the services the load of undici and most of
 * the CPU a call costs through fetch (deadlines are try-signal.ts's either way).
 */
export function createDispatcher(env: Readonly<Record<string, string | undefined>>): Dispatcher {
  const pick = (name: string): string | undefined => env[name.toLowerCase()] ?? env[name];
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY']) checkProxy(env, name);
  const { EnvHttpProxyAgent } = createRequire(import.meta.url)('undici') as typeof Undici;
  return new EnvHttpProxyAgent({
    httpProxy: pick('HTTP_PROXY') ?? '',
    httpsProxy: pick('HTTPS_PROXY') ?? pick('HTTP_PROXY') ?? '',
    noProxy: pick('NO_PROXY') ?? '',
    keepAliveTimeout: 10_000,
    connect: { timeout: 10_000 },
    // None of undici's own: each try has its deadline (`--timeout`, try-signal.ts), which calls fetch off. Its
    // 60 s for the headers and 120 s between body chunks cut a longer --timeout short only through a proxy, as a
    // network error: a parse still scraping at 60 s was charged and failed, a create answered late looked lost.
    headersTimeout: 0,
    bodyTimeout: 0,
  });
}

/**
 * A proxy variable undici cannot use is a mistake in the configuration, said before any call with the proxy shown
 * as doctor shows it: a URL without a scheme (`user:pass@host:3128`) or with a `/` or `#` in a password not
 * percent-encoded made undici throw from inside its constructor, reported as a bug in scrapeform.
 */
function checkProxy(env: Readonly<Record<string, string | undefined>>, name: string): void {
  const written = env[name.toLowerCase()] !== undefined ? name.toLowerCase() : name;
  const value = env[written];
  if (value === undefined || value === '') return;
  const url = readableUrl(value);
  if (url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:')) return;
  throw new ScrapeformError('config.proxy', `${written} is not a proxy URL: ${credentialsHidden(value)}`, {
    hint: 'write http://HOST:PORT, or http://USER:PASSWORD@HOST:PORT with a /, #, @ or : in them percent-encoded (%2F, %23, %40, %3A)',
  });
}
