import { printable } from '../invisible-characters.js';

export { printable };

/**
 * Text of several lines, each printable: a text's own line breaks stay (an error message, a JSON document), but no
 * line can clear the screen or forge another.
 */
export function printableLines(text: string): string {
  return text.split('\n').map(printable).join('\n');
}

/**
 * A value as JSON on one line, printable: JSON.stringify escapes C0 controls but leaves C1 controls and bidi
 * overrides raw. `undefined` (which has no JSON) stays undefined, for the caller to say how it shows.
 */
export function printableJson(value: unknown): string | undefined {
  const json = JSON.stringify(value) as string | undefined;
  return json === undefined ? undefined : printable(json);
}

/** A value in double quotes, with quotes and backslashes inside escaped, and printable (see above). */
export function quoted(text: string): string {
  return `"${printable(text.replace(/["\\]/g, (c) => `\\${c}`))}"`;
}
