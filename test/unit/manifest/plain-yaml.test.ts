import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { loadManifests } from '../../../src/manifest/load-manifests.js';
import type { LoadManifestsOptions } from '../../../src/manifest/load-manifests.js';
import { loadPlainFile } from '../../../src/manifest/load-plain.js';
import { readPlainYaml } from '../../../src/manifest/read-plain-yaml.js';
import { collectTemplates } from '../../../src/manifest/templates.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures');
const EXAMPLES = path.resolve(import.meta.dirname, '../../../examples');
const NOW = new Date('2026-01-01T00:00:00Z');
const ENV = { ENV_NAME: 'prod', PREMIUM: 'true', COUNTRY: 'de', SCRAPERAPI_API_KEY: 'k' };

/** Both ways of reading the same paths; everything they return must be the same. */
async function readBothWays(options: Omit<LoadManifestsOptions, 'env' | 'now'>) {
  const common = { env: ENV, now: NOW, ...options };
  const fast = await loadManifests({ ...common, reading: 'fast' });
  const positions = await loadManifests({ ...common, reading: 'positions' });
  return { fast, positions };
}

function yamlFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.ya?ml$/.test(f))
    .map((f) => path.join(folder, f))
    .filter((f) => statSync(f).isFile());
}

/** What the document model (the reference) makes of a text: each document's data. */
function modelData(text: string): unknown[] {
  return parseAllDocuments(text, { merge: true, uniqueKeys: true }).map((d) => d.toJS());
}

