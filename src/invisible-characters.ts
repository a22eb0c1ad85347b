/**
 * The characters, besides C0 controls, that change what a terminal shows rather than being shown, as the inside of
 * a regular expression's character class (read with the `u` flag): DEL, C1 controls, the Unicode bidirectional
 * overrides and isolates that reorder the text around them (CVE-2021-42574, "Trojan Source"), and the characters
 * that show as nothing (soft hyphen, combining grapheme joiner, Hangul fillers, zero-width space, joiners, word
 * joiner, invisible operators, variation selectors, byte order mark, tag characters), with which two names that
 * differ look the same. The plan's text escapes them (output/escape-text.ts) and so does render's YAML: one list.
 */
export const INVISIBLE_CHARACTERS =
  '\\u007f-\\u009f\\u00ad\\u034f\\u061c\\u115f\\u1160\\u180e\\u200b-\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\u3164\\ufe00-\\ufe0f\\ufeff\\uffa0\\u{e0000}-\\u{e007f}';

/**
 * `\u202e`: the escape JSON, YAML's double quotes and JavaScript all read as the character; beyond the 16-bit range
 * (a tag character), its two UTF-16 halves, `\udb40\udc41`, which all three read back as the one character (JSON
 * has no longer escape: printed JSON and saved plans go through here too).
 */
export function unicodeEscape(character: string): string {
  let escaped = '';
  for (let i = 0; i < character.length; i++)
    escaped += `\\u${character.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return escaped;
}

/**
 * Characters that change what a terminal shows rather than being shown: C0 controls (newline, carriage return,
 * escape: they split or overwrite lines and start colour or cursor sequences) and the invisible ones above.
 */
// eslint-disable-next-line no-misleading-character-class -- combining marks and variation selectors, each matched alone
const UNSAFE = new RegExp(`[\\u0000-\\u001f${INVISIBLE_CHARACTERS}]`, 'gu');

// eslint-disable-next-line no-misleading-character-class -- as UNSAFE
const ANY_UNSAFE = new RegExp(UNSAFE.source, 'u');

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
