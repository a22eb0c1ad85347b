import type { DesiredField } from '../model/desired.js';
import type { ScraperParams } from '../model/vocabulary.js';
import { stable } from './stable-json.js';

/*
 * Two spellings of one value in a parser definition. A manifest written again (another editor, a block scalar
 * re-wrapped, a default spelled out) must not read as a change: a description's is a modify (a regeneration,
 * 30,000 credits), a scraper parameter's a replace (a new parser id, and the same again).
 */

/**
 * A description as compared: Unicode NFC (an editor or a paste on macOS may give the same text decomposed), and
 * every run of white space one space (a block scalar re-wrapped, two spaces after a full stop). What is sent stays
 * as written.
 */
export function descriptionKey(description: string): string {
  return description.normalize('NFC').replace(/\s+/gu, ' ').trim();
}

export function sameDescription(a: string, b: string): boolean {
  return a === b || descriptionKey(a) === descriptionKey(b);
}

/**
 * The scraping parameters that switch something on (seed 1, "Scraping parameters": "Enables JavaScript rendering",
 * "Use residential proxies", …): the service does it only when asked, so `false` asks for what leaving the switch
 * out asks for. follow_redirect is the one switch on by default.
 */
const OFF_UNLESS_ASKED = ['render', 'premium', 'ultra_premium', 'keep_headers', 'retry_404'] as const;

/**
 * Scraping parameters as compared: `follow_redirect: true` is the service's default (seed 1, "Scraping
 * parameters"), the same as leaving it out, as `false` is for a switch in OFF_UNLESS_ASKED; a country code names one
 * country in either case.
 */
export function scraperParamsKey(params: ScraperParams): string {
  const { follow_redirect: followRedirect, country_code: countryCode, ...rest } = params;
  const asked: Record<string, unknown> = { ...rest };
  for (const name of OFF_UNLESS_ASKED) if (asked[name] === false) delete asked[name];
  return stable({
    ...asked,
    ...(followRedirect === false ? { follow_redirect: false } : {}),
    ...(typeof countryCode === 'string' ? { country_code: countryCode.toLowerCase() } : {}),
  });
}

export function sameScraperParams(a: ScraperParams, b: ScraperParams): boolean {
  return scraperParamsKey(a) === scraperParamsKey(b);
}

/** A field as compared: its description by descriptionKey, type and selector as written. */
export function fieldKey(field: DesiredField): string {
  return stable({ ...field, description: descriptionKey(field.description) });
}
