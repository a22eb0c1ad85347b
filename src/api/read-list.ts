import * as z from 'zod';
import type { Transport } from './transport.js';
import type { TransportRequest, TransportResponse } from './transport-contract.js';

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

export interface ListOptions<T> {
  /** Pages fetched at most (MAX_LIST_PAGES). */
  maxPages?: number;
  /**
   * Whether a stated total larger than what was read is an error. Yes for the lists an absence plans from (an
   * object left out would be created again); a project's jobs plan nothing, and a `total` or `count` there may
   * count what the list does not hold (every job, not the recent ones).
   */
  totalChecked?: boolean;
  /** An object's identity: listed again, it is kept once. */
  idOf?: (item: T) => unknown;
}

/** How the answer says where the next page is. */
type NextPage =
  { kind: 'url'; url: string } | { kind: 'query'; name: 'page' | 'cursor' | 'offset'; value: string };

/** Keys naming the next page (a URL, a page number or a cursor); Laravel's paginator says `next_page_url`. */
const NEXT_KEYS = ['next', 'next_page', 'nextPage', 'next_page_url', 'nextPageUrl'] as const;
/** Keys naming the page just read, and the last page (or the number of pages). */
const PAGE_KEYS = ['page', 'current_page', 'currentPage'] as const;
const LAST_PAGE_KEYS = [
  'total_pages',
  'totalPages',
  'last_page',
  'lastPage',
  'page_count',
  'pageCount',
] as const;
/** Keys stating how many objects the whole list holds. */
const TOTAL_KEYS = ['total', 'total_count', 'totalCount', 'total_items', 'totalItems', 'count'] as const;
/** Objects inside the envelope where paging is often reported instead (`meta: {last_page}`, `links: {next}`). */
const PAGING_OBJECTS = ['meta', 'pagination', 'paging', 'links'] as const;

/**
 * Reads a whole list: a bare array, or an object holding the array (see ITEM_KEYS), following further pages when
 * the answer says there are more. Paging is read from the envelope and from its `meta`, `pagination`, `paging`
 * and `links` objects, in this order:
 * - a next page (NEXT_KEYS): a URL (absolute, or relative to the page just read), a page number (sent as `page`),
 *   or any other string taken as a cursor (sent as `cursor`); null, false or "" mean no more;
 * - `has_more` / `hasMore`: true with a page number (PAGE_KEYS) asks for the page after it; false means no more;
 * - a page number with the last page or the number of pages (LAST_PAGE_KEYS): asks for the next page while there
 *   is one;
 * - `offset` with a total (TOTAL_KEYS) beyond what was read: asks for the next `offset`.
 * Further pages go with the same key placement, and only to the list's own origin. A page asked for twice (a
 * server that ignores the page parameter), an identical page in a row, a "has more" without a way to get it, or
 * more than `maxPages` pages are `api.pagination` errors, and so is a list whose answer states a total (TOTAL_KEYS)
 * larger than the objects read once no further page is given (paging of a shape not read here): a partial list is
 * never returned, since an object it left out would be created again. With `idOf`, an object listed again (paging
 * while objects are added moves one onto the next page) is kept once, the first time: read twice, it would be two
 * objects of one name, an adoption refused as ambiguous or a create that landed reported as failed; the stated
 * total is then compared with the objects read once, so a duplicate that stands for one left out is still found.
 */
export async function readList<S extends z.ZodType>(
  transport: Transport,
  first: TransportRequest,
  itemSchema: S,
  resourceKey: string,
  options: ListOptions<z.output<S>> = {},
): Promise<z.output<S>[]> {
  const { maxPages = MAX_LIST_PAGES, totalChecked = true, idOf } = options;
  const items: z.output<S>[] = [];
  const ids = new Set<unknown>();
  const asked = new Set<string>();
  let request = first;
  let previousBody: string | undefined;
  for (let page = 1; ; page++) {
    asked.add(pageKey(request));
    const response = await transport.request(request);
    const { list, path, envelope } = findItems(transport, request, response, resourceKey);
    const read = transport.check(request, response, list, z.array(itemSchema), path);
    for (const item of read) {
      if (idOf !== undefined) {
        const id = idOf(item);
        if (ids.has(id)) continue;
        ids.add(id);
      }
      items.push(item);
    }
    const onPage = read.length;
    // Where paging may be said: the envelope and its paging objects, looked through once per page.
    const sources = envelope !== undefined ? pagingSources(envelope) : undefined;
    const next =
      sources !== undefined ? findNextPage(transport, request, response, sources, onPage) : undefined;
    if (next === undefined) {
      const total = sources !== undefined && totalChecked ? statedTotal(sources) : undefined;
      if (total !== undefined && total > items.length) {
        throw transport.badResponse(
          request,
          response,
          `the answer says the list holds ${total} but ${items.length} ${items.length === 1 ? 'was' : 'were'} read, with no next page given in a way scrapeform reads; the list is incomplete and nothing is planned from it`,
          'api.pagination',
        );
      }
      return items;
    }

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
  sources: Record<string, unknown>[],
  onPage: number,
): NextPage | undefined {
  for (const source of sources) {
    for (const key of NEXT_KEYS) {
      const value = source[key];
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
  }
  const hasMore = firstOf(sources, ['has_more', 'hasMore']);
  const page = readCount(firstOf(sources, PAGE_KEYS));
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
  const last = readCount(firstOf(sources, LAST_PAGE_KEYS));
  if (page !== undefined && last !== undefined && page < last) {
    return { kind: 'query', name: 'page', value: String(page + 1) };
  }
  // Offset paging: this page starts at `offset` and holds `onPage` of the `total`.
  const offset = readCount(firstOf(sources, ['offset']));
  const total = statedTotal(sources);
  if (offset !== undefined && total !== undefined && onPage > 0 && offset + onPage < total) {
    return { kind: 'query', name: 'offset', value: String(offset + onPage) };
  }
  return undefined;
}

/** The envelope, then the objects inside it where paging may be reported. */
function pagingSources(envelope: Record<string, unknown>): Record<string, unknown>[] {
  const inside = PAGING_OBJECTS.map((key) => envelope[key]).filter(
    (value): value is Record<string, unknown> =>
      value !== null && typeof value === 'object' && !Array.isArray(value),
  );
  return [envelope, ...inside];
}

/** The first value under one of `keys`, looking through `sources` in order. */
function firstOf(sources: Record<string, unknown>[], keys: readonly string[]): unknown {
  for (const source of sources)
    for (const key of keys) if (source[key] !== undefined && source[key] !== null) return source[key];
  return undefined;
}

/** How many objects the answer says the whole list holds, if it says. */
function statedTotal(sources: Record<string, unknown>[]): number | undefined {
  return readCount(firstOf(sources, TOTAL_KEYS));
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
