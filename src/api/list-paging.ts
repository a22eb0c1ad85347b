import { isRecord } from '../is-record.js';
import { notAFlag, readFlag } from './read-flag.js';
import type { Transport } from './transport.js';
import type { TransportRequest, TransportResponse } from './transport-contract.js';
import { readCount } from './read-count.js';

/*
 * Where a list answer says its next page is (read-list.ts follows it). Neither service documents paging
 * (API-NOTES), so the common forms are read, and an answer that leaves the end in doubt is asked once more or
 * refused, never read as the whole list: an object on a page not read would be created again (DESIGN: "an answer
 * is never proof of absence by itself").
 */

/** How the answer says where the next page is. */
export type NextPage =
  | { kind: 'url'; url: string }
  | { kind: 'query'; name: 'page' | 'cursor' | 'page_token' | 'offset'; value: string };

/** Keys naming the next page (a URL, a page number or a cursor); Laravel's paginator says `next_page_url`. */
const NEXT_KEYS = ['next', 'next_page', 'nextPage', 'next_page_url', 'nextPageUrl'] as const;
/**
 * Keys naming only the next page's cursor, with the query parameter it goes back in: Slack's and Stripe's
 * `next_cursor` (`?cursor=`), Google's `nextPageToken` (`?page_token=`, which its JSON APIs also take as
 * `pageToken`).
 */
const CURSOR_KEYS = new Map<string, 'cursor' | 'page_token'>([
  ['next_cursor', 'cursor'],
  ['nextCursor', 'cursor'],
  ['next_page_token', 'page_token'],
  ['nextPageToken', 'page_token'],
]);
const POINTER_KEYS = [...NEXT_KEYS, ...CURSOR_KEYS.keys()];
/** The cursor keys alone, for doctor's reading of a list's shape (doctor-list-check.ts). */
export const CURSOR_KEY_NAMES: readonly string[] = [...CURSOR_KEYS.keys()];
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
/** Keys stating how many objects a page holds at most. */
const PAGE_SIZE_KEYS = ['per_page', 'perPage', 'page_size', 'pageSize', 'limit'] as const;
/**
 * Keys stating how many objects the whole list holds. `count` is read last, after `X-Total-Count` too: some APIs
 * put the objects of the page there (Django REST framework's is the list's), so a `count` equal to the objects on a
 * numbered page leaves the end in doubt (findNextPage).
 */
const TOTAL_KEYS = ['total', 'total_count', 'totalCount', 'total_items', 'totalItems'] as const;
/**
 * Objects inside the envelope where paging is often reported instead (`meta: {last_page}`, `links: {next}`,
 * Slack's `response_metadata: {next_cursor}`).
 */
export const PAGING_OBJECTS: readonly string[] = [
  'meta',
  'pagination',
  'paging',
  'links',
  'response_metadata',
];

/** Every key findNextPage and listTotal read, in the envelope and its paging objects (unread-paging.ts skips them). */
export const READ_PAGING_KEYS: ReadonlySet<string> = new Set([
  ...POINTER_KEYS,
  ...PAGE_KEYS,
  ...LAST_PAGE_KEYS,
  ...PAGE_SIZE_KEYS,
  ...TOTAL_KEYS,
  'count',
  'offset',
  'has_more',
  'hasMore',
]);

/** How many objects the answer says the list holds, and whether only a `count` said so (see TOTAL_KEYS). */
export interface ListTotal {
  value: number;
  onlyCount: boolean;
}

/** What one page of a list said, as findNextPage reads it. */
export interface ListPage {
  request: TransportRequest;
  response: TransportResponse;
  /** The envelope and its paging objects (pagingSources); none for a bare array. */
  sources: Record<string, unknown>[];
  /** Objects on this page, and on every page read so far (an object listed again counted once). */
  onPage: number;
  readSoFar: number;
  /** Objects on the first page: the page size when the answer states none. */
  firstPage: number;
  /** The list's stated total (listTotal). */
  total: ListTotal | undefined;
  /** Whether the list must be read whole (ListOptions.totalChecked): a full page that cannot be followed is refused. */
  whole: boolean;
}

