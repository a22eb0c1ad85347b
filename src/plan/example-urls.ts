/**
 * Example URLs as the parser service may hand them back: the details' `example_result` urls need not be spelled
 * as they were sent (issue 13). The service may reorder them, or normalise each one: lower-case scheme and host,
 * drop a default port, a trailing slash or a fragment, reorder query parameters. A replace costs a new parser id
 * and 30,000 credits, so two lists that differ only in these ways are the same list.
 */
export function sameExampleUrls(a: readonly string[], b: readonly string[]): boolean {
  const left = a.map(normaliseExampleUrl).sort();
  const right = b.map(normaliseExampleUrl).sort();
  return left.length === right.length && left.every((url, i) => url === right[i]);
}

/** One URL in the form compared: what the WHATWG parser makes of it, less the differences above. */
export function normaliseExampleUrl(raw: string): string {
  let url: URL;
  try {
    // The parser lower-cases scheme and host and drops a port that is the scheme's default.
    url = new URL(raw.trim());
  } catch {
    return raw.trim();
  }
  url.hash = '';
  url.searchParams.sort();
  if (url.pathname.length > 1) url.pathname = url.pathname.replace(/\/+$/, '');
  return url.toString();
}
