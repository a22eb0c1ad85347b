import type { DesiredParser } from '../model/desired.js';
import type { ParserDefinition } from '../state/model.js';
import { stable } from './plan-context.js';

/** The definition state records of a parser: what scrapeform sends, compared across plans. */
export function definitionOf(parser: DesiredParser): ParserDefinition {
  return { urls: [...parser.urls], scraperParams: parser.scraperParams, fields: parser.fields };
}

export function sameParserDefinition(a: ParserDefinition, b: ParserDefinition): boolean {
  return stable(a) === stable(b);
}
