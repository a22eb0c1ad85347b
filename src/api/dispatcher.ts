import { createRequire } from 'node:module';
import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';
import { ScrapeformError } from '../errors.js';
import { credentialsHidden, readableUrl } from '../model/state-url.js';

/** Whether the environment names a proxy (HTTP_PROXY / HTTPS_PROXY, either case). */
export function proxyConfigured(env: Readonly<Record<string, string | undefined>>): boolean {
  const { httpProxy, httpsProxy } = proxySettings(env);
  return httpProxy !== '' || httpsProxy !== '';
}

/** The proxy variables as the dispatcher hands them to undici: the lowercase name first, as undici reads them. */
function proxySettings(env: Readonly<Record<string, string | undefined>>): {
  httpProxy: string;
  httpsProxy: string;
  noProxy: string;
} {
  const pick = (name: string): string | undefined => env[name.toLowerCase()] ?? env[name];
  return {
    httpProxy: pick('HTTP_PROXY') ?? '',
    httpsProxy: pick('HTTPS_PROXY') ?? pick('HTTP_PROXY') ?? '',
    noProxy: pick('NO_PROXY') ?? '',
  };
}

/**
 * Creates the dispatcher scrapeform uses when a proxy is configured: keep-alive, a connect timeout, and HTTP(S)_PROXY /
 * NO_PROXY from env. undici is loaded here, on first use: without a proxy the clients use Node's http and https
 * modules (send-request.ts), which spares every command that calls the services the load of undici and most of
 * the CPU a call costs through fetch (deadlines are try-signal.ts's either way).
 */
export function createDispatcher(env: Readonly<Record<string, string | undefined>>): Dispatcher {
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY']) checkProxy(env, name);
  const { EnvHttpProxyAgent } = createRequire(import.meta.url)('undici') as typeof Undici;
  return new EnvHttpProxyAgent({
    ...proxySettings(env),
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
 * Where the dispatcher sends a call to `url` (doctor shows it): the proxy URL as written, `direct` without one, or
 * `no-proxy` when NO_PROXY sends it direct. undici keeps its own choice private, so its rules are read here as
 * EnvHttpProxyAgent applies them: an empty HTTPS_PROXY leaves https to HTTP_PROXY; NO_PROXY `*` only as the whole
 * value; an entry (a leading `.` or `*.` dropped) matches its host and the hosts under it, in any case, and its port,
 * when it names one, the URL's (its scheme's default when it names none). Doctor read `scraperapi.com` as no match
 * for api.scraperapi.com, and `localhost,*` as a match for every host: it named a route the calls did not take.
 */
export function proxyFor(
  env: Readonly<Record<string, string | undefined>>,
  url: URL,
): { proxy: string } | { direct: 'direct' | 'no-proxy' } {
  const { httpProxy, httpsProxy, noProxy } = proxySettings(env);
  const proxy = url.protocol === 'https:' ? httpsProxy || httpProxy : httpProxy;
  if (proxy === '') return { direct: 'direct' };
  return bypassed(url, noProxy) ? { direct: 'no-proxy' } : { proxy };
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

function bypassed(url: URL, noProxy: string): boolean {
  if (noProxy === '*') return true;
  // The host with an IPv6 literal's brackets kept, as NO_PROXY writes it (`[::1]:8080`).
  const host = url.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(url.port, 10) || (DEFAULT_PORTS[url.protocol] ?? 0);
  return noProxy.split(/[,\s]/).some((entry) => {
    if (entry === '') return false;
    const parsed = /^(.+):(\d+)$/.exec(entry);
    const name = (parsed?.[1] ?? entry).replace(/^\*?\./, '').toLowerCase();
    if (parsed?.[2] !== undefined && Number(parsed[2]) !== 0 && Number(parsed[2]) !== port) return false;
    return host === name || host.endsWith(`.${name}`);
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
