import type { ExpectCheckResult } from '../apply/run-expect-checks.js';
import type { NotRunCheck, TestReport } from './render-test-report.js';

/** A test case: a check that ran, or one an interrupt stopped before its parse was sent (`run` left out). */
interface Case {
  address: string;
  url: string;
  run?: ExpectCheckResult;
}

const NOT_RUN = 'not run: interrupted before its parse was sent';

/**
 * JUnit XML for CI test reports: one test suite per parser, one test case per expect block. Counts, `time` (seconds
 * as a plain decimal: dorny/test-reporter reads it with parseFloat) and `timestamp` are on every suite and on the
 * root, as Surefire writes them and report tools expect. A check whose values differ is a `failure`; one that could
 * not run at all (the page could not be parsed, the parser is not applied yet) is an `error`. A check Ctrl-C stopped
 * before its parse was sent is `skipped` (with a message), so a report read without the exit code is not green
 * with checks missing; no other check is skipped. Checked against test/fixtures/junit/junit.xsd.
 */
export function renderJunit(report: TestReport): string {
  const all: Case[] = [
    ...report.results.map((run) => ({ address: run.address, url: run.url, run })),
    ...report.notRun.map((c: NotRunCheck) => ({ address: c.address, url: c.url })),
  ];
  const byParser = new Map<string, Case[]>();
  for (const c of all) byParser.set(c.address, [...(byParser.get(c.address) ?? []), c]);
  const root = totals(all);
  const suites = [...byParser].map(([address, cases]) => {
    const body = cases.map((c) => `    ${renderCase(address, c)}`).join('\n');
    // A suite of checks none of which ran has no start of its own: the run's.
    const counts = totals(cases, root.timestamp);
    return `  <testsuite ${attributes({ name: address, ...counts })}>\n${body}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ${attributes({ name: 'scrapeform test', ...root })}>\n${suites.join('\n')}${suites.length > 0 ? '\n' : ''}</testsuites>\n`;
}

function renderCase(address: string, { url, run: c }: Case): string {
  const head = `<testcase ${attributes({ classname: address, name: url, time: seconds(c?.durationMs ?? 0) })}`;
  if (c === undefined)
    return `${head}>\n      <skipped ${attributes({ message: NOT_RUN, type: 'scrapeform.not-run' })}/>\n    </testcase>`;
  if (c.ok) return `${head}/>`;
  const detail = [
    c.error ?? '',
    ...c.mismatches.map(
      (m) =>
        `${m.path}: expected ${JSON.stringify(m.expected)}, got ${m.reason === 'missing' ? 'missing' : JSON.stringify(m.actual)}`,
    ),
  ]
    .filter((l) => l !== '')
    .join('\n');
  const element = c.error !== undefined ? 'error' : 'failure';
  const type = c.error !== undefined ? 'scrapeform.check-error' : 'scrapeform.expect-mismatch';
  const message = detail.split('\n')[0] ?? 'failed';
  return `${head}>\n      <${element} ${attributes({ message, type })}>${escapeXml(detail, false)}</${element}>\n    </testcase>`;
}

/** Counts, total time and start of a group of checks, as attribute values. */
function totals(cases: readonly Case[], noStart?: string): Record<string, string> {
  const ran = cases.flatMap((c) => (c.run !== undefined ? [c.run] : []));
  const errors = ran.filter((c) => !c.ok && c.error !== undefined).length;
  const failures = ran.filter((c) => !c.ok && c.error === undefined).length;
  const started = ran.map((c) => c.startedAt).sort()[0];
  return {
    tests: String(cases.length),
    failures: String(failures),
    errors: String(errors),
    skipped: String(cases.length - ran.length),
    time: seconds(ran.reduce((sum, c) => sum + c.durationMs, 0)),
    // Surefire's form: ISO 8601 without the zone (the times are UTC); `noStart` is already in it.
    timestamp: (started ?? noStart ?? new Date(0).toISOString()).replace(/(\.\d+)?Z$/, ''),
  };
}

function seconds(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(3);
}

function attributes(values: Record<string, string>): string {
  return Object.entries(values)
    .map(([k, v]) => `${k}="${escapeXml(v, true)}"`)
    .join(' ');
}

/**
 * Text for XML: the five special characters as entities, line breaks and tabs as character references inside an
 * attribute (where a parser would turn them into spaces), and characters XML 1.0 cannot carry at all (other
 * controls, lone surrogates) replaced, so a page's odd bytes never make the report unreadable.
 */
function escapeXml(text: string, inAttribute: boolean): string {
  const escaped = text.replace(/[&<>"']/g, (c) => XML_ENTITIES[c] ?? c);
  return (inAttribute ? escaped.replace(/[\n\r\t]/g, (c) => `&#${c.charCodeAt(0)};`) : escaped).replace(
    // eslint-disable-next-line no-control-regex
    /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    '\ufffd',
  );
}

const XML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};