/**
 * The next page, or undefined at the end of the list. Read in this order:
 * - a next page in the body (NEXT_KEYS): a URL (absolute, or relative to the page just read), a page number (sent
 *   as `page`), or any other string taken as a cursor (sent as `cursor`); or a cursor alone (CURSOR_KEYS), any
 *   string, sent as its key says; null, false or "" say there is none;
 * - an RFC 8288 `Link` header with `rel="next"` (GitHub's and many others' paging of bare arrays); a `Link`
 *   header without one says there is none;
 * - `has_more` / `hasMore` (also `"true"`, `1`: readHasMore): true with a page number (PAGE_KEYS) asks for the
 *   page after it; false means no more;
 * - a page number with the last page or the number of pages (LAST_PAGE_KEYS): the next page while there is one;
 * - a page number or an `offset` with neither: the next page (`page + 1`, or `offset` plus the objects read) while
 *   the stated total is not reached, or, with no total, while the page is full (PAGE_SIZE_KEYS; with no size
 *   stated, as long as the first page). An empty or shorter page is the last: a full page is no proof of the end.
 *   A `count` alone that equals the objects on the page is no total here: it may be the page's own count.
 * A full page that states its size but no page number, offset, next page or total cannot be followed: an
 * `api.pagination` error for a list that must be read whole.
 */
export function findNextPage(transport: Transport, page: ListPage): NextPage | undefined {
  const { request, response, sources, onPage } = page;
  let endSaid = false;
  for (const source of sources) {
    for (const key of POINTER_KEYS) {
      if (!(key in source)) continue;
      const value = source[key];
      if (value === undefined || value === null || value === false || value === '') {
        endSaid = true;
        continue;
      }
      const next = readNext(key, value);
      if (next !== undefined) return next;
      throw transport.badResponse(
        request,
        response,
        `field ${key}: ${CURSOR_KEYS.has(key) ? 'expected a cursor (a string), or null, false or "" for none' : 'expected a URL, a page number or a cursor'}, got ${JSON.stringify(value)}; the list is incomplete`,
        'api.pagination',
      );
    }
  }
  const links = linkHeader(response);
  if (links !== undefined) {
    const next = links.get('next');
    if (next !== undefined) return { kind: 'url', url: next };
    endSaid = true;
  }
  const hasMore = readHasMore(transport, page, sources);
  const number = readCount(firstOf(sources, PAGE_KEYS));
  if (hasMore === true) {
    if (number !== undefined) return { kind: 'query', name: 'page', value: String(number + 1) };
    throw transport.badResponse(
      request,
      response,
      'the answer says it has more but gives no next page or page number; the list is incomplete and nothing is planned from it',
      'api.pagination',
    );
  }
  if (hasMore === false) refuseContradictedEnd(transport, page, number);
  if (hasMore === false || endSaid) return undefined;
  const last = readCount(firstOf(sources, LAST_PAGE_KEYS));
  if (number !== undefined && last !== undefined) {
    return number < last ? { kind: 'query', name: 'page', value: String(number + 1) } : undefined;
  }
  // Nothing says where the list ends: the stated total, else a page shorter than a full one, does.
  const offset = readCount(firstOf(sources, ['offset']));
  const size = readCount(firstOf(sources, PAGE_SIZE_KEYS));
  if (offset === undefined && number === undefined) {
    if (page.whole && page.total === undefined && size !== undefined && size > 0 && onPage >= size) {
      throw transport.badResponse(
        request,
        response,
        `the page is full (${onPage} of at most ${size}) and the answer gives no total, next page, page number or offset; the list may go on, so it is incomplete and nothing is planned from it`,
        'api.pagination',
      );
    }
    return undefined;
  }
  if (onPage === 0) return undefined;
  // A `count` equal to this page's objects may be the page's (nothing else states the end): the page size decides.
  const total = page.total?.onlyCount === true && page.total.value === onPage ? undefined : page.total?.value;
  const more =
    total !== undefined
      ? (offset !== undefined ? offset + onPage : page.readSoFar) < total
      : onPage >= (size ?? page.firstPage);
  if (!more) return undefined;
  return offset !== undefined
    ? { kind: 'query', name: 'offset', value: String(offset + onPage) }
    : { kind: 'query', name: 'page', value: String((number ?? 0) + 1) };
}

/**
 * What `has_more` / `hasMore` says, the first that is set, as readFlag reads a flag: read only as `=== true`, a
 * `"true"` was no "more" at all, and the list ended on its first page: an object on the next was planned as absent,
 * created again. Any other value is an `api.pagination` error naming it, as a next page of no readable type is;
 * undefined when neither key is set.
 */
function readHasMore(
  transport: Transport,
  { request, response }: ListPage,
  sources: Record<string, unknown>[],
): boolean | undefined {
  const found = hasMoreFlag(sources);
  if (found === undefined) return undefined;
  if (found.flag !== 'unreadable') return found.flag;
  throw transport.badResponse(
    request,
    response,
    `field ${found.key}: ${notAFlag(found.value)}; the list is incomplete and nothing is planned from it`,
    'api.pagination',
  );
}

