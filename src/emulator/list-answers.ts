import { HttpError, json } from './http.js';
import type { EmulatorRequest, EmulatorResponse } from './http.js';
import type { Quirks } from './quirks.js';

const MAX_PER_PAGE = 100;

/**
 * A list answer: a bare JSON array as the seeds show, or with quirks `{data: [...]}` (wrapped-lists) or one page
 * `{data, page, per_page, total, has_more}` chosen by `?page=N` (1-based) and `?per_page=N` (paged-lists).
 */
export function answerList(req: EmulatorRequest, items: unknown[], quirks: Quirks): EmulatorResponse {
  if (quirks.has('paged-lists')) {
    const page = pageNumber(req.query.get('page'), 'page', 1);
    const perPage = Math.min(
      pageNumber(req.query.get('per_page'), 'per_page', quirks.settings.pageSize),
      MAX_PER_PAGE,
    );
    const start = (page - 1) * perPage;
    return json(200, {
      data: items.slice(start, start + perPage),
      page,
      per_page: perPage,
      total: items.length,
      has_more: start + perPage < items.length,
    });
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

/** lagging-list with `notFoundMs`: whether an object (or version) made at `createdAt` (ISO) is found by id yet. */
export function foundYet(createdAt: string, now: number, quirks: Quirks): boolean {
  return !quirks.has('lagging-list') || now - Date.parse(createdAt) >= quirks.settings.notFoundMs;
}
