import { HttpError, RetryAfterError } from './http.js';

/**
 * Alternative behaviours the real services may show where their public material is silent or contradicts the
 * seeds (API-NOTES, "What ScraperAPI's own clients show"). Off by default; docs/emulator.md cites each source.
 */
export const QUIRK_NAMES = [
  'details-without-version',
  'lagging-list',
  'paged-lists',
  'wrapped-lists',
  'queued-status',
  'queued-jobs',
  'sparse-projects',
  'create-429',
] as const;

export type QuirkName = (typeof QUIRK_NAMES)[number];

export const PAGE_STYLES = ['has-more', 'laravel', 'offset', 'link'] as const;
export type PageStyle = (typeof PAGE_STYLES)[number];

export interface QuirkSettings {
  /** lagging-list: emulated ms before a new parser or project appears in list answers. */
  listLagMs: number;
  /**
   * lagging-list: emulated ms before a parser's new version (a PATCH's) shows in list answers; until then the list
   * shows the latest version older than that. 0 (the default): at once. Details by id show it at once.
   */
  versionLagMs: number;
  /**
   * lagging-list: emulated ms before a parser's new version shows in `GET /parsers/{id}` (latest) answers; until
   * then they show the latest version older than that, as a replica lagging behind would. 0 (the default): at once.
   */
  detailsLagMs: number;
  /**
   * lagging-list: emulated ms during which `GET` by id of a new parser, parser version or project answers 404 (as a
   * service read from replicas may right after a create); 0, the default, finds it at once.
   */
  notFoundMs: number;
  /** paged-lists: items per page when the request gives no `per_page`. */
  pageSize: number;
  /**
   * paged-lists: how a page says there is more: `has-more` (`page`, `has_more`), `laravel` (Laravel's paginator:
   * `current_page`, `last_page`, `next_page_url`), `offset` (`offset`, `limit`, `total`; `?offset=N` picks it), or
   * `link` (GitHub's: a bare array, the next page in a `Link: <...>; rel="next"` header, no total).
   */
  pageStyle: PageStyle;
  /** queued-status: emulated ms a new version reports QUEUED before it starts GENERATING. */
  queuedMs: number;
  /** queued-jobs: emulated ms a job started is listed `Queued` before a worker takes it (`Running`). */
  jobQueuedMs: number;
}

export const DEFAULT_QUIRK_SETTINGS: Readonly<QuirkSettings> = {
  listLagMs: 2000,
  versionLagMs: 0,
  detailsLagMs: 0,
  notFoundMs: 0,
  pageSize: 2,
  pageStyle: 'has-more',
  queuedMs: 1000,
  jobQueuedMs: 1000,
};

/** The names in `names` that are not quirks. */
export function unknownQuirks(names: readonly string[]): string[] {
  return names.filter((name) => !(QUIRK_NAMES as readonly string[]).includes(name));
}

/** What is wrong with a list of quirk names, or undefined when every name is known. */
export function describeUnknownQuirks(names: readonly string[]): string | undefined {
  const unknown = unknownQuirks(names);
  if (unknown.length === 0) return undefined;
  return `unknown quirk${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}; known: ${QUIRK_NAMES.join(', ')}`;
}

/** The quirks switched on, their settings, and which accounts already had their first create refused. */
export class Quirks {
  private enabled = new Set<QuirkName>();
  settings: QuirkSettings = { ...DEFAULT_QUIRK_SETTINGS };
  private readonly refusedCreates = new Set<string>();

  constructor(names: readonly QuirkName[] = [], settings: Partial<QuirkSettings> = {}) {
    this.set(names, settings);
  }

  has(name: QuirkName): boolean {
    return this.enabled.has(name);
  }

  list(): QuirkName[] {
    return QUIRK_NAMES.filter((name) => this.enabled.has(name));
  }

  set(names: readonly QuirkName[], settings: Partial<QuirkSettings> = {}): void {
    this.enabled = new Set(names);
    this.settings = { ...this.settings, ...settings };
    this.refusedCreates.clear();
  }

  /** Forgets which first creates were refused (emulator reset): the next first create is refused again. */
  reset(): void {
    this.refusedCreates.clear();
  }

  /**
   * create-429: the first create of each account on each service is refused with 429 and Retry-After: 1, before
   * anything is created (API-NOTES: 429 means the request was refused).
   */
  refuseFirstCreate(service: 'parsers' | 'projects', account: string): void {
    if (!this.has('create-429')) return;
    const key = `${service}\u0000${account}`;
    if (this.refusedCreates.has(key)) return;
    this.refusedCreates.add(key);
    throw new RetryAfterError(429, 'Too many requests: retry after 1 second (emulator quirk create-429)', 1);
  }
}

/**
 * Validates a body of PUT /_emulator/quirks: `{"quirks": [...], "listLagMs": 0, "versionLagMs": 0,
 * "detailsLagMs": 0, "notFoundMs": 0, "pageSize": 2, "pageStyle": "has-more", "queuedMs": 0, "jobQueuedMs": 0}`.
 */
export function checkQuirksBody(body: Record<string, unknown>): {
  names?: QuirkName[];
  settings: Partial<QuirkSettings>;
} {
  const settings: Partial<QuirkSettings> = {};
  let names: QuirkName[] | undefined;
  for (const [key, value] of Object.entries(body)) {
    if (key === 'quirks') {
      if (!Array.isArray(value) || value.some((n) => typeof n !== 'string'))
        throw new HttpError(400, 'quirks must be a list of quirk names');
      const problem = describeUnknownQuirks(value as string[]);
      if (problem !== undefined) throw new HttpError(400, problem);
      names = value as QuirkName[];
    } else if (
      key === 'listLagMs' ||
      key === 'versionLagMs' ||
      key === 'detailsLagMs' ||
      key === 'notFoundMs' ||
      key === 'queuedMs' ||
      key === 'jobQueuedMs' ||
      key === 'pageSize'
    ) {
      const least = key === 'pageSize' ? 1 : 0;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < least)
        throw new HttpError(400, `${key} must be a whole number >= ${least}`);
      settings[key] = value;
    } else if (key === 'pageStyle') {
      if (!(PAGE_STYLES as readonly unknown[]).includes(value))
        throw new HttpError(400, `pageStyle must be one of ${PAGE_STYLES.join(', ')}`);
      settings.pageStyle = value as PageStyle;
    } else {
      throw new HttpError(
        400,
        `unknown quirk setting ${key}; known: quirks, listLagMs, versionLagMs, detailsLagMs, notFoundMs, pageSize, pageStyle, queuedMs, jobQueuedMs`,
      );
    }
  }
  return { ...(names !== undefined ? { names } : {}), settings };
}
