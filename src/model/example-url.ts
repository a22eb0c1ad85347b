/**
 * One example page as the parser service may hand its URL back: the details' `example_result` urls need not be
 * spelled as they were sent (issue 13). The service may normalise each one: lower-case scheme and host, drop a
 * default port, a trailing slash or a fragment, reorder query parameters, spell a path's escapes otherwise. Two URLs
 * with the same form here are one page: the planner compares urls by it (plan/example-urls.ts), and validate warns
 * of a page written twice in a manifest's urls by it (manifest/rules.ts).
 */
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
  // RFC 3986 6.2.2: an escape's hex digits in either case, and an unreserved character escaped or not, are one URL.
  url.pathname = url.pathname.replace(/%([0-9a-fA-F]{2})/g, (_escape, hex: string) => {
    const character = String.fromCharCode(parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(character) ? character : `%${hex.toUpperCase()}`;
  });
  if (url.pathname.length > 1) url.pathname = url.pathname.replace(/\/+$/, '');
  return url.toString();
}
