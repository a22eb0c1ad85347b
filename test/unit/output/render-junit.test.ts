import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import type { ExpectCheckResult } from '../../../src/apply/run-expect-checks.js';
import { renderJunit } from '../../../src/output/render-junit.js';

const XSD = path.resolve(import.meta.dirname, '../../fixtures/junit/junit.xsd');

/** libxml2's xmllint (compiled to WebAssembly, so it runs offline) against the committed JUnit schema. */
async function validate(xml: string): Promise<string[]> {
  const result = await validateXML({
    xml: [{ fileName: 'report.xml', contents: xml }],
    schema: [{ fileName: 'junit.xsd', contents: await readFile(XSD, 'utf8') }],
  });
  return result.errors.map((e) => e.message);
}

const at = (ms: number): string => new Date(Date.UTC(2026, 10, 23, 8, 0, 0, ms)).toISOString();

const results: ExpectCheckResult[] = [
  {
    address: 'parser.books',
    url: 'https://books.example/a.html',
    ok: true,
    version: 2,
    mismatches: [],
    startedAt: at(0),
    durationMs: 1234,
  },
  {
    address: 'parser.books',
    url: 'https://books.example/b.html?q="x"&y=<1>',
    ok: false,
    version: 2,
    mismatches: [{ path: 'price', expected: 12.5, actual: '12,50\u0007', reason: 'different' }],
    startedAt: at(1300),
    durationMs: 250,
  },
  {
    address: 'parser.news',
    url: 'https://news.example/1.html',
    ok: false,
    mismatches: [],
    error: 'not applied yet: no parser to run',
    startedAt: at(1600),
    durationMs: 0,
  },
];

const report = { results, interrupted: false, notRun: [] };

describe('JUnit from scrapeform test', () => {
  it('is valid against the JUnit schema, with time, timestamp, errors and skipped on every suite', async () => {
    const xml = renderJunit(report);
    expect(await validate(xml)).toEqual([]);
    expect(xml).toContain(
      '<testsuites name="scrapeform test" tests="3" failures="1" errors="1" skipped="0" time="1.484" timestamp="2026-11-23T08:00:00">',
    );
    expect(xml).toContain(
      '<testsuite name="parser.books" tests="2" failures="1" errors="0" skipped="0" time="1.484" timestamp="2026-11-23T08:00:00">',
    );
    expect(xml).toContain(
      '<testsuite name="parser.news" tests="1" failures="0" errors="1" skipped="0" time="0.000" timestamp="2026-11-23T08:00:01">',
    );
    expect(xml).toContain(
      '<testcase classname="parser.books" name="https://books.example/a.html" time="1.234"/>',
    );
    // A check that could not run is an error; one whose values differ is a failure.
    expect(xml).toContain(
      '<error message="not applied yet: no parser to run" type="scrapeform.check-error">not applied yet: no parser to run</error>',
    );
    expect(xml).toContain(
      '<failure message="price: expected 12.5, got &quot;12,50\\u0007&quot;" type="scrapeform.expect-mismatch">',
    );
    // time is what dorny/test-reporter reads with parseFloat.
    const times = [...xml.matchAll(/ time="([^"]*)"/g)].map((m) => Number.parseFloat(m[1] ?? ''));
    expect(times.every((t) => Number.isFinite(t) && t >= 0)).toBe(true);
  });

  it('an interrupted run: the checks not run are skipped, with a message, in their suites (one of its own too)', async () => {
    const xml = renderJunit({
      results: results.slice(0, 2),
      interrupted: true,
      notRun: [
        { address: 'parser.books', url: 'https://books.example/c.html' },
        { address: 'parser.news', url: 'https://news.example/1.html' },
      ],
    });
    expect(await validate(xml)).toEqual([]);
    expect(xml).toContain(
      '<testsuites name="scrapeform test" tests="4" failures="1" errors="0" skipped="2" time="1.484" timestamp="2026-11-23T08:00:00">',
    );
    expect(xml).toContain(
      [
        '    <testcase classname="parser.books" name="https://books.example/c.html" time="0.000">',
        '      <skipped message="not run: interrupted before its parse was sent" type="scrapeform.not-run"/>',
        '    </testcase>',
        '  </testsuite>',
        '  <testsuite name="parser.news" tests="1" failures="0" errors="0" skipped="1" time="0.000" timestamp="2026-11-23T08:00:00">',
      ].join('\n'),
    );
  });

  it('no checks at all is still a valid report', async () => {
    const xml = renderJunit({ results: [], interrupted: false, notRun: [] });
    expect(await validate(xml)).toEqual([]);
    expect(xml).toContain('tests="0" failures="0" errors="0" skipped="0" time="0.000"');
  });

  it('the schema rejects what test-report tools cannot read (the check of the check)', async () => {
    const broken = renderJunit(report).replace(' time="1.234"', ' time="1,234"');
    expect((await validate(broken)).join('\n')).toMatch(/time.*1,234/);
    const noTimestamp = renderJunit(report).replace(/ timestamp="[^"]*"/, '');
    expect((await validate(noTimestamp)).join('\n')).toContain('timestamp');
  });
});
