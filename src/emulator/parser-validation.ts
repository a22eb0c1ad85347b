import { DEVICE_TYPES, FIELD_TYPES as SEED_FIELD_TYPES, SCRAPING_PARAMETERS } from '../model/vocabulary.js';
import { fieldTree } from './extraction/fields.js';
import type { FieldSpec } from './extraction/fields.js';
import type { ScrapingParams } from './fetcher.js';
import { HttpError } from './http.js';

/** The seed's scraping parameters and their types, for validating `scraper_params` and the parse query. */
const SCRAPING_PARAMS: Readonly<Record<string, 'boolean' | 'string' | 'integer'>> = SCRAPING_PARAMETERS;

const FIELD_TYPES: ReadonlySet<string> = new Set(SEED_FIELD_TYPES);

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * What is wrong with one scraping parameter's value, or undefined when the seed's table allows it (seed 1,
 * "Scraping parameters"): the type of each parameter, `device_type` `desktop` or `mobile`, `country_code` two
 * letters, and `session_number` at least 1 (API-NOTES: the official clients number sessions from 1).
 */
function scrapingParamProblem(key: string, value: unknown): string | undefined {
  const type = SCRAPING_PARAMS[key];
  if (type === 'boolean') return typeof value === 'boolean' ? undefined : 'must be true or false';
  if (type === 'integer')
    return Number.isInteger(value) && (value as number) >= 1 ? undefined : 'must be an integer of at least 1';
  if (typeof value !== 'string') return 'must be a string';
  if (key === 'device_type' && !(DEVICE_TYPES as readonly string[]).includes(value))
    return `must be ${DEVICE_TYPES.join(' or ')}`;
  if (key === 'country_code' && !/^[A-Za-z]{2}$/.test(value)) return 'must be a two-letter country code';
  return undefined;
}

/** `scraper_params` of a create: 400 for an unknown parameter or a value the seed's table does not allow. */
export function checkScrapingParams(value: unknown): ScrapingParams {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new HttpError(400, 'scraper_params must be an object');
  for (const [key, v] of Object.entries(value)) {
    if (SCRAPING_PARAMS[key] === undefined) throw new HttpError(400, `unknown scraping parameter: ${key}`);
    const problem = scrapingParamProblem(key, v);
    if (problem !== undefined)
      throw new HttpError(400, `scraper_params.${key} ${problem}, got ${JSON.stringify(v)}`);
  }
  return value as ScrapingParams;
}

/**
 * The scraping parameters of a parse, passed flattened in the query (API-NOTES): 400 for a value the seed's table
 * does not allow (a boolean is `true` or `false`, an integer is written in digits); keys that are not scraping
 * parameters (`url`, `api_key`) are not looked at.
 */
export function scrapingParamsFromQuery(query: URLSearchParams): ScrapingParams {
  const params: ScrapingParams = {};
  for (const [key, raw] of query) {
    const type = SCRAPING_PARAMS[key];
    if (type === undefined) continue;
    const value =
      type === 'boolean'
        ? raw === 'true'
          ? true
          : raw === 'false'
            ? false
            : raw
        : type === 'integer' && /^\d+$/.test(raw)
          ? Number(raw)
          : raw;
    const problem = scrapingParamProblem(key, value);
    if (problem !== undefined) throw new HttpError(400, `${key} ${problem}, got ${JSON.stringify(raw)}`);
    params[key] = value;
  }
  return params;
}

/** A list of field definitions under `key` (fields, add_fields, modify_fields): 400 naming the bad entry. */
export function checkFieldList(value: unknown, key: string): FieldSpec[] {
  if (!Array.isArray(value)) throw new HttpError(400, `${key} must be a list of field definitions`);
  return value.map((entry, i) => {
    if (entry === null || typeof entry !== 'object')
      throw new HttpError(400, `${key}[${i}] must be an object`);
    const { name, description, type, selector } = entry as Record<string, unknown>;
    if (typeof name !== 'string' || name === '') throw new HttpError(400, `${key}[${i}].name is required`);
    if (typeof description !== 'string' || description.trim() === '') {
      throw new HttpError(400, `${key}[${i}].description is required`);
    }
    if (type !== undefined && (typeof type !== 'string' || !FIELD_TYPES.has(type))) {
      throw new HttpError(400, `${key}[${i}].type must be string, number or array`);
    }
    if (selector !== undefined && typeof selector !== 'string')
      throw new HttpError(400, `${key}[${i}].selector must be a string`);
    return {
      name,
      description,
      ...(type !== undefined ? { type: type as FieldSpec['type'] } : {}),
      ...(selector !== undefined ? { selector } : {}),
    } as FieldSpec;
  });
}

/** Field names are unique and every dotted child has its parent. */
export function checkTree(fields: readonly FieldSpec[]): void {
  const seen = new Set<string>();
  for (const field of fields) {
    if (seen.has(field.name)) throw new HttpError(400, `field ${field.name} is listed twice`);
    seen.add(field.name);
  }
  try {
    fieldTree(fields);
  } catch (error) {
    throw new HttpError(400, (error as Error).message);
  }
}
