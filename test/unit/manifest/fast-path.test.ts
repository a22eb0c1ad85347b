import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifestFile } from '../../../src/manifest/load-file.js';
import type { LoadFileOptions } from '../../../src/manifest/load-file.js';
import { readPlainYaml } from '../../../src/manifest/yaml-document.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const NOW = new Date('2026-01-01T00:00:00Z');

async function yamlFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

function optionsFor(file: string): LoadFileOptions {
  return { env: { SHOP_HOST: 'shop.example', TOKEN: 't' }, now: NOW, root: path.dirname(file) };
}

/** What the fast way and the full way give for one file must be the same, diagnostics and positions included. */
function expectSameBothWays(file: string): void {
  const fast = loadManifestFile(file, optionsFor(file));
  const full = loadManifestFile(file, optionsFor(file), { fast: false });
  expect(fast, file).toEqual(full);
}

describe('the fast way of reading manifests gives what the full way gives', () => {
  it('for every fixture and example (valid, broken, warned)', async () => {
    const files = [
      ...(await yamlFiles(path.join(ROOT, 'test/fixtures'))),
      ...(await yamlFiles(path.join(ROOT, 'examples'))),
    ];
    expect(files.length).toBeGreaterThan(50);
    for (const file of files) expectSameBothWays(file);
  });

  it('for scalars the two parsers could read differently, and layouts it must not misplace', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-fast-'));
    const parser = (name: string, extra = ''): string =>
      `kind: Parser\nname: ${name}\nurls: [https://books.example/a.html]\nfields:\n  title: { description: "Heading & more * stars", selector: h1 }\n${extra}`;
    const cases: Record<string, string> = {
      'plain.yaml': parser('plain'),
      'quoted-name.yaml': parser('"quoted"'),
      'single-quoted.yaml': parser("'single'"),
      'comment-after-name.yaml': parser('commented # a comment'),
      'crlf.yaml': parser('crlf').replace(/\n/g, '\r\n'),
      'leading-comments.yaml': `# a header\n\n---\n${parser('leading')}`,
      'two-documents.yaml': `${parser('first')}---\n# between\n${parser('second')}`,
      'folded.yaml': `${parser('folded')}  body:\n    description: >\n      Folded text\n      over lines\n`,
      'literal.yaml': `${parser('literal')}  body:\n    description: |-\n      Literal text\n      kept\n`,
      'numbers.yaml': `kind: Project\nname: numbers\nprojectType: urls\nprojectInput: { type: list, list: [a, "0x1F", 1e3, +12, .5, 0o17, 0b101, 1_000] }\nscrapingInterval: hourly\n`,
      'underscore-number.yaml': parser('underscore', 'scraper_params: { session_number: 1_000 }\n'),
      'binary-number.yaml': parser('binary', 'scraper_params: { session_number: 0b11 }\n'),
      'hex-number.yaml': parser('hex', 'scraper_params: { session_number: 0x1F }\n'),
      'nulls.yaml': parser('nulls', 'scraper_params: { country_code: ~ }\n'),
      'booleans.yaml': parser('booleans', 'scraper_params: { render: True }\n'),
      'indented-document.yaml': `  kind: Parser\n  name: indented\n  urls: [https://books.example/a.html]\n  fields:\n    title: { description: Heading }\n`,
      'flow-document.yaml': `{kind: Parser, name: flow, urls: [https://books.example/a.html], fields: {title: {description: Heading}}}\n`,
      'name-on-next-line.yaml': `kind: Parser\nname:\n  next-line\nurls: [https://books.example/a.html]\nfields:\n  title: { description: Heading }\n`,
      'anchor.yaml': `kind: Parser\nname: anchored\nurls: &u [https://books.example/a.html]\nfields:\n  title: { description: Heading }\n`,
      'trailing-separator.yaml': `${parser('trailing')}---\n`,
      'document-end.yaml': `${parser('ended')}...\n`,
      'duplicate.yaml': `${parser('dup')}name: again\n`,
      'tabs.yaml': parser('tabs').replace('  title', '\ttitle'),
      'unknown-key.yaml': parser('unknown', 'colour: blue\n'),
      'multiline-plain.yaml': `${parser('multi')}  body:\n    description: a plain\n      scalar over lines\n`,
    };
    for (const [name, text] of Object.entries(cases)) {
      const file = path.join(dir, name);
      await writeFile(file, text);
      expectSameBothWays(file);
    }
    // The fast way does read the common layouts (otherwise this test would compare the full way with itself).
    for (const name of ['plain.yaml', 'quoted-name.yaml', 'two-documents.yaml', 'crlf.yaml', 'folded.yaml']) {
      expect(readPlainYaml(cases[name] ?? ''), name).toBeDefined();
    }
  });
});
