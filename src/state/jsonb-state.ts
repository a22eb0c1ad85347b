import { ScrapeformError } from '../errors.js';
import { checkStateFormat, emptyState } from './model.js';
import type { State } from './model.js';

/*
 * A state as the jsonb column of a PostgreSQL workspace table holds it. jsonb refuses two things a JSON string may
 * hold: the character NUL (`\u0000`, SQLSTATE 22P05) and half of a UTF-16 surrogate pair (`\ud83d` alone). Text a
 * service answered (a generation's error, a live name) is recorded as it came, and the file backend keeps it: pushed
 * into PostgreSQL, or written there by an apply, it failed every write, and each apply after it again, with only
 * SQL's words to go on. Such a state is stored as its JSON text, a jsonb string (which holds those characters as
 * the escapes JSON.stringify writes), and read back as it was written; any other state stays a jsonb object, as
 * earlier versions wrote and read it.
 */

/** The value of the `state` column (a query parameter, cast to jsonb) for `state`. */
export function stateColumnOf(state: unknown): string {
  const text = JSON.stringify(state);
  return jsonbRefuses(text) ? JSON.stringify(text) : text;
}

/** The row of a workspace table, as its state is read: undefined while none was written. */
export interface StateRow {
  state: unknown;
}

/**
 * The state a row holds, checked as every backend checks what it reads (checkStateFormat): an object as it is, one
 * stored as its JSON text parsed (stateColumnOf); an empty state (serial 0, no lineage) when there is no row yet.
 */
export function stateOfRow(row: StateRow | undefined, location: string): State {
  if (row === undefined) return emptyState('');
  const value = row.state;
  if (typeof value !== 'string') return checkStateFormat(value, location);
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new ScrapeformError(
      'state.corrupt',
      `the state in ${location} is not a scrapeform state (it is a string that is not JSON: ${(error as Error).message})`,
      { hint: 'restore it from a backup' },
    );
  }
  return checkStateFormat(parsed, location);
}

/**
 * Whether JSON text written by JSON.stringify holds an escape jsonb refuses: NUL, or a surrogate (JSON.stringify
 * escapes only those that are half a pair). Every backslash JSON.stringify writes starts an escape, so reading them
 * from the left finds each whole (`\\u0000` is a backslash and `u0000`, not NUL).
 */
function jsonbRefuses(text: string): boolean {
  for (const [escape] of text.matchAll(/\\(?:u[0-9a-f]{4}|.)/g)) {
    if (escape === '\\u0000' || /^\\ud[89a-f]/.test(escape)) return true;
  }
  return false;
}
