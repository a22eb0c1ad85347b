import { INVISIBLE_CHARACTERS, unicodeEscape } from '../invisible-characters.js';

/**
 * Characters that change what a terminal shows rather than being shown: C0 controls (newline, carriage return,
 * escape: they split or overwrite lines and start colour or cursor sequences) and the invisible ones (DEL, C1
 * controls, bidirectional overrides, zero-width characters: see invisible-characters.ts).
 */
const UNSAFE = new RegExp(`[\\u0000-\\u001f${INVISIBLE_CHARACTERS}]`, 'g');

const ANY_UNSAFE = new RegExp(UNSAFE.source);

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A user or service value made safe to print on one line: every character in UNSAFE is written as a visible escape
 * (`\n`, `\u001b`), so a hostile name can neither split a plan line, spoof another line, nor colour the terminal.
 */
export function printable(text: string): string {
  // Most text has nothing to escape: one scan without the replace's callback machinery.
  if (!ANY_UNSAFE.test(text)) return text;
  return text.replace(UNSAFE, (c) => NAMED[c] ?? unicodeEscape(c));
}

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
