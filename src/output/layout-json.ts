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
 * Every line is printable (escape-text.ts). `json` is the value's JSON when the caller already has it.
 *
 * Written into one array, each value's JSON made once: a plan of 1,000 creates lays out 1,000 bodies, and the
 * nested arrays, spreads and second JSON of the whole body were most of the time it took to print (bench/scale.js).
 */
export function layoutJson(
  value: unknown,
  layout: JsonLayout,
  indent = 0,
  json: string = JSON.stringify(value) ?? 'null',
): string[] {
  const out: string[] = [];
  lay(value, json, '', indent, layout, out);
  for (let i = 0; i < out.length; i++) out[i] = printable(out[i] as string);
  return out;
}

const pads: string[] = [];

function pad(indent: number): string {
  return (pads[indent] ??= ' '.repeat(indent));
}

function lay(
  value: unknown,
  json: string,
  prefix: string,
  indent: number,
  layout: JsonLayout,
  out: string[],
): void {
  const head = pad(indent);
  if (
    value === null ||
    typeof value !== 'object' ||
    head.length + prefix.length + json.length <= layout.width
  ) {
    out.push(`${head}${prefix}${json}`);
    return;
  }
  const inner = indent + 2;
  if (Array.isArray(value)) {
    if (value.length === 0) {
      out.push(`${head}${prefix}[]`);
      return;
    }
    const plain = value.every((v) => v === null || typeof v !== 'object');
    const shown = plain ? Math.min(value.length, layout.maxListItems) : value.length;
    const rest = value.length - shown;
    out.push(`${head}${prefix}[`);
    for (let i = 0; i < shown; i++) {
      const item: unknown = value[i];
      lay(item, JSON.stringify(item) ?? 'null', '', inner, layout, out);
      // A comma after every item but the last, and after the last too when the count of the rest follows.
      if (i < shown - 1 || rest > 0) out[out.length - 1] += ',';
    }
    if (rest > 0) out.push(`${pad(inner)}… ${rest} more`);
    out.push(`${head}]`);
    return;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).filter((key) => record[key] !== undefined);
  if (keys.length === 0) {
    out.push(`${head}${prefix}{}`);
    return;
  }
  out.push(`${head}${prefix}{`);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const item = record[key];
    lay(item, JSON.stringify(item) ?? 'null', `${JSON.stringify(key)}: `, inner, layout, out);
    if (i < keys.length - 1) out[out.length - 1] += ',';
  }
  out.push(`${head}}`);
}
