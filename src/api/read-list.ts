import * as z from 'zod';
import type { Transport, TransportRequest, TransportResponse } from './transport.js';

/** Pages fetched for one list at most; a list that goes on longer is reported, not cut short. */
export const MAX_LIST_PAGES = 1000;

/**
 * Where a wrapped list answer may hold its items, besides the resource's own name (`parsers`, `projects`,
 * `jobs`). Neither service documents a wrapper or pagination (API-NOTES: the parser list is a bare array; the
 * DataPipeline list is not described), but "a list is not proof of absence" (issue 13): an answer read as empty,
 * or as its first page only, would plan creates for objects that exist. So the common wrappers are read, and
 * nothing else is guessed: an object holding no array under these keys is a bad response.
 */
const ITEM_KEYS = ['data', 'items', 'results'] as const;

/** How the answer says where the next page is. */
type NextPage = { kind: 'url'; url: string } | { kind: 'query'; name: 'page' | 'cursor'; value: string };

/**
 * Reads a whole list: a bare array, or an object holding the array (see ITEM_KEYS), following further pages when
 * the answer says there are more. Paging signals read, in this order:
 * - `next` / `next_page` / `nextPage`: a URL (absolute, or relative to the page just read), a page number (sent as
 *   `page`), or any other string taken as a cursor (sent as `cursor`); null, false or "" mean no more;
 * - `has_more` / `hasMore`: true with a numeric `page` asks for `page + 1`; false means no more;
 * - `page` with `total_pages` / `totalPages`: asks for `page + 1` while it is below the total.
 * Further pages go with the same key placement, and only to the list's own origin. A page asked for twice (a
 * server that ignores the page parameter), an identical page in a row, a "has more" without a way to get it, or
 * more than `maxPages` pages are `api.pagination` errors: a partial list is never returned.
 */
export async function readList<S extends z.ZodType>(
  transport: Transport,
  first: TransportRequest,
  itemSchema: S,
  resourceKey: string,
  maxPages: number = MAX_LIST_PAGES,
): Promise<z.output<S>[]> {
  const items: z.output<S>[] = [];
  const asked = new Set<string>();
  let request = first;
  let previousBody: string | undefined;
  for (let page = 1; ; page++) {
    asked.add(pageKey(request));
    const response = await transport.request(request);
    const { list, path, envelope } = findItems(transport, request, response, resourceKey);
    items.push(...transport.check(request, response, list, z.array(itemSchema), path));
    const next = envelope !== undefined ? findNextPage(transport, request, response, envelope) : undefined;
    if (next === undefined) return items;

    const body = JSON.stringify(response.body);
    if (body === previousBody) {
      throw transport.badResponse(
        request,
        response,
        'the same page came back twice while paging; the list is incomplete and nothing is planned from it',
        'api.pagination',
      );
    }
    previousBody = body;
    if (page >= maxPages) {
      throw transport.badResponse(
        request,
        response,
        `still more pages after ${maxPages}; the list is incomplete and nothing is planned from it`,
        'api.pagination',
      );
    }
    request = nextRequest(transport, first, request, response, next);
    if (asked.has(pageKey(request))) {
      throw transport.badResponse(
        request,
        response,
        `the answer points back to a page already read (${transport.show(pageUrl(request))}); the list is incomplete and nothing is planned from it`,
        'api.pagination',
      );
    }
  }
}

function findItems(
  transport: Transport,
  request: TransportRequest,
  response: TransportResponse,
  resourceKey: string,
): { list: unknown; path: string[]; envelope: Record<string, unknown> | undefined } {
  const body = response.body;
  // Not an object: checked as the bare array the seeds describe, so the message says what was expected.
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { list: body, path: [], envelope: undefined };
  }
  const envelope = body as Record<string, unknown>;
  for (const key of [...ITEM_KEYS, resourceKey]) {
    if (Array.isArray(envelope[key])) return { list: envelope[key], path: [key], envelope };
  }
  throw transport.badResponse(
    request,
    response,
    `field (body): expected an array, or an object holding one under ${[...ITEM_KEYS, resourceKey].join(', ')}`,
  );
}

function findNextPage(
  transport: Transport,
  request: TransportRequest,
  response: TransportResponse,
  envelope: Record<string, unknown>,
): NextPage | undefined {
  for (const key of ['next', 'next_page', 'nextPage']) {
    const value = envelope[key];
    if (value === undefined || value === null || value === false || value === '') continue;
    if (typeof value === 'number' && Number.isInteger(value)) {
      return { kind: 'query', name: 'page', value: String(value) };
    }
    if (typeof value === 'string') {
      if (/^\d+$/.test(value)) return { kind: 'query', name: 'page', value };
      if (/^(https?:\/\/|\/|\?)/i.test(value)) return { kind: 'url', url: value };
      return { kind: 'query', name: 'cursor', value };
    }
    throw transport.badResponse(
      request,
      response,
      `field ${key}: expected a URL, a page number or a cursor, got ${JSON.stringify(value)}; the list is incomplete`,
      'api.pagination',
    );
  }
  const hasMore = envelope.has_more ?? envelope.hasMore;
  const page = readCount(envelope.page);
  if (hasMore === true) {
    if (page !== undefined) return { kind: 'query', name: 'page', value: String(page + 1) };
    throw transport.badResponse(
      request,
      response,
      'the answer says it has more but gives no next page or page number; the list is incomplete and nothing is planned from it',
      'api.pagination',
    );
  }
  if (hasMore === false) return undefined;
  const total = readCount(envelope.total_pages ?? envelope.totalPages);
  if (page !== undefined && total !== undefined && page < total) {
    return { kind: 'query', name: 'page', value: String(page + 1) };
  }
  return undefined;
}

function nextRequest(
  transport: Transport,
  first: TransportRequest,
  current: TransportRequest,
  response: TransportResponse,
  next: NextPage,
): TransportRequest {
  if (next.kind === 'query') {
    return { ...first, query: { ...first.query, [next.name]: next.value } };
  }
  const base = pageUrl(current);
  const target = new URL(next.url, base);
  if (target.origin !== base.origin) {
    // The key goes with every page: a next page elsewhere would receive it.
    throw transport.badResponse(
      current,
      response,
      `the next page is on another origin (${transport.show(target)}); not followed, so the key was not sent there`,
      'api.pagination',
    );
  }
  target.searchParams.delete('api_key');
  return { ...first, url: target.toString(), query: {} };
}

/** The page's URL with its query, without the key. */
function pageUrl(request: TransportRequest): URL {
  const url = new URL(request.url);
  for (const [name, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  url.searchParams.delete('api_key');
  return url;
}

function pageKey(request: TransportRequest): string {
  const url = pageUrl(request);
  url.searchParams.sort();
  return url.toString();
}

function readCount(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  return undefined;
}
