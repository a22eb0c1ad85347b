import { printable, printableJson } from './escape-text.js';

/** One leaf value of an example result that differs between two versions. */
export interface ResultChange {
  url: string;
  path: string;
  change: 'added' | 'removed' | 'changed';
  from?: unknown;
  to?: unknown;
}

/** Per example URL, each leaf value added, removed or changed between two versions' example results. */
export function diffResults(
  before: readonly { url: string; result: Record<string, unknown> }[],
  after: readonly { url: string; result: Record<string, unknown> }[],
): ResultChange[] {
  const urls = [...new Set([...before.map((e) => e.url), ...after.map((e) => e.url)])];
  const changes: ResultChange[] = [];
  for (const url of urls) {
    const a = flatten(before.find((e) => e.url === url)?.result ?? {});
    const b = flatten(after.find((e) => e.url === url)?.result ?? {});
    for (const [path, value] of a) {
      if (!b.has(path)) changes.push({ url, path, change: 'removed', from: value });
      else if (JSON.stringify(b.get(path)) !== JSON.stringify(value))
        changes.push({ url, path, change: 'changed', from: value, to: b.get(path) });
    }
    for (const [path, value] of b) if (!a.has(path)) changes.push({ url, path, change: 'added', to: value });
  }
  return changes;
}

function flatten(value: unknown, prefix = '', out = new Map<string, unknown>()): Map<string, unknown> {
  if (Array.isArray(value)) {
    if (value.length === 0) out.set(prefix, []);
    value.forEach((v, i) => flatten(v, `${prefix}[${i}]`, out));
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix === '' ? k : `${prefix}.${k}`, out);
  } else {
    out.set(prefix, value);
  }
  return out;
}

/** A scraped value as JSON, printable: a page can hold any character (escape-text.ts). */
function shown(value: unknown): string {
  return printableJson(value) ?? 'undefined';
}

/** The changes for people, per URL; URLs, paths and values are printable. */
export function renderResultChanges(changes: readonly ResultChange[], from: number, to: number): string {
  if (changes.length === 0) return `No differences in example_result between versions ${from} and ${to}.`;
  const lines: string[] = [`example_result, version ${from} -> ${to}:`];
  let url = '';
  for (const c of changes) {
    if (c.url !== url) {
      url = c.url;
      lines.push(`  ${printable(url)}`);
    }
    const path = printable(c.path);
    if (c.change === 'added') lines.push(`    + ${path}: ${shown(c.to)}`);
    else if (c.change === 'removed') lines.push(`    - ${path}: ${shown(c.from)}`);
    else lines.push(`    ~ ${path}: ${shown(c.from)} -> ${shown(c.to)}`);
  }
  return lines.join('\n');
}
