import { PAGING_OBJECTS, READ_PAGING_KEYS } from './list-paging.js';
import { readCount } from './read-count.js';
import { readFlag } from './read-flag.js';
import { isRecord } from '../is-record.js';

/**
 * What a list answer says of more pages in a form list-paging.ts does not follow, once it found the list's end:
 * undefined when nothing does. Neither service documents its paging (API-NOTES), and a first page read as the whole
 * list plans every object on the pages after it as absent: a paid create each. So the envelope, and the objects in it
 * whose names are about paging (`meta`, `pagination`, `pageInfo`, `links`, at any depth up to three), are looked
 * through for a key of a known meaning in another spelling (compared without case, `_`, `-`, `.` and `@`):
 * - a flag that there is more (`has_next`, `hasNextPage`, `IsTruncated`, `more`) set true;
 * - a pointer to the next page (a key starting with `next`, `nextToken`, `next_offset`; OData's `@odata.nextLink`; a
 *   continuation token or marker) that is set;
 * - a total of the list (`total_records`, `totalResults`, `numFound`, `totalSize`) above the objects read, or a
 *   number of pages (`pageCount`, `total_pages`) above the pages read.
 * Keys list-paging.ts reads where it reads them are left to it. Other objects (`meta.credits.total`) are not looked
 * into.
 */
export function unreadPaging(
  envelope: Record<string, unknown>,
  itemsKey: string,
  read: { objects: number; pages: number },
): { field: string; value: unknown } | undefined {
  const look = (
    object: Record<string, unknown>,
    path: string,
    depth: number,
    readThere: boolean,
  ): { field: string; value: unknown } | undefined => {
    for (const [key, value] of Object.entries(object)) {
      if (depth === 0 && key === itemsKey) continue;
      const field = path === '' ? key : `${path}.${key}`;
      if (isRecord(value)) {
        const found =
          depth < 2 && PAGING_CONTAINER.test(key)
            ? look(value, field, depth + 1, depth === 0 && PAGING_OBJECTS.includes(key))
            : undefined;
        if (found !== undefined) return found;
        continue;
      }
      // Known keys are read at the top and in the paging objects list-paging.ts knows (PAGING_OBJECTS), not deeper.
      if (readThere && READ_PAGING_KEYS.has(key)) continue;
      if (saysMore(normalised(key), value, read)) return { field, value };
    }
    return undefined;
  };
  return look(envelope, '', 0, true);
}

const MORE_FLAGS = new Set([
  'hasnext',
  'hasnextpage',
  'hasmore',
  'hasmorepages',
  'hasmoreitems',
  'hasmoreresults',
  'more',
  'moreavailable',
  'istruncated',
  'truncated',
]);
const POINTERS = /^next|nextlink$|continuation|^marker$|resumptiontoken/;
const TOTALS = new Set([
  'total',
  'totalcount',
  'totalitems',
  'totalrecords',
  'totalresults',
  'totalentries',
  'totalelements',
  'totalsize',
  'numresults',
  'numfound',
  'recordcount',
  'resultcount',
]);
const PAGE_COUNTS = new Set(['pagecount', 'totalpages', 'lastpage', 'numpages', 'pages']);
/** Names of objects where paging is reported: `meta`, `pagination`, `paging`, `pageInfo`, `page_info`, `links`. */
const PAGING_CONTAINER = /^(_?meta(data)?|pagination|paging|page(_?info)?|_?links|cursors?)$/i;

function saysMore(key: string, value: unknown, read: { objects: number; pages: number }): boolean {
  if (MORE_FLAGS.has(key)) return readFlag(value) === true;
  if (POINTERS.test(key)) return value !== null && value !== undefined && value !== false && value !== '';
  const count = readCount(value);
  if (count === undefined) return false;
  if (TOTALS.has(key)) return count > read.objects;
  if (PAGE_COUNTS.has(key)) return count > read.pages;
  return false;
}

function normalised(key: string): string {
  return key.toLowerCase().replace(/[_\-.@]/g, '');
}
