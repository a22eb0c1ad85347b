import { printableLines } from './escape-text.js';

/**
 * A value as the JSON a command prints (`--json`, `parse`, `state pull`), indented. JSON.stringify escapes the C0
 * controls inside strings but leaves DEL, the C1 controls (U+009B is a one-byte CSI to some terminals), the bidi
 * overrides and the invisible characters raw, so a service's value could still drive the terminal of whoever reads
 * the output. Outside its strings the text holds only line breaks and spaces, so printing each line printable
 * (escape-text.ts) writes exactly those characters as `\uXXXX` escapes inside their strings: still valid JSON, and
 * JSON.parse gives back the identical value, so a consumer gets the exact data.
 */
export function renderJson(value: unknown): string {
  return printableLines(JSON.stringify(value, null, 2));
}
