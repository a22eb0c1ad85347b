import type { ExpectCheckResult } from '../apply/run-expect-checks.js';

/** JUnit XML for CI test reports: one test suite per parser, one test case per expect block. */
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
