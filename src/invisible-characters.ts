/**
 * The characters, besides C0 controls, that change what a terminal shows rather than being shown, as the inside of
 * a regular expression's character class: DEL, C1 controls, the Unicode bidirectional overrides and isolates that
 * reorder the text around them (CVE-2021-42574, "Trojan Source"), and the characters that show as nothing (soft
 * hyphen, zero-width space, joiners, word joiner, invisible operators, byte order mark), with which two names that
 * differ look the same. The plan's text escapes them (output/escape-text.ts) and so does render's YAML: one list.
 */
export const INVISIBLE_CHARACTERS =
  '\\u007f-\\u009f\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff';

/** `\u202e`: the escape JSON, YAML's double quotes and JavaScript all read as the character. */
export function unicodeEscape(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * Characters that change what a terminal shows rather than being shown: C0 controls (newline, carriage return,
 * escape: they split or overwrite lines and start colour or cursor sequences) and the invisible ones above.
 */
const UNSAFE = new RegExp(`[\\u0000-\\u001f${INVISIBLE_CHARACTERS}]`, 'g');

const ANY_UNSAFE = new RegExp(UNSAFE.source);

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A user or service value made safe to print on one line: every character in UNSAFE is written as a visible escape
 * (`\n`, `\u001b`), so a hostile name can neither split a plan line, spoof another line, nor colour the terminal.
 * The plan's text prints values so (output/escape-text.ts), and render's heading comment names files so.
 */
export function printable(text: string): string {
  // Most text has nothing to escape: one scan without the replace's callback machinery.
  if (!ANY_UNSAFE.test(text)) return text;
  return text.replace(UNSAFE, (c) => NAMED[c] ?? unicodeEscape(c));
}
