/**
 * A yes/no field of an answer (`has_more`, `archived`) as services write it: true or false, also as a string (any
 * case, spaces around it ignored) or as 1 or 0 (a number, or its digits), as services built on string-typed or
 * integer columns send them. Read only as `=== true`, a `"true"` said nothing: a list ended on its first page, a
 * project archived in the dashboard read as live and was run, paid per page. Undefined when unset (absent or null);
 * `'unreadable'` for any other value, which the caller refuses, naming the field and the value: guessed either way,
 * it may start paid work or plan a duplicate.
 */
export function readFlag(value: unknown): boolean | 'unreadable' | undefined {
  if (value === undefined || value === null) return undefined;
  const spelled = typeof value === 'string' ? value.trim().toLowerCase() : value;
  if (spelled === true || spelled === 'true' || spelled === 1 || spelled === '1') return true;
  if (spelled === false || spelled === 'false' || spelled === 0 || spelled === '0') return false;
  return 'unreadable';
}

/** What is wrong with a value readFlag finds unreadable, the value quoted and cut short past 40 characters. */
export function notAFlag(value: unknown): string {
  return `expected true or false, got ${quoted(value)}`;
}

/** A value of an answer as messages quote it: its JSON, cut short past 40 characters. */
export function quoted(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
