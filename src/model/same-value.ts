import { isRecord } from '../is-record.js';

/**
 * How a service may write back a value it took, where the seed says nothing of its spelling: an enum in another case
 * (`csv` for `CSV`, `DAILY` for `daily`), and a scraping parameter as the text it travels as (`"true"` for `true`,
 * `"5"` for `5`: DataPipeline passes apiParams on to the scraping API as query parameters). Read as other values,
 * each apply sent them again (stopped only after one needless PATCH by what state holds back) and every plan warned
 * that the service had not taken them. Values that differ otherwise stay different.
 */

/** Two enum values that differ at most in case and surrounding spaces. */
export function sameWord(a: unknown, b: unknown): boolean {
  if (typeof a !== 'string' || typeof b !== 'string') return a === b;
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/** Two objects of enum values (notificationConfig) with the same keys, each value the same word (sameWord). */
export function sameWords(a: unknown, b: unknown): boolean {
  return sameEntries(a, b, sameWord);
}

/**
 * Two apiParams objects with the same keys whose values read the same as query parameters: scalars by their text
 * (`true` and `"true"`), lists and objects inside them element by element. Case is kept: a parameter's value may
 * be case-sensitive (a selector, a session), and the service's casing of one is no reason to assume otherwise.
 */
export function sameParams(a: unknown, b: unknown): boolean {
  return sameEntries(a, b, sameParam);
}

function sameParam(a: unknown, b: unknown): boolean {
  if (isScalar(a) && isScalar(b)) return String(a) === String(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, at) => sameParam(item, b[at]));
  }
  return sameEntries(a, b, sameParam);
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function sameEntries(a: unknown, b: unknown, same: (x: unknown, y: unknown) => boolean): boolean {
  if (a === b) return true;
  if (!isRecord(a) || !isRecord(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && same(a[key], b[key]));
}
