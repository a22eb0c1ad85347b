import { printable } from './escape-text.js';

export interface JsonLayout {
  /** Lines are broken between values to keep within this many characters where a value allows it. */
  width: number;
  /** A list of plain values (an input list) longer than this shows this many, then a count of the rest. */
  maxListItems: number;
}

/**
 * A JSON value laid out for a terminal: on one line when it fits `width`, else one key or element per line,
 * nested. A line is only ever broken between two values, never inside one: a long string stays whole on its own
 * line. Only a long list of plain values (an input list of thousands) is shown in part, whole entries and a count.
 * Every line is printable (escape-text.ts).
 */
export function layoutJson(value: unknown, layout: JsonLayout, indent = 0): string[] {
  return lay(value, '', indent, layout).map(printable);
}

function lay(value: unknown, prefix: string, indent: number, layout: JsonLayout): string[] {
  const pad = ' '.repeat(indent);
  const compact = JSON.stringify(value) ?? 'null';
  if (
    value === null ||
    typeof value !== 'object' ||
    pad.length + prefix.length + compact.length <= layout.width
  )
    return [`${pad}${prefix}${compact}`];
  const inner = indent + 2;
  if (Array.isArray(value)) {
    if (value.length === 0) return [`${pad}${prefix}[]`];
    const plain = value.every((v) => v === null || typeof v !== 'object');
    const shown = plain ? value.slice(0, layout.maxListItems) : value;
    const items = shown.map((v) => lay(v, '', inner, layout));
    const rest = value.length - shown.length;
    const more = rest > 0 ? [`${' '.repeat(inner)}… ${rest} more`] : [];
    return [`${pad}${prefix}[`, ...joinWithCommas(items, more.length > 0), ...more, `${pad}]`];
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return [`${pad}${prefix}{}`];
  const items = entries.map(([k, v]) => lay(v, `${JSON.stringify(k)}: `, inner, layout));
  return [`${pad}${prefix}{`, ...joinWithCommas(items, false), `${pad}}`];
}

/** The lines of each item, a comma after every item but the last (and after the last too when more follows). */
function joinWithCommas(items: string[][], commaAfterLast: boolean): string[] {
  return items.flatMap((lines, i) => {
    if (i === items.length - 1 && !commaAfterLast) return lines;
    return [...lines.slice(0, -1), `${lines[lines.length - 1] ?? ''},`];
  });
}
