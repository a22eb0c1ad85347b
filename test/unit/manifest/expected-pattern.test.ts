import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadManifests } from '../../../src/manifest/load-manifests.js';

let work: string | undefined;
afterEach(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
  work = undefined;
});

async function diagnosticsOf(result: string): Promise<string[]> {
  work = mkdtempSync(path.join(tmpdir(), 'scrapeform-expect-pattern-'));
  const file = path.join(work, 'p.yaml');
  writeFileSync(
    file,
    `kind: Parser
name: books
urls: [https://books.example/a.html]
expect:
  - url: https://books.example/a.html
    result: ${result}
`,
  );
  const loaded = await loadManifests({ paths: [file], env: {}, now: new Date('2026-01-01T00:00:00Z') });
  return loaded.diagnostics.map(
    (d) => `${path.basename(d.file)}:${d.line}:${d.column} ${d.code} ${d.message}`,
  );
}

describe('expect patterns at validate', () => {
  it.each([
    '{ title: "~^\\\\p{Lu}\\\\p{Ll}+$" }',
    '{ badge: "~^[😀-😎]$" }',
    "{ price: '~^£\\d+\\.\\d{2}$', title: '~^A Light' }",
  ])('accepts %s', async (result) => {
    expect(await diagnosticsOf(result)).toEqual([]);
  });

  it('refuses, at its place, an escape that means nothing (\\-), rather than read it as another character', async () => {
    expect(await diagnosticsOf("{ sku: '~^AB\\-\\d+$' }")).toEqual([
      'p.yaml:6:20 manifest.expect-pattern "~^AB\\\\-\\\\d+$" is not a valid regular expression: Invalid escape',
    ]);
  });
});
