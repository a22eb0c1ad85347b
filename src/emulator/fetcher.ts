import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { PACKAGE_ROOT } from '../package-root.js';
import { Page } from './extraction/page.js';

/** The built-in demo site: host names under `.example` (reserved for documentation) are answered from here. */
export const DEMO_SITE_ROOT = path.join(PACKAGE_ROOT, 'emulator-site') + path.sep;

export interface ScrapingParams {
  render?: boolean;
  [name: string]: unknown;
}

export class DownloadError extends Error {
  constructor(
    readonly url: string,
    readonly tries: number,
  ) {
    super(`Failed to download ${url} after ${tries} retries`);
    this.name = 'DownloadError';
  }
}

export type PageFetcher = (url: string, params: ScrapingParams) => Promise<Page>;

export interface FetcherOptions {
  siteRoot?: string | undefined;
  tries?: number;
  timeoutMs?: number;
  /** The emulator closed: a fetch under way ends, and no other try starts. */
  stopped?: AbortSignal;
}

/**
 * Fetches pages as the service's scraper would: the demo site for `.example` hosts, anything else over the real
 * network (loopback included), 3 tries. `render: true` runs the page's app: for demo pages that means injecting
 * what their `<template data-scrapeform-render>` holds; other pages are taken as served.
 */
export function createFetcher(options: FetcherOptions = {}): PageFetcher {
  const root = options.siteRoot ?? DEMO_SITE_ROOT;
  const tries = options.tries ?? 3;
  // The demo site never changes while the emulator runs: read each file once.
  const siteCache = new Map<string, Promise<string | undefined>>();
  return async (url, params) => {
    for (let attempt = 1; attempt <= tries && options.stopped?.aborted !== true; attempt++) {
      const html = await fetchOnce(url, root, options.timeoutMs ?? 15_000, siteCache, options.stopped);
      if (html !== undefined) return new Page(url, params.render === true ? render(html) : html);
    }
    throw new DownloadError(url, tries);
  };
}

async function fetchOnce(
  url: string,
  root: string,
  timeoutMs: number,
  siteCache: Map<string, Promise<string | undefined>>,
  stopped: AbortSignal | undefined,
): Promise<string | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.hostname.endsWith('.example')) {
    let relative = decodeURIComponent(parsed.pathname);
    if (relative.endsWith('/')) relative += 'index.html';
    const file = path.resolve(root, parsed.hostname, `.${relative}`);
    if (!file.startsWith(path.resolve(root, parsed.hostname) + path.sep)) return undefined;
    let cached = siteCache.get(file);
    if (cached === undefined) {
      cached = readFile(file, 'utf8').catch(() => undefined);
      siteCache.set(file, cached);
    }
    return cached;
  }
  try {
    const response = await globalThis.fetch(parsed, {
      signal: stopped
        ? AbortSignal.any([AbortSignal.timeout(timeoutMs), stopped])
        : AbortSignal.timeout(timeoutMs),
      redirect: 'follow',
    });
    if (!response.ok) return undefined;
    return await response.text();
  } catch {
    return undefined;
  }
}

const RENDER_TEMPLATE = /<template\b[^>]*\bdata-scrapeform-render="#([\w-]+)"[^>]*>([\s\S]*?)<\/template>/;

/** Whether a page builds its content with JavaScript (so a scraper without `render` sees an empty shell). */
export function needsRender(page: Page): boolean {
  return RENDER_TEMPLATE.test(page.html);
}

function render(html: string): string {
  const match = RENDER_TEMPLATE.exec(html);
  if (match === null) return html;
  const [template, id, content] = match;
  const container = new RegExp(`(<div\\b[^>]*\\bid="${id}"[^>]*>)[\\s\\S]*?(</div>)`);
  // A replacer function: the content holds `$` signs (prices) that a replacement string would read as groups.
  return html
    .replace(template, '')
    .replace(container, (_, open: string, close: string) => `${open}${content ?? ''}${close}`);
}
