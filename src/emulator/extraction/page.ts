import * as cheerio from 'cheerio';
import type { CheerioAPI } from 'cheerio';
import xpath from 'xpath';
import { buildXDocument, isAttributeNode, xOuterHtml, xTextContent } from './xpath-dom.js';
import type { XNode } from './xpath-dom.js';

/** What `xpath.parse(expr).evaluate()` returns: a node set, or a string, number or boolean value. */
interface XpathValue {
  toArray?: () => XNode[];
  stringValue(): string;
}

/** `xpath.parse` exists at run time (its README documents it) but not in its type declarations. */
const parseXpath = (
  xpath as unknown as {
    parse(expr: string): { evaluate(options: { node: unknown; isHtml: boolean }): XpathValue };
  }
).parse;

/** How a field's values are found on a page. Plain data: stored with each parser version. */
export type Locator =
  | { kind: 'css'; selector: string; attr?: string }
  | { kind: 'xpath'; expr: string }
  | { kind: 'jsonld'; key: string };

/** One thing a locator found: its text or attribute value, and its HTML when it is an element. */
export interface Match {
  value: string;
  tag?: string;
  html?: string;
}

/** A fetched page (or an item inside one), parsed lazily for CSS and for XPath. */
export class Page {
  private cheerioApi: CheerioAPI | undefined;
  private xDocument: XNode | undefined;
  private jsonLd: unknown[] | undefined;

  constructor(
    readonly url: string,
    readonly html: string,
    private readonly fragment = false,
  ) {}

  get $(): CheerioAPI {
    if (this.cheerioApi === undefined) {
      this.cheerioApi = cheerio.load(this.html, {}, !this.fragment);
      // Template content is inert until a script uses it, as in a browser (and as the XPath tree has it).
      this.cheerioApi('template').remove();
    }
    return this.cheerioApi;
  }

  get xdoc(): XNode {
    this.xDocument ??= buildXDocument(this.html, this.fragment);
    return this.xDocument;
  }

  /** An item found on this page, as a page of its own for its children's locators. */
  item(html: string): Page {
    return new Page(this.url, html, true);
  }

  /** Everything the locator finds, in document order; an invalid selector finds nothing. */
  select(locator: Locator): Match[] {
    try {
      if (locator.kind === 'css') return this.selectCss(locator.selector, locator.attr);
      if (locator.kind === 'xpath') return this.selectXpath(locator.expr);
      return this.selectJsonLd(locator.key);
    } catch {
      return [];
    }
  }

  private selectCss(selector: string, attr: string | undefined): Match[] {
    const $ = this.$;
    const out: Match[] = [];
    $(selector).each((_, element) => {
      const el = $(element);
      const tag = 'tagName' in element ? element.tagName : undefined;
      const value =
        attr !== undefined ? el.attr(attr) : tag === 'meta' ? el.attr('content') : collapse(el.text());
      if (value === undefined) return;
      out.push({
        value: attr !== undefined ? value.trim() : value,
        ...(tag !== undefined ? { tag } : {}),
        html: $.html(element),
      });
    });
    return out;
  }

  private selectXpath(expr: string): Match[] {
    const result = parseXpath(expr).evaluate({ node: this.xdoc, isHtml: true });
    if (result.toArray === undefined) {
      const value = collapse(result.stringValue());
      return value === '' ? [] : [{ value }];
    }
    return result.toArray().map((node) => {
      if (isAttributeNode(node)) return { value: (node.value ?? '').trim() };
      const html = xOuterHtml(node);
      return {
        value: collapse(xTextContent(node)),
        ...(node.localName !== null ? { tag: node.localName } : {}),
        ...(html !== undefined ? { html } : {}),
      };
    });
  }

  private selectJsonLd(key: string): Match[] {
    this.jsonLd ??= this.readJsonLd();
    const out: Match[] = [];
    const wanted = key.toLowerCase();
    const visit = (value: unknown, depth: number): void => {
      if (depth > 6 || value === null || typeof value !== 'object') return;
      if (Array.isArray(value)) return value.forEach((v) => visit(v, depth + 1));
      for (const [k, v] of Object.entries(value)) {
        const lower = k.toLowerCase();
        if (!k.startsWith('@') && (lower === wanted || (wanted.length >= 4 && lower.endsWith(wanted)))) {
          const text = scalarOf(v);
          if (text !== undefined) out.push({ value: text });
        }
        visit(v, depth + 1);
      }
    };
    this.jsonLd.forEach((doc) => visit(doc, 0));
    return out;
  }

  private readJsonLd(): unknown[] {
    const docs: unknown[] = [];
    this.$('script[type="application/ld+json"]').each((_, el) => {
      try {
        docs.push(JSON.parse(this.$(el).text()) as unknown);
      } catch {
        // A broken JSON-LD block is ignored, as a crawler would.
      }
    });
    return docs;
  }
}

function scalarOf(value: unknown): string | undefined {
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const name = (value as Record<string, unknown>).name;
    if (typeof name === 'string') return name;
  }
  return undefined;
}

export function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * A user's selector as a locator: XPath when it starts like one, else CSS; `img@src` and `a::attr(href)` read an
 * attribute, `::text` reads the text.
 */
export function parseSelector(selector: string): Locator {
  const trimmed = selector.trim();
  if (/^(\(|\/|\.\/|\.\.\/|[a-z][a-z-]*\()/.test(trimmed)) return { kind: 'xpath', expr: trimmed };
  const scrapy = /^(.*\S)::attr\(([\w:-]+)\)$/.exec(trimmed);
  if (scrapy?.[1] !== undefined && scrapy[2] !== undefined)
    return { kind: 'css', selector: scrapy[1], attr: scrapy[2] };
  const text = /^(.*\S)::text$/.exec(trimmed);
  if (text?.[1] !== undefined) return { kind: 'css', selector: text[1] };
  const at = /^(.*[^\s[(])@([A-Za-z_][\w:-]*)$/.exec(trimmed);
  if (at?.[1] !== undefined && at[2] !== undefined && balanced(at[1])) {
    return { kind: 'css', selector: at[1], attr: at[2] };
  }
  return { kind: 'css', selector: trimmed };
}

function balanced(text: string): boolean {
  let depth = 0;
  for (const c of text) {
    if (c === '[' || c === '(') depth++;
    if (c === ']' || c === ')') depth--;
  }
  return depth === 0;
}
