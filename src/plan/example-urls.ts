import { normaliseExampleUrl } from '../model/example-url.js';

/**
 * Example URLs as the parser service may hand them back: the details' `example_result` urls need not be spelled
 * as they were sent (issue 13). The service may reorder them, or normalise each one (normaliseExampleUrl, the one
 * form of a page, which validate also uses to warn of a page written twice). A replace costs a new parser id
 * and 30,000 credits, so two lists that differ only in these ways are the same list. A page written twice is one
 * example page: the parser is made from the same pages whether a manifest drops the copy or an answer gives the
 * page once.
 */
export function sameExampleUrls(a: readonly string[], b: readonly string[]): boolean {
  const left = [...new Set(a.map(normaliseExampleUrl))].sort();
  const right = [...new Set(b.map(normaliseExampleUrl))].sort();
  return left.length === right.length && left.every((url, i) => url === right[i]);
}

/**
 * The declared urls a details answer gives no example result for, when every page it does give is declared: the
 * answer may leave a page out (one whose extraction failed, an answer cut short) rather than show a parser made
 * from fewer pages, and nothing in it tells the two apart. Undefined when a page it gives is not declared (the
 * pages really differ) or none is left out.
 */
export function unshownExampleUrls(
  live: readonly string[],
  declared: readonly string[],
): string[] | undefined {
  const shown = new Set(live.map(normaliseExampleUrl));
  const wanted = new Set(declared.map(normaliseExampleUrl));
  if ([...shown].some((url) => !wanted.has(url))) return undefined;
  const unshown = declared.filter((url) => !shown.has(normaliseExampleUrl(url)));
  return unshown.length > 0 ? unshown : undefined;
}
