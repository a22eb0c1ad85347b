import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { runExpectChecks } from '../apply/run-expect-checks.js';
import type { ExpectCheckResult } from '../apply/run-expect-checks.js';
import { renderChecks } from '../output/render-checks.js';
import type { RunCommand } from './io.js';
import { addApiFlags, openFromFlags } from './shared-flags.js';
import type { ApiFlags } from './shared-flags.js';

export function registerTest(program: Command, run: RunCommand): void {
  const command = program
    .command('test')
    .description('run every expect block: parse each URL and compare the result')
    .argument('[paths...]', 'manifest files or folders', [])
    .option('--json', 'print the results as JSON')
    .option('--junit <file>', 'also write JUnit XML for CI test reports');
  addApiFlags(command).action(async (paths: string[], flags: ApiFlags & { json?: boolean; junit?: string }) =>
    run(async (ctx) => {
      const ws = await openFromFlags(ctx, paths, flags);
      try {
        const state = await ws.backend.read();
        const results = await runExpectChecks(
          ws.clients,
          ws.manifests.parsers.filter((p) => p.expect.length > 0),
          state,
        );
        if (flags.junit !== undefined) await writeFile(flags.junit, renderJunit(results));
        if (flags.json === true)
          ctx.print(JSON.stringify({ passed: results.every((r) => r.ok), results }, null, 2));
        else
          ctx.print(
            results.length === 0 ? 'No expect blocks to run.' : renderChecks(results, ctx.stdoutColors),
          );
        return results.every((r) => r.ok) ? 'ok' : 'error';
      } finally {
        await ws.close();
      }
    }),
  );
}

/** JUnit XML: one test suite per parser, one test case per expect block. */
export function renderJunit(results: readonly ExpectCheckResult[]): string {
  const escape = (text: string): string =>
    text.replace(
      /[<>&"']/g,
      (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c,
    );
  const byParser = new Map<string, ExpectCheckResult[]>();
  for (const r of results) byParser.set(r.address, [...(byParser.get(r.address) ?? []), r]);
  const suites = [...byParser].map(([address, cases]) => {
    const failures = cases.filter((c) => !c.ok).length;
    const body = cases
      .map((c) => {
        const detail = [
          c.error ?? '',
          ...c.mismatches.map(
            (m) =>
              `${m.path}: expected ${JSON.stringify(m.expected)}, got ${m.reason === 'missing' ? 'missing' : JSON.stringify(m.actual)}`,
          ),
        ]
          .filter((l) => l !== '')
          .join('\n');
        const failure = c.ok
          ? ''
          : `<failure message="${escape(detail.split('\n')[0] ?? 'failed')}">${escape(detail)}</failure>`;
        return `    <testcase classname="${escape(address)}" name="${escape(c.url)}">${failure}</testcase>`;
      })
      .join('\n');
    return `  <testsuite name="${escape(address)}" tests="${cases.length}" failures="${failures}">\n${body}\n  </testsuite>`;
  });
  const failures = results.filter((r) => !r.ok).length;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="scrapeform test" tests="${results.length}" failures="${failures}">\n${suites.join('\n')}\n</testsuites>\n`;
}
