import * as z from 'zod';
import { refuseFailureSaid } from './failure-said.js';
import type { Transport } from './transport.js';
import { findNextPage, listTotal, pagingSources } from './list-paging.js';
import { quoted } from './read-flag.js';
import { unreadPaging } from './unread-paging.js';
import type { NextPage } from './list-paging.js';
import type { TransportRequest, TransportResponse } from './transport-contract.js';

/** Pages fetched for one list at most; a list that goes on longer is reported, not cut short. */
export const MAX_LIST_PAGES = 1000;

/**
 * Where a wrapped list answer may hold its items, besides the resource's own name (`parsers`, `projects`,
 * `jobs`). Neither service documents a wrapper or pagination (API-NOTES: the parser list is a bare array; the
 * DataPipeline list is not described), but "a list is not proof of absence" (issue 13): an answer read as empty,
 * or as its first page only, would plan creates for objects that exist. So the common wrappers are read, and
 * nothing else is guessed: an object holding no array under these keys is a bad response, and so is one holding
 * different arrays under two of them.
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

/**
 * Reads a whole list: a bare array, or an object holding the array (see ITEM_KEYS), following further pages when
 * the answer says, or does not rule out, that there are more. Paging is read from the envelope, from its `meta`,
 * `pagination`, `paging`, `links` and `response_metadata` objects, and from the `Link` and `X-Total-Count` headers
 * (list-paging.ts says in what order). A bare array with neither header is the whole list, read in one call.
 * Further pages go with the same key placement, and only to the list's own origin. A page asked for twice (a
 * server that ignores the page parameter, a next URL or a cursor given again), an identical page in a row, a "has
 * more" without a way to get it, or more than `maxPages` pages are `api.pagination` errors, and so is a list whose
 * answer states a total (in the body or in `X-Total-Count`) larger than the objects read once no further page is
 * given (paging of a shape not read here): a partial list is never returned, since an object it left out would be
 * created again. With `idOf`, an object listed again (paging while objects are added moves one onto the next page)
 * is kept once, the first time: read twice, it would be two objects of one name, an adoption refused as ambiguous
 * or a create that landed reported as failed; the stated total is then compared with the objects read once, so a
 * duplicate that stands for one left out is still found; and two further pages in a row holding only objects read
 * already that still give a next page are an `api.pagination` error too.
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
  let firstPage: number | undefined;
  /** Further pages in a row that held only objects read already (and still gave a next page). */
  let repeatedPages = 0;
  for (let page = 1; ; page++) {
    asked.add(pageKey(request));
    const response = await transport.request(request);
    const { list, path, envelope } = findItems(transport, request, response, resourceKey);
    const read = transport.check(request, response, list, z.array(itemSchema), path);
    const before = items.length;
    for (const item of read) {
      if (idOf !== undefined) {
        const id = idOf(item);
        if (ids.has(id)) continue;
        ids.add(id);
      }
      items.push(item);
    }
    const onPage = read.length;
    firstPage ??= onPage;
    // Where paging may be said: the envelope and its paging objects, and the answer's headers.
    const sources = envelope !== undefined ? pagingSources(envelope) : [];
    const total = listTotal(sources, response);
    const next = findNextPage(transport, {
      request,
      response,
      sources,
      onPage,
      readSoFar: items.length,
      firstPage,
      total,
      whole: totalChecked,
    });
    if (next === undefined) {
      const unread =
        totalChecked && envelope !== undefined
          ? unreadPaging(envelope, path[0] ?? '', { objects: items.length, pages: page })
          : undefined;
      if (unread !== undefined) {
        throw transport.badResponse(
          request,
          response,
          `field ${unread.field}: ${quoted(transport.redactAnswer(unread.value))} says the list goes on, in a way scrapeform does not follow; the list is incomplete and nothing is planned from it`,
          'api.pagination',
        );
      }
      if (totalChecked && total !== undefined && total.value > items.length) {
        throw transport.badResponse(
          request,
          response,
          `the answer says the list holds ${total.value} but ${items.length} ${items.length === 1 ? 'was' : 'were'} read, with no next page given in a way scrapeform reads; the list is incomplete and nothing is planned from it`,
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
    // Two further pages in a row of objects all read already, which still give a next one: a server that ignores the
    // page asked for but names a new cursor each time (neither the body nor the cursor repeats) was followed for
    // 1,000 pages. One such page is followed: paging by offset, newest first, while a page of objects is added
    // between two reads shows the objects of the page before again, and the next page goes on with new ones.
    repeatedPages =
      idOf !== undefined && page > 1 && onPage > 0 && items.length === before ? repeatedPages + 1 : 0;
    if (repeatedPages >= 2) {
      throw transport.badResponse(
        request,
        response,
        `pages ${page - 1} and ${page} hold only objects already read, and give a next page; the list is incomplete and nothing is planned from it`,
        'api.pagination',
      );
    }
    if (page >= maxPages) {
      throw transport.badResponse(
        request,
        response,
        `still more pages after ${maxPages}; the list is incomplete and nothing is planned from it`,
        'api.pagination',
      );
    }
    const nextPage = nextRequest(transport, first, request, response, next);
    if (asked.has(pageKey(nextPage))) {
      // A cursor is named as the answer gave it (its page's URL is built by us); a repeat would loop.
      const again =
        next.kind === 'query' && (next.name === 'cursor' || next.name === 'page_token')
          ? `gives a cursor already followed (${next.name}=${next.value})`
          : `points back to a page already read (${transport.show(pageUrl(nextPage))})`;
      throw transport.badResponse(
        request,
        response,
        `the answer ${again}; the list is incomplete and nothing is planned from it`,
        'api.pagination',
      );
    }
    request = nextPage;
  }
}

/**
 * Where an object answer holds its list: the first of ITEM_KEYS and the resource's own key (`parsers`, `projects`)
 * that holds an array; undefined when none does. Lists under two keys that differ (an empty `data` beside the
 * `parsers`) are a problem: read as the first, the objects of the other would be planned as absent, and created
 * again. Doctor reads the first page with it too (doctor-list-check.ts).
 */
export function listKeyOf(
  envelope: Record<string, unknown>,
  resourceKey: string,
): { key: string } | { problem: string } | undefined {
  const keys = [...ITEM_KEYS, resourceKey].filter((key) => Array.isArray(envelope[key]));
  const [key, ...others] = keys;
  if (key === undefined) return undefined;
  // Compared as text only when a second key holds an array too: every page of a large list is not written out.
  const first = envelope[key];
  const text = others.length > 0 ? JSON.stringify(first) : '';
  if (others.some((other) => envelope[other] !== first && JSON.stringify(envelope[other]) !== text))
    return {
      problem: `a different list under each of ${keys.join(', ')}; which one is the list cannot be told`,
    };
  return { key };
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
  // A 200 whose body says the call failed (`success: false`, an `error`) beside an empty list: read as the list, every
  // object declared was planned as a paid create, and `run` saw no job running and started another.
  refuseFailureSaid(transport, request, response);
  const envelope = body as Record<string, unknown>;
  const found = listKeyOf(envelope, resourceKey);
  if (found !== undefined && 'problem' in found)
    throw transport.badResponse(
      request,
      response,
      `field (body): the answer holds ${found.problem}, so nothing is planned from it`,
    );
  if (found !== undefined) return { list: envelope[found.key], path: [found.key], envelope };
  throw transport.badResponse(
    request,
    response,
    `field (body): expected an array, or an object holding one under ${[...ITEM_KEYS, resourceKey].join(', ')}`,
  );
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
