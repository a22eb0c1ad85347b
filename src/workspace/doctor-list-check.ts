import { ApiError } from '../api/api-error.js';
import { CURSOR_KEY_NAMES, hasMoreFlag, pagingSources } from '../api/list-paging.js';
import { listKeyOf } from '../api/read-list.js';
import { notAFlag } from '../api/read-flag.js';
import type { TransportResponse } from '../api/transport-contract.js';
import type { DoctorCheck, DoctorReading } from '../output/render-doctor.js';

const PAGING_KEYS = [
  'next',
  'next_page',
  'nextPage',
  'has_more',
  'hasMore',
  'total_pages',
  'totalPages',
  'page',
  ...CURSOR_KEY_NAMES,
];

/** What a wire schema found wrong with an answer, as apply's errors say it (transport.ts): `field a.b: why`. */
export function answerProblem(error: {
  issues: readonly { path: readonly PropertyKey[]; message: string }[];
}): string {
  const issue = error.issues[0];
  const field = issue !== undefined && issue.path.length > 0 ? issue.path.map(String).join('.') : '(body)';
  return `field ${field}: ${issue?.message ?? 'invalid'}`;
}

/** A read-only GET of the doctor; each answer's Date header also feeds the clock check. */
export type Get = (service: string, url: string) => Promise<TransportResponse>;

/**
 * A whole list read as plan reads it (readList: every page, each object once, the same refusals), its items with
 * the key taken out; a list plan would refuse throws what plan would say.
 */
export type ReadPages = (
  service: string,
  url: string,
  resource: 'parsers' | 'projects',
) => Promise<unknown[]>;

/** What doctor reads a list with: its first answer, and the whole list when that answer says it is paged. */
export interface ListReaders {
  get: Get;
  readPages: ReadPages;
}

/** How a service's checks read the items of its list: what they need of them, or why plan cannot read them. */
export type ReadItems<T> = (items: unknown[]) => { value: T } | { problem: string };

/**
 * Reads the first page of a list and records its shape; a paged one is then read whole as plan reads it, so what
 * the checks see is the list plan plans from, and a paging plan cannot follow fails here rather than in the first
 * plan. Its items are read with `read`; undefined when a call failed or the answer cannot be read. One check gives
 * one line: the list's line is the failure when its items cannot be read, never an ok followed by a failure.
 */
export async function listOnce<T>(
  { get, readPages }: ListReaders,
  service: string,
  url: string,
  resource: 'parsers' | 'projects',
  checks: DoctorCheck[],
  readings: Map<string, DoctorReading>,
  read: ReadItems<T>,
): Promise<T | undefined> {
  let response: TransportResponse;
  try {
    response = await get(service, url);
  } catch (error) {
    checks.push(failedCall(`${resource}.list`, error));
    return undefined;
  }
  const body = response.body;
  let items: unknown[] | undefined;
  let shape: string;
  // GitHub's paging of bare arrays is in an RFC 8288 Link header alone (read-list.ts follows it).
  const linked = (response.headers.get('link') ?? '').trim() !== '';
  let paged = linked;
  let unreadable: { key: string; value: unknown } | undefined;
  if (Array.isArray(body)) {
    items = body;
    shape = `a bare array${linked ? ' paged by a Link header' : ''}`;
  } else if (body !== null && typeof body === 'object') {
    const envelope = body as Record<string, unknown>;
    const found = listKeyOf(envelope, resource);
    if (found !== undefined && 'problem' in found) {
      checks.push({
        name: `${resource}.list`,
        status: 'fail',
        message: `the list answer is an object holding ${found.problem}, so plan cannot read it`,
      });
      return undefined;
    }
    const key = found?.key;
    items = key !== undefined ? (envelope[key] as unknown[]) : undefined;
    // The has_more plan would refuse (list-paging.ts readHasMore finds it the same way).
    const hasMore = hasMoreFlag(pagingSources(envelope));
    unreadable = hasMore?.flag === 'unreadable' ? hasMore : undefined;
    paged ||= unreadable !== undefined || PAGING_KEYS.some((k) => envelope[k] !== undefined);
    shape =
      key !== undefined
        ? `an object holding the items under "${key}"${paged ? ', with paging fields' : ''}`
        : 'an object';
  } else {
    shape = typeof body;
  }
  if (items === undefined) {
    checks.push({
      name: `${resource}.list`,
      status: 'fail',
      message: `the list answer is ${shape} with no array of ${resource} scrapeform can find; plan cannot read it`,
    });
    return undefined;
  }
  const wrapped = !Array.isArray(body);
  mergeReading(readings, 'wrapped-lists', wrapped, `${resource}: ${shape}`);
  mergeReading(
    readings,
    'paged-lists',
    paged,
    `${resource}: ${unreadable !== undefined ? `paged, but ${unreadable.key} cannot be read, so plan cannot follow it` : paged ? 'paged; scrapeform follows every page' : 'one answer'}`,
  );
  const seen = `the key works; ${items.length} ${resource} on the first answer, ${shape}`;
  // Plan refuses the list (readHasMore): read as "paged; followed" or as the end, it may be read short.
  if (unreadable !== undefined) {
    checks.push({
      name: `${resource}.list`,
      status: 'fail',
      message: `${seen}, but field ${unreadable.key}: ${notAFlag(unreadable.value)}; plan refuses such a list as incomplete`,
    });
    return undefined;
  }
  let whole = seen;
  if (paged) {
    try {
      items = await readPages(service, url, resource);
      whole = `${seen}; ${items.length} in all, every page followed as plan follows them`;
    } catch (error) {
      const failed = failedCall(`${resource}.list`, error);
      checks.push({
        ...failed,
        message: `${seen}, but following its pages as plan does failed: ${failed.message}`,
      });
      return undefined;
    }
  }
  const result = read(items);
  if ('problem' in result) {
    checks.push({ name: `${resource}.list`, status: 'fail', message: `${whole}, but ${result.problem}` });
    return undefined;
  }
  checks.push({ name: `${resource}.list`, status: 'ok', message: whole });
  return result.value;
}

/** Both lists speak to one reading: seen when either shows it. */
function mergeReading(
  readings: Map<string, DoctorReading>,
  name: string,
  seen: boolean,
  message: string,
): void {
  const before = readings.get(name);
  readings.set(name, {
    name,
    seen: (before?.seen ?? false) || seen,
    message: before === undefined ? message : `${before.message}; ${message}`,
  });
}

export function failedCall(name: string, error: unknown): DoctorCheck {
  if (error instanceof ApiError) {
    // The message names the service and, for 401 and 403, says what a refusal means (credits, plan, key).
    return {
      name,
      status: 'fail',
      message: `${error.message}${error.hint !== undefined ? ` (${error.hint})` : ''}`,
    };
  }
  throw error;
}
