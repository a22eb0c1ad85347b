import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadManifests } from '../../../src/manifest/load-manifests.js';
import type { LoadedManifests } from '../../../src/manifest/load-manifests.js';

const dirs: string[] = [];

/** A folder with these files (name -> text). */
async function project(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-references-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
  return dir;
}

afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** Each diagnostic as `file:line:col path: message`, files relative to the folder. */
function reported(loaded: LoadedManifests, dir: string): string[] {
  return loaded.diagnostics.map(
    (d) => `${path.relative(dir, d.file)}:${d.line}:${d.column} ${d.path}: ${d.message}`,
  );
}

const PARSER = `kind: Parser
name: books
urls: [https://books.example/a.html]
scraper_params:
  render: \${RENDER}
fields:
  title:
    description: Title
    selector: \${TITLE_SELECTOR:-@title}
`;

describe('a whole unquoted reference', () => {
  it.each(['*', '@handle', '`x', '%x', '"oops', '[a', 'a: b', '~', "'quoted'", 'a #b', '!!binary aGk='])(
    'keeps the value %j as text when YAML does not read it as a boolean or number',
    async (value) => {
      const dir = await project({ 'a.yaml': PARSER });
      const loaded = await loadManifests({ paths: [dir], env: { RENDER: value } });
      expect(reported(loaded, dir)).toEqual([
        `a.yaml:5:11 scraper_params.render: expected a boolean, got "${value}"`,
      ]);
      expect(loaded.valid).toBe(false);
      expect(loaded.parsers).toEqual([]);
    },
  );

  it('keeps a default YAML cannot read as text, and still types one it can', async () => {
    const dir = await project({ 'a.yaml': PARSER });
    const loaded = await loadManifests({ paths: [dir], env: { RENDER: 'true' } });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.parsers[0]?.scraperParams).toEqual({ render: true });
    expect(loaded.parsers[0]?.fields).toEqual([{ name: 'title', description: 'Title', selector: '@title' }]);
  });
});

describe('a reference in a key', () => {
  it('is an error at the key, not a field sent under the literal name', async () => {
    const dir = await project({
      'a.yaml': `kind: Parser
name: books
urls: [https://books.example/a.html]
fields:
  price_\${CURRENCY}:
    description: Price
`,
    });
    const loaded = await loadManifests({ paths: [dir], env: { CURRENCY: 'usd' } });
    expect(reported(loaded, dir)).toEqual([
      'a.yaml:5:3 fields.price_${CURRENCY}: the key "price_${CURRENCY}" holds ${: references are not expanded in keys',
    ]);
    expect(loaded.diagnostics[0]?.hint).toBe('write the key out in full; ${…} is expanded in values only');
    expect(loaded.parsers).toEqual([]);
  });

  it('is reported once for a for_each manifest, without a misleading "contains a dot"', async () => {
    const dir = await project({
      'a.yaml': `kind: Parser
name: keys-\${each.c}
for_each: [{c: de}, {c: fr}]
urls: [https://books.example/a.html]
fields:
  price_\${each.c}:
    description: Price in \${each.c}
`,
    });
    const loaded = await loadManifests({ paths: [dir], env: {} });
    expect(reported(loaded, dir)).toEqual([
      'a.yaml:6:3 fields.price_${each.c}: the key "price_${each.c}" holds ${: references are not expanded in keys',
    ]);
    expect(loaded.parsers).toEqual([]);
  });
});
