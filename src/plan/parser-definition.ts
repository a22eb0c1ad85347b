import type { DesiredParser } from '../model/desired.js';
import type { ParserDefinition } from '../state/model.js';
import { byCodeUnit } from '../code-unit-order.js';
import { sameExampleUrls } from './example-urls.js';
import { fieldKey, sameScraperParams } from './parser-spelling.js';

/** The definition state records of a parser: what scrapeform sends, compared across plans. */
export function definitionOf(parser: DesiredParser): ParserDefinition {
  return { urls: [...parser.urls], scraperParams: parser.scraperParams, fields: parser.fields };
}

/**
 * Whether two definitions ask the service for the same parser: fields in any order (a map in the manifest), and
 * urls, scraper_params and descriptions compared as the plan compares them (example-urls.ts, parser-spelling.ts).
 * A definition that FAILED twice is not retried by itself only while this holds (plan-parser-generation.ts).
 */
export function sameParserDefinition(a: ParserDefinition, b: ParserDefinition): boolean {
  const left = a.fields.map(fieldKey).sort(byCodeUnit);
  const right = b.fields.map(fieldKey).sort(byCodeUnit);
  return (
    sameExampleUrls(a.urls, b.urls) &&
    sameScraperParams(a.scraperParams, b.scraperParams) &&
    left.length === right.length &&
    left.every((key, i) => key === right[i])
  );
}
