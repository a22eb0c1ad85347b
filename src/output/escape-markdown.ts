import { printable } from './escape-text.js';

/**
 * Prose that holds user or service values (names, descriptions, reasons, URLs, error texts), as GitHub-flavoured
 * Markdown that shows it as text: on one line (a newline could start an HTML block such as `</details>` or a code
 * fence), HTML characters as entities, the Markdown punctuation that opens something backslash-escaped (no image,
 * link, emphasis, strike-through, table cell, math or code span can form), and `@` followed by a word joiner, so
 * `@everyone` or `@org/team` notifies nobody.
 * A word joiner (which shows as nothing) also follows a `#` or `GH-` before a digit: GitHub reads `#12`, `GH-12` and
 * `owner/repo#12` in the rendered text as issue references, links them and records each on the issue named, in this
 * repository or another; a backslash would not stop it (it is gone by then).
 */
export function markdownText(text: string): string {
  return printable(text)
    .replace(/[&<>"]/g, (c) => HTML_ENTITIES[c] ?? c)
    .replace(/[\\`*_[\]!|~$]/g, (c) => `\\${c}`)
    .replace(/@/g, '@\u2060')
    .replace(/(#|\bGH-)(?=\d)/gi, '$1\u2060');
}

/**
 * A value as an inline code span (addresses, ids, request paths): shown literally, never a mention or a link. The
 * fence is one backtick longer than the longest run inside, as CommonMark allows, so no value can close it early.
 */
export function markdownCode(text: string): string {
  const value = printable(text);
  const longest = Math.max(0, ...[...value.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = value.startsWith('`') || value.endsWith('`') || value.startsWith(' ') ? ' ' : '';
  return `${fence}${pad}${value}${pad}${fence}`;
}

/**
 * A value as a code span in a GFM table cell: a `|` ends the cell even inside a code span, so it is
 * backslash-escaped; GitHub takes the backslash out before it reads the span, which then shows the `|` alone.
 */
export function tableCode(text: string): string {
  return markdownCode(text).replace(/\|/g, '\\|');
}

/** A value inside raw HTML (the `<summary>` of a details block): entities only, on one line. */
export function htmlText(text: string): string {
  return printable(text).replace(/[&<>"']/g, (c) => HTML_ENTITIES[c] ?? c);
}

const HTML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
