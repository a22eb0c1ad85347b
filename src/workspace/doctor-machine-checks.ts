import { proxyFor } from '../api/dispatcher.js';
import { credentialsHidden } from '../model/state-url.js';
import type { DoctorCheck, DoctorReport } from '../output/render-doctor.js';

/* Checks of this machine rather than of a service: its clock against the services' and the proxy its calls take. */

/** A clock further off than this is worth a warning: schedules and "generating for" ages are read against it. */
export const CLOCK_SKEW_WARN_MS = 5 * 60_000;

export function clockCheck(skewMs: number | null): DoctorCheck {
  if (skewMs === null)
    return { name: 'clock', status: 'skipped', message: 'no answer carried a Date header' };
  const seconds = Math.round(skewMs / 1000);
  const text =
    seconds === 0
      ? 'in step with the services (within a second)'
      : `${Math.abs(seconds)}s ${seconds > 0 ? 'behind' : 'ahead of'} the services`;
  return Math.abs(skewMs) > CLOCK_SKEW_WARN_MS
    ? {
        name: 'clock',
        status: 'warn',
        message: `this machine is ${text}: set its clock (scheduledAt times and generation ages are read against it)`,
      }
    : { name: 'clock', status: 'ok', message: `this machine is ${text}` };
}

/** Which proxy each service's calls go through, as the dispatcher takes it (dispatcher.ts, proxyFor). */
export function proxyRoute(
  env: Readonly<Record<string, string | undefined>>,
  parserUrl: string,
  pipelineUrl: string,
): DoctorReport['proxy'] {
  const pick = (name: string): string | null => env[name.toLowerCase()] ?? env[name] ?? null;
  const httpProxy = pick('HTTP_PROXY');
  const httpsProxy = pick('HTTPS_PROXY');
  const route = (url: string): string => {
    const taken = proxyFor(env, new URL(url));
    if ('proxy' in taken) return `via ${credentialsHidden(taken.proxy)}`;
    return taken.direct === 'no-proxy' ? 'direct (NO_PROXY)' : 'direct';
  };
  return {
    httpProxy: httpProxy !== null ? credentialsHidden(httpProxy) : null,
    httpsProxy: httpsProxy !== null ? credentialsHidden(httpsProxy) : null,
    noProxy: pick('NO_PROXY'),
    route: { parsers: route(parserUrl), projects: route(pipelineUrl) },
  };
}
