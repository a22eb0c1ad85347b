import type { Command } from 'commander';
import { ScrapeformError } from '../errors.js';
import { managedParser } from '../workspace/open-services.js';
import type { RunCommand } from './io.js';
import { addApiFlags, openServicesFromFlags, wholeNumber } from './shared-flags.js';
import type { ApiFlags } from './shared-flags.js';

export interface ResultChange {
  url: string;
  path: string;
  change: 'added' | 'removed' | 'changed';
  from?: unknown;
  to?: unknown;
}

export function registerDiffResults(program: Command, run: RunCommand): void {
  const command = program
    .command('diff-results')
    .description('what a regeneration changed in the data: example_result of two versions, field by field')
    .argument('<address>', 'parser.<name> (or just the name)')
    .requiredOption('--from <n>', 'the older version')
    .requiredOption('--to <n>', 'the newer version')
    .option('--json', 'print the changes as JSON');
  addApiFlags(command).action(
    async (address: string, flags: ApiFlags & { from: string; to: string; json?: boolean }) =>
      run(async (ctx) => {
        const from = wholeNumber(flags.from, '--from') as number;
        const to = wholeNumber(flags.to, '--to') as number;
        const services = await openServicesFromFlags(ctx, flags);
        try {
          const parser = managedParser(await services.backend.read(), address);
          const [before, after] = await Promise.all([
            services.clients.parsers.get(parser.id, from),
            services.clients.parsers.get(parser.id, to),
          ]);
          for (const details of [before, after]) {
            if (details.exampleResult === null) {
              throw new ScrapeformError(
                'diff.no-results',
                `version ${details.version} has no example_result (${details.status}${details.error ? `: ${details.error}` : ''})`,
              );
            }
          }
          const changes = diffResults(before.exampleResult ?? [], after.exampleResult ?? []);
          if (flags.json === true) ctx.print(JSON.stringify({ address, from, to, changes }, null, 2));
          else ctx.print(renderResultChanges(changes, from, to));
          return 'ok';
        } finally {
          await services.close();
        }
      }),
  );
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

function renderResultChanges(changes: readonly ResultChange[], from: number, to: number): string {
  if (changes.length === 0) return `No differences in example_result between versions ${from} and ${to}.`;
  const lines: string[] = [`example_result, version ${from} -> ${to}:`];
  let url = '';
  for (const c of changes) {
    if (c.url !== url) {
      url = c.url;
      lines.push(`  ${url}`);
    }
    if (c.change === 'added') lines.push(`    + ${c.path}: ${JSON.stringify(c.to)}`);
    else if (c.change === 'removed') lines.push(`    - ${c.path}: ${JSON.stringify(c.from)}`);
    else lines.push(`    ~ ${c.path}: ${JSON.stringify(c.from)} -> ${JSON.stringify(c.to)}`);
  }
  return lines.join('\n');
}
