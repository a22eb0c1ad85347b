import { HttpError, json } from './http.js';
import type { EmulatorRequest, EmulatorResponse } from './http.js';
import type { Quirks } from './quirks.js';

const MAX_PER_PAGE = 100;

/**
 * A list answer: a bare JSON array as the seeds show, or with quirks `{data: [...]}` (wrapped-lists) or one page
 * (paged-lists) in the page style of the settings: `{data, page, per_page, total, has_more}` chosen by `?page=N`
 * (1-based), Laravel's `{data, current_page, last_page, per_page, total, next_page_url}` chosen by `?page=N`,
 * `{data, offset, limit, total}` chosen by `?offset=N`, or GitHub's bare array of the page chosen by `?page=N` with
 * the other pages in an RFC 8288 `Link` header; `?per_page=N` (or `?limit=N`) sets the size.
 */
export function answerList(req: EmulatorRequest, items: unknown[], quirks: Quirks): EmulatorResponse {
  if (quirks.has('paged-lists')) {
    const style = quirks.settings.pageStyle;
    const sizeName = style === 'offset' ? 'limit' : 'per_page';
    const perPage = Math.min(
      pageNumber(req.query.get(sizeName), sizeName, quirks.settings.pageSize),
      MAX_PER_PAGE,
    );
    if (style === 'offset') {
      const raw = req.query.get('offset') ?? '0';
      if (!/^\d+$/.test(raw)) throw new HttpError(400, 'offset must be a whole number >= 0');
      const offset = Number(raw);
      return json(200, {
        data: items.slice(offset, offset + perPage),
        offset,
        limit: perPage,
        total: items.length,
      });
    }
    const page = pageNumber(req.query.get('page'), 'page', 1);
    const start = (page - 1) * perPage;
    const data = items.slice(start, start + perPage);
    const more = start + perPage < items.length;
    const lastPage = Math.max(1, Math.ceil(items.length / perPage));
    // As Laravel and GitHub do, another page's URL keeps the query it was asked with (the key too: clients drop it).
    const pageUrl = (n: number): string => {
      const query = new URLSearchParams(req.query);
      query.set('page', String(n));
      return `${req.path}?${query.toString()}`;
    };
    if (style === 'laravel') {
      return json(200, {
        current_page: page,
        data,
        last_page: lastPage,
        per_page: perPage,
        total: items.length,
        next_page_url: more ? pageUrl(page + 1) : null,
      });
    }
    if (style === 'link') {
      // GitHub's: no header when one page holds the list; else next and last while there are more, first and prev
      // after the first page. No total is stated.
      const links = [
        ...(more ? [`<${pageUrl(page + 1)}>; rel="next"`, `<${pageUrl(lastPage)}>; rel="last"`] : []),
        ...(page > 1 ? [`<${pageUrl(1)}>; rel="first"`, `<${pageUrl(page - 1)}>; rel="prev"`] : []),
      ];
      return {
        status: 200,
        body: data,
        ...(links.length > 0 ? { headers: { link: links.join(', ') } } : {}),
      };
    }
    return json(200, { data, page, per_page: perPage, total: items.length, has_more: more });
  }
  if (quirks.has('wrapped-lists')) return json(200, { data: items });
  return json(200, items);
}

function pageNumber(raw: string | null, name: string, fallback: number): number {
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new HttpError(400, `${name} must be a whole number >= 1`);
  return Number(raw);
}

/** lagging-list: whether an object created at `createdAt` (ISO) shows in list answers yet. */
export function listedYet(createdAt: string, now: number, quirks: Quirks): boolean {
  return !quirks.has('lagging-list') || now - Date.parse(createdAt) >= quirks.settings.listLagMs;
}

/**
 * lagging-list with `versionLagMs`: the version of a parser a list answer shows, the latest created at least
 * `versionLagMs` ago (the first version always shows once the parser is listed). A list may lag behind a PATCH as
 * it may behind a create: nothing public says otherwise (API-NOTES, Lists).
 */
export function listedVersion<V extends { version: number; createdAt: string }>(
  versions: readonly V[],
  now: number,
  quirks: Quirks,
): V | undefined {
  return shownVersion(versions, now, quirks.has('lagging-list') ? quirks.settings.versionLagMs : 0);
}

/**
 * lagging-list with `detailsLagMs`: the version `GET /parsers/{id}` answers with, the latest created at least
 * `detailsLagMs` ago, as a replica lagging behind a PATCH would (a version below one a client saw: versions only go
 * up, so that client reads it as lag, never as the parser moved back).
 */
export function detailsVersion<V extends { version: number; createdAt: string }>(
  versions: readonly V[],
  now: number,
  quirks: Quirks,
): V | undefined {
  return shownVersion(versions, now, quirks.has('lagging-list') ? quirks.settings.detailsLagMs : 0);
}

function shownVersion<V extends { version: number; createdAt: string }>(
  versions: readonly V[],
  now: number,
  lag: number,
): V | undefined {
  const shown = versions.filter((v, i) => i === 0 || lag === 0 || now - Date.parse(v.createdAt) >= lag);
  return shown.reduce<V | undefined>((a, b) => (a === undefined || b.version > a.version ? b : a), undefined);
}

/** lagging-list with `notFoundMs`: whether an object (or version) made at `createdAt` (ISO) is found by id yet. */
export function foundYet(createdAt: string, now: number, quirks: Quirks): boolean {
  return !quirks.has('lagging-list') || now - Date.parse(createdAt) >= quirks.settings.notFoundMs;
}