/**
 * A `has_more` of false (or `"false"`, `0`) that the same answer contradicts: a page number below its last page, or
 * fewer objects read than its stated total (a `count` alone may be the page's own, so it says nothing here), on a
 * page that is not empty. An answer is never proof of absence (DESIGN section 2): such a list is refused, not read
 * as ended.
 */
function refuseContradictedEnd(transport: Transport, page: ListPage, number: number | undefined): void {
  // An empty page ends a list whatever its counts say, as it does with no has_more (findNextPage).
  if (page.onPage === 0) return;
  const last = readCount(firstOf(page.sources, LAST_PAGE_KEYS));
  const offset = readCount(firstOf(page.sources, ['offset']));
  const read = offset !== undefined ? offset + page.onPage : page.readSoFar;
  const total = page.total?.onlyCount === false ? page.total.value : undefined;
  const said =
    number !== undefined && last !== undefined && number < last
      ? `it is page ${number} of ${last}`
      : total !== undefined && read < total
        ? `the list holds ${total} objects, of which ${read} were read`
        : undefined;
  if (said === undefined) return;
  throw transport.badResponse(
    page.request,
    page.response,
    `has_more says the list ends, but the same answer says ${said}; the list is incomplete and nothing is planned from it`,
    'api.pagination',
  );
}

/** The first `has_more` / `hasMore` set in the paging sources: its key, value and readFlag's reading of it. */
export function hasMoreFlag(
  sources: Record<string, unknown>[],
): { key: string; value: unknown; flag: boolean | 'unreadable' } | undefined {
  for (const source of sources) {
    for (const key of ['has_more', 'hasMore']) {
      const value = source[key];
      const flag = readFlag(value);
      if (flag !== undefined) return { key, value, flag };
    }
  }
  return undefined;
}

/** The next page a NEXT_KEYS or CURSOR_KEYS value names, or undefined when it is of no type that names one. */
function readNext(key: string, value: unknown): NextPage | undefined {
  const cursor = CURSOR_KEYS.get(key);
  if (cursor !== undefined) {
    return typeof value === 'string' ? { kind: 'query', name: cursor, value } : undefined;
  }
  if (typeof value === 'number' && Number.isInteger(value)) {
    return { kind: 'query', name: 'page', value: String(value) };
  }
  if (typeof value !== 'string') return undefined;
  if (/^\d+$/.test(value)) return { kind: 'query', name: 'page', value };
  if (/^(https?:\/\/|\/|\?)/i.test(value)) return { kind: 'url', url: value };
  return { kind: 'query', name: 'cursor', value };
}

/** The envelope, then the objects inside it where paging may be reported. */
export function pagingSources(envelope: Record<string, unknown>): Record<string, unknown>[] {
  return [envelope, ...PAGING_OBJECTS.map((key) => envelope[key]).filter(isRecord)];
}

/**
 * How many objects the answer says the whole list holds, if it says: in the body (TOTAL_KEYS), else in an
 * `X-Total-Count` header (the usual companion of `Link` paging, and of bare arrays), else as a `count`.
 */
export function listTotal(
  sources: Record<string, unknown>[],
  response: TransportResponse,
): ListTotal | undefined {
  const stated =
    readCount(firstOf(sources, TOTAL_KEYS)) ?? readCount(response.headers.get('x-total-count')?.trim());
  if (stated !== undefined) return { value: stated, onlyCount: false };
  const count = readCount(firstOf(sources, ['count']));
  return count !== undefined ? { value: count, onlyCount: true } : undefined;
}

/** The first value under one of `keys`, looking through `sources` in order. */
function firstOf(sources: Record<string, unknown>[], keys: readonly string[]): unknown {
  for (const source of sources)
    for (const key of keys) if (source[key] !== undefined && source[key] !== null) return source[key];
  return undefined;
}

/**
 * The targets of an RFC 8288 `Link` header by relation (`<url>; rel="next", <url>; rel="last"`), or undefined
 * when the answer has none. A relation may list several names (`rel="next last"`); the first link of a name wins.
 */
function linkHeader(response: TransportResponse): Map<string, string> | undefined {
  const header = response.headers.get('link');
  if (header === null || header.trim() === '') return undefined;
  const links = new Map<string, string>();
  for (const match of header.matchAll(/<([^>]*)>((?:\s*;\s*[^;,<]*)*)/g)) {
    const rel = /(?:^|;)\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,"]+))/i.exec(match[2] ?? '');
    const names = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    for (const name of names) if (name !== '' && !links.has(name)) links.set(name, match[1] ?? '');
  }
  return links;
}
