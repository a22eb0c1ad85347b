/** The statuses that send a request elsewhere. */
export const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** Same-origin redirects followed for one try; more is reported as an error. */
export const MAX_REDIRECTS = 5;

/** What a redirect decision reads of the request. */
export interface RedirectedRequest {
  method: string;
  idempotent: boolean;
  keyIn: 'query' | 'body';
}

/**
 * The next URL of a redirect, or why it is not followed. Only same-origin redirects are followed: another origin
 * would receive the key (in the query, or re-sent in a POST body). A POST or PATCH follows none: a 301/302/303
 * would turn it into a GET, and a 307/308, which keeps the method and body, sends it again where a proxy or the
 * service may have taken it before redirecting (nothing in the seeds or API-NOTES says either service redirects):
 * a create or regeneration sent twice is paid twice. Nor does a request sent only once (a job's cancel, whose
 * refusal after a first try that landed would read as "not running"). Its caller looks for what may have landed instead
 * (mayHaveLanded). Only a GET follows a 303: it names a resource to GET (RFC 9110), and a DELETE sent there would
 * delete that one. None of these refusals is retried: the same request would be redirected the same way. `show`
 * redacts a URL for the message; the key goes into the next URL's query when it travels there.
 */
export function nextHop(
  request: RedirectedRequest,
  current: URL,
  status: number,
  location: string,
  trail: { visited: Set<string>; hop: number; apiKey: string },
  show: (url: URL) => string,
): URL | { refused: string; target?: URL } {
  let target: URL;
  try {
    target = new URL(location, current);
  } catch {
    return { refused: `redirected to an unreadable location ${JSON.stringify(location)}` };
  }
  if (target.origin !== current.origin) {
    return {
      refused: `redirected to another origin, ${show(target)}; not followed, so the key was not sent there`,
      target,
    };
  }
  if (
    (!request.idempotent && status !== 307 && status !== 308) ||
    (status === 303 && request.method !== 'GET')
  ) {
    return {
      refused: `redirected to ${show(target)} with ${status}, which would turn the ${request.method} into a GET; not followed`,
      target,
    };
  }
  if (request.method === 'POST' || request.method === 'PATCH' || !request.idempotent) {
    return {
      refused: `redirected to ${show(target)} with ${status}; not followed, as the ${request.method} may have been taken before it and would be sent twice`,
      target,
    };
  }
  if (request.keyIn === 'query') target.searchParams.set('api_key', trail.apiKey);
  if (trail.visited.has(target.toString())) return { refused: `redirect loop back to ${show(target)}` };
  if (trail.hop >= MAX_REDIRECTS)
    return { refused: `more than ${MAX_REDIRECTS} redirects, the last to ${show(target)}` };
  trail.visited.add(target.toString());
  return target;
}