const work = mkdtempSync(path.join(tmpdir(), 'scrapeform-plain-yaml-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('reading manifests without positions', () => {
  it.each(readdirSync(EXAMPLES))('gives the same objects and messages for examples/%s', async (example) => {
    const folder = path.join(EXAMPLES, example);
    const { fast, positions } = await readBothWays({ paths: [folder] });
    expect(fast).toEqual(positions);
  });

  it.each(yamlFiles(FIXTURES).map((f) => path.relative(FIXTURES, f)))(
    'gives the same objects and messages for the fixture %s',
    async (file) => {
      const { fast, positions } = await readBothWays({
        paths: [path.join(FIXTURES, file)],
        projectFile: false,
      });
      expect(fast).toEqual(positions);
    },
  );

  it('gives the same objects for each fixture folder read whole (duplicate names across files)', async () => {
    for (const folder of [path.join(FIXTURES, 'valid'), path.join(FIXTURES, 'broken', 'duplicate-names')]) {
      const { fast, positions } = await readBothWays({ paths: [folder], projectFile: false });
      expect(fast).toEqual(positions);
    }
  });

  // Scalars, keys and layouts where js-yaml and yaml's document model could disagree.
  const cases: Record<string, string> = {
    'YAML 1.1 booleans, octal-looking numbers and timestamps stay what YAML 1.2 makes them': `kind: Parser
name: a
urls: [https://books.example/]
x-notes: { seen: on, count: 0o10, hex: 0x1F, grouped: 1_000, when: 2024-01-01, inf: -.inf }
fields:
  title: { description: on no yes off, selector: h1 }
scraper_params: { render: False, country_code: no, session_number: 010 }
---
kind: Project
name: b
projectType: urls
projectInput: { type: list, list: [https://books.example/] }
scrapingInterval: hourly
scheduledAt: 2099-01-01T00:00:00Z
`,
    'several documents after comments and markers, with a quoted name and a trailing comment': `# leading comment

---
# before the first key
kind: Parser
name: "b-1"  # the name
urls: [https://books.example/]
fields:
  title: { description: Title }
---
kind: Project
name: 'c'
projectType: urls
projectInput: { type: list, list: [https://books.example/] }
`,
    'an indented root map and CRLF line ends':
      '  kind: Parser\r\n  name: d\r\n  urls: [https://books.example/]\r\n  fields:\r\n    t: { description: T }\r\n',
    'question marks and brackets in text, which are not keys': `kind: Parser
name: q
urls: ['https://books.example/?page=2', https://books.example/search?q=a]
fields:
  title: { description: 'what? yes ?', selector: 'a[href]:hover' }
  price: { description: Is it in stock ?, selector: "[data-price]:first-child" }
`,
    'a line longer than 1024 characters after a short key': `kind: Parser
name: l
urls: [https://books.example/]
fields:
  title: { description: ${'d'.repeat(2000)} }
`,
    'block scalars and folded text': `kind: Parser
name: e
urls:
  - https://books.example/
fields:
  t:
    description: >-
      folded
      text
  u:
    description: |
      kept
      lines
`,
    // Each core scalar at the edge of what its first character admits (read-plain-yaml.ts looks at it first), and
    // near misses that must stay text.
    'every core scalar and its near misses': `kind: Parser
name: s
urls: [https://books.example/]
x-scalars:
  nulls: [~, null, Null, NULL, '', nul, Nope, nULL]
  empty:
  bools: [true, True, TRUE, false, False, FALSE, tru, tRUE, falsey]
  ints: [0, 7, +1, -1, 0o17, 0x1F, 0xfF, 007, 0b1, 0o8, 0xG, x1]
  floats: [.5, +.5, -.5, 3., 1e3, -1.5E-2, +.5e1, .inf, +.inf, -.Inf, .INF, .nan, .NaN, .NAN, e3, ., '-', +, 1.2.3]
fields:
  title: { description: T, selector: h1 }
`,
  };

  it.each(Object.entries(cases))('%s: read fast, and the same as with positions', async (label, text) => {
    const file = path.join(work, `${label.slice(0, 20).replace(/\W/g, '-')}.yaml`);
    writeFileSync(file, text);
    const plain = readPlainYaml(text);
    expect(plain?.map((d) => d.data)).toEqual(modelData(text));
    const context = { scope: { env: ENV }, now: NOW, root: work, templates: collectTemplates([], []) };
    expect(loadPlainFile(file, plain ?? [], context)).toHaveLength(plain?.length ?? -1);
    const { fast, positions } = await readBothWays({ paths: [file], projectFile: false });
    expect(fast.diagnostics).toEqual([]);
    expect(fast).toEqual(positions);
  });

  const declined: Record<string, string> = {
    'an anchor and an alias': 'kind: Parser\nx-base: &b { description: T }\nname: a\nfields: { t: *b }\n',
    'a merge key': 'kind: Parser\nname: a\n<<: { urls: [https://a.example/] }\n',
    'an explicit tag': 'kind: Parser\nname: !!str a\n',
    'a known tag written out': 'kind: Parser\nname: a\ncount: !!int "3"\n',
    'a null key': 'kind: Parser\nname: a\nfields: { ~: { description: T } }\n',
    'a __proto__ key': 'kind: Parser\nname: a\nfields: { __proto__: { description: T } }\n',
    'a YAML 1.1 directive': '%YAML 1.1\n---\nkind: Parser\nname: a\nflag: on\n',
    'a reference': 'kind: Parser\nname: ${NAME}\n',
    'a duplicate key': 'kind: Parser\nname: a\nname: b\n',
    'an empty document': '---\n---\nkind: Parser\nname: a\n',
    'an end-of-document marker': 'kind: Parser\nname: a\n...\n',
    'content on the document marker': '--- {kind: Parser, name: a}\n',
    'a flow map at the root': '{kind: Parser,\nname: a}\n',
    'a list at the root': '- kind: Parser\n',
    'a syntax error': 'kind: Parser\nname: [a\n',
    'a flow list over lines not indented under its key':
      'kind: Parser\nname: a\nurls: [https://a.example/,\nhttps://b.example/]\n',
    'a double-quoted line that is not indented': 'kind: Parser\ndescription: "a\nname: b"\nname: c\n',
    'an explicit key': 'kind: Parser\nname: a\nfields:\n  ? t\n  : { description: T }\n',
    'an explicit key in a list item': 'kind: Parser\nname: a\nx:\n  - ? t\n    : 1\n',
    'an explicit key in a flow map': 'kind: Parser\nname: a\nfields: {? t : { description: T }}\n',
    'a flow list as a key': 'kind: Parser\nname: a\nfields:\n  [a, b]: { description: T }\n',
    'a flow map as a key': 'kind: Parser\nname: a\nfields: { {x: 1} : { description: T } }\n',
    'nesting past the document model limit': `kind: Parser\nname: a\nx: ${'['.repeat(70)}${']'.repeat(70)}\n`,
  };

  it.each(Object.entries(declined))('leaves a file with %s to the document model', (_label, text) => {
    expect(readPlainYaml(text)).toBeUndefined();
  });

  const KEY_TYPE = (what: string): string =>
    `${what} as a key is not supported: a key is text, a number or a boolean`;

  // Keys the two readers could read differently: each is refused by both, at the same place.
  const refusedKeys: Record<string, { text: string; reported: [string, number, number, string] }> = {
    'a number and a string of the same text': {
      text: "kind: Parser\nname: a\nurls: [https://a.example/]\nfields:\n  1: { description: x }\n  '1': { description: y }\n",
      reported: ['manifest.duplicate-key', 6, 3, 'duplicate key: a key may appear once per map'],
    },
    'a boolean and a string of the same text': {
      text: "kind: Parser\nname: a\nurls: [https://a.example/]\nfields:\n  true: { description: x }\n  'true': { description: y }\n",
      reported: ['manifest.duplicate-key', 6, 3, 'duplicate key: a key may appear once per map'],
    },
    'a float and an integer of the same value': {
      text: 'kind: Parser\nname: a\nurls: [https://a.example/]\nfields:\n  1.0: { description: x }\n  1: { description: y }\n',
      reported: ['manifest.duplicate-key', 6, 3, 'duplicate key: a key may appear once per map'],
    },
    'a list as an explicit key': {
      text: 'kind: Parser\nname: a\nurls: [https://a.example/]\nfields:\n  ? [a, b]\n  : { description: x }\n',
      reported: ['manifest.key-type', 5, 5, KEY_TYPE('a list')],
    },
    'a map as an explicit key': {
      text: 'kind: Parser\nname: a\nurls: [https://a.example/]\nfields:\n  ? {x: 1}\n  : { description: x }\n',
      reported: ['manifest.key-type', 5, 5, KEY_TYPE('a map')],
    },
    'a block list as an explicit key': {
      text: 'kind: Parser\nname: a\nurls: [https://a.example/]\nfields:\n  ? - t\n  : { description: x }\n',
      reported: ['manifest.key-type', 5, 5, KEY_TYPE('a list')],
    },
    'a one-item flow list as a key in a flow map': {
      text: 'kind: Parser\nname: a\nurls: [https://a.example/]\nfields: {[t]: {description: x}}\n',
      reported: ['manifest.key-type', 4, 10, KEY_TYPE('a list')],
    },
    'a flow list as a top-level key': {
      text: 'kind: Parser\n[name]: a\nname: b\nurls: [https://a.example/]\n',
      reported: ['manifest.key-type', 2, 1, KEY_TYPE('a list')],
    },
    'a flow map as a key written without a space': {
      text: 'kind: Parser\nname: a\nurls: [https://a.example/]\nfields: {{x: 1}:{description: x}}\n',
      reported: ['manifest.key-type', 4, 10, KEY_TYPE('a map')],
    },
    // yaml allows at most 1,024 characters from the start of an implicit key to its `:`; js-yaml has no limit.
    'a key longer than 1024 characters': {
      text: `kind: Parser\nname: a\nurls: [https://a.example/]\nfields:\n  ${'t'.repeat(1025)}: { description: x }\n`,
      reported: [
        'manifest.yaml-syntax',
        5,
        3,
        'YAML syntax: The : indicator must be at most 1024 chars after the start of an implicit block mapping key',
      ],
    },
    'a quoted key longer than 1024 characters, holding a colon': {
      text: `kind: Parser\nname: a\nurls: [https://a.example/]\nfields:\n  t: { description: x }\n  "a: ${'t'.repeat(1025)}": { description: y }\n`,
      reported: [
        'manifest.yaml-syntax',
        6,
        3,
        'YAML syntax: The : indicator must be at most 1024 chars after the start of an implicit block mapping key',
      ],
    },
    'an octal and a decimal of the same value': {
      text: 'kind: Parser\nname: a\nurls: [https://a.example/]\nfields: { 0o10: { description: x }, 8: { description: y } }\n',
      reported: ['manifest.duplicate-key', 4, 37, 'duplicate key: a key may appear once per map'],
    },
  };

  it.each(Object.entries(refusedKeys))('refuses %s the same way in both readers', async (label, c) => {
    const file = path.join(work, `${label.replace(/\W/g, '-')}.yaml`);
    writeFileSync(file, c.text);
    const { fast, positions } = await readBothWays({ paths: [file], projectFile: false });
    expect(fast).toEqual(positions);
    expect(fast.parsers).toEqual([]);
    expect(fast.diagnostics.map((d) => [d.code, d.line, d.column, d.message])).toEqual([c.reported]);
  });

  it('reads a file again with positions when an object has a problem, and reports it at its place', async () => {
    const file = path.join(work, 'problem.yaml');
    writeFileSync(
      file,
      'kind: Parser\nname: p\nurls: [https://books.example/]\nfields:\n  t: { descripton: T }\n',
    );
    const { fast, positions } = await readBothWays({ paths: [file], projectFile: false });
    expect(fast).toEqual(positions);
    expect(fast.diagnostics.map((d) => [d.code, d.line, d.column])).toContainEqual([
      'manifest.unknown-key',
      5,
      8,
    ]);
  });
});
