import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parseAllDocuments } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAllEnvironments, loadManifests } from '../../../src/manifest/load-manifests.js';
import type { LoadedManifests } from '../../../src/manifest/load-manifests.js';
import { runScrapeform } from '../../helpers/cli.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const TREES = ['examples', 'test/fixtures/valid', 'test/fixtures/broken'];
const DOCS = readFileSync(path.join(ROOT, 'docs/manifests.md'), 'utf8');

/**
 * The files where the JSON Schema accepts what validate refuses, each with the bullet of docs/manifests.md
 * ("What the JSON Schema cannot say") that explains why. Anything not listed must get the same verdict from both.
 */
const DIFFERENCES: Record<string, string> = {
  'test/fixtures/broken/custom-tag.yaml': 'YAML itself',
  'test/fixtures/broken/too-deep.yaml': 'YAML itself',
  'test/fixtures/broken/duplicate-key-types.yaml': 'YAML itself',
  'test/fixtures/broken/list-key.yaml': 'YAML itself',
  'test/fixtures/broken/key-reference.yaml': 'Environment variables',
  'test/fixtures/broken/env-unset.yaml': 'Environment variables',
  'test/fixtures/broken/nested-default-unset.yaml': 'Environment variables',
  'test/fixtures/broken/input-file-absolute.yaml': 'Input files',
  'test/fixtures/broken/input-file-outside.yaml': 'Input files',
  'test/fixtures/broken/missing-input-file.yaml': 'Input files',
  'test/fixtures/broken/bad-cron.yaml': 'Cron values',
  'test/fixtures/broken/cron-never-fires.yaml': 'Cron values',
  'test/fixtures/broken/bad-expect-pattern.yaml': 'Expect patterns',
  'test/fixtures/broken/renamed-from-declared.yaml': 'Rename hints',
  'test/fixtures/broken/renamed-twice.yaml': 'Rename hints',
  'test/fixtures/broken/duplicate-names/a.yaml': 'Names across files',
  'test/fixtures/broken/duplicate-names/b.yaml': 'Names across files',
  'test/fixtures/broken/duplicate-generated-name.yaml': 'Names across files',
  'test/fixtures/broken/extends-unknown.yaml': 'Templates',
  'test/fixtures/broken/extends-cycle.yaml': 'Templates',
  'test/fixtures/broken/each-outside-for-each.yaml': 'Variables and for_each',
  'test/fixtures/broken/template-bad-value.yaml': 'Variables and for_each',
  'test/fixtures/broken/unknown-variable/books.yaml': 'Variables and for_each',
};

/** YAML files that are not manifests: a project's var files (variable values, read by the environment). */
const NOT_MANIFESTS = ['examples/multi-env/vars/prod.yaml'];

function yamlFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)))
    .filter((f) => !f.split(path.sep).some((segment) => segment.startsWith('.')))
    .sort();
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const schema = JSON.parse(readFileSync(path.join(ROOT, 'schemas/scrapeform.schema.json'), 'utf8')) as object;
// allowUnionTypes: zod writes `type: [string, number, boolean]` for apiParams values, which is valid draft-07.
const validateSchema = addFormats(new Ajv({ allErrors: true, allowUnionTypes: true })).compile(schema);

/**
 * What an editor with the schema says of a file: every document valid. A file that is not UTF-8, or whose YAML
 * does not parse or cannot become data (syntax, duplicate keys, a missing anchor, an alias bomb), is refused
 * before any schema.
 */
function schemaAccepts(file: string): boolean {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(path.join(ROOT, file)));
  } catch {
    return false;
  }
  // Merge keys as editors read them (yaml-language-server applies `<<`).
  const docs = parseAllDocuments(text, { uniqueKeys: true, merge: true });
  const list = Array.isArray(docs) ? docs : [];
  if (list.some((d) => d.errors.length > 0)) return false;
  try {
    return list.every((d) => validateSchema(d.toJS({ maxAliasCount: 100 })));
  } catch {
    return false;
  }
}

/**
 * Each tree is read on its own, as a user would, so names repeated across trees are no concern. A folder with its
 * own scrapeform.yaml is another project, which a tree's walk skips: it is read on its own, every environment.
 */
let diagnostics: LoadedManifests['diagnostics'] = [];
beforeAll(async () => {
  const options = { env: { ENV_NAME: 'prod' }, now: new Date('2026-01-01T00:00:00Z') };
  for (const tree of TREES) {
    const loaded = await loadManifests({ paths: [path.join(ROOT, tree)], ...options });
    diagnostics = [...diagnostics, ...loaded.diagnostics];
  }
  const projects = TREES.flatMap(yamlFiles)
    .filter((f) => path.basename(f) === 'scrapeform.yaml')
    .map((f) => path.join(ROOT, path.dirname(f)));
  for (const project of projects) {
    const loaded = await loadAllEnvironments({ paths: [project], ...options });
    diagnostics = [...diagnostics, ...loaded.diagnostics];
  }
});

function validateAccepts(file: string): boolean {
  const full = path.join(ROOT, file);
  return !diagnostics.some((d) => d.file === full && d.severity === 'error');
}

describe('the JSON Schema and validate agree', () => {
  const files = TREES.flatMap(yamlFiles).filter((f) => !NOT_MANIFESTS.includes(f));

  it('covers every example and fixture', () => {
    expect(files).toContain('examples/scheduled-crawl/catalogue-crawl.yaml');
    expect(files.length).toBeGreaterThan(60);
  });

  it.each(files.filter((f) => DIFFERENCES[f] === undefined))('%s: same verdict', (file) => {
    expect(schemaAccepts(file)).toBe(validateAccepts(file));
  });

  it.each(Object.entries(DIFFERENCES))(
    '%s: schema accepts, validate refuses (%s, documented)',
    (file, reason) => {
      expect(DOCS).toContain(`- **${reason}**`);
      expect(schemaAccepts(file)).toBe(true);
      expect(validateAccepts(file)).toBe(false);
    },
  );

  it('accepts what an object may write over its template (a null that drops a key, part of a field), as validate does', async () => {
    const work = mkdtempSync(path.join(tmpdir(), 'scrapeform-schema-extends-'));
    try {
      const file = path.join(work, 'extends.yaml');
      writeFileSync(
        file,
        `kind: ParserTemplate
name: base
urls: [https://books.example/]
scraper_params: { render: true, country_code: us }
expect: [{ url: https://books.example/, result: {} }]
fields:
  title: { description: Title, selector: h1, type: string }
  price: { description: Price }
---
kind: ParserTemplate
name: shop
extends: base
scraper_params: { country_code: null }
fields:
  title: { selector: h2 }
---
kind: Parser
name: books
extends: shop
scraper_params: { render: null }
expect: null
fields:
  title: { selector: null, type: null }
  price: null
---
kind: ProjectTemplate
name: hourly
projectType: urls
projectInput: { type: list, list: [https://books.example/] }
scrapingInterval: hourly
output_format: CSV
apiParams: { render: true }
notificationConfig: { notifyOnSuccess: never }
---
kind: Project
name: once
extends: hourly
scrapingInterval: null
output_format: null
apiParams: { render: null }
notificationConfig: { notifyOnSuccess: null }
`,
      );
      const loaded = await loadManifests({ paths: [file], env: {}, now: new Date('2026-01-01T00:00:00Z') });
      expect(loaded.diagnostics).toEqual([]);
      expect([...loaded.parsers, ...loaded.projects].map((o) => o.name)).toEqual(['books', 'once']);
      const documents = parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS() as unknown);
      expect(documents.map((d) => [validateSchema(d), validateSchema.errors?.[0]?.instancePath])).toEqual(
        documents.map(() => [true, undefined]),
      );
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('still refuses, without extends, a null or a field without its description', () => {
    const parser = { kind: 'Parser', name: 'x', urls: ['https://a.example/'] };
    expect(validateSchema({ ...parser, scraper_params: { render: null } })).toBe(false);
    expect(validateSchema({ ...parser, expect: null })).toBe(false);
    expect(validateSchema({ ...parser, fields: { title: { selector: 'h1' } } })).toBe(false);
    expect(validateSchema({ ...parser, fields: { title: { description: 'T', selector: null } } })).toBe(
      false,
    );
    expect(validateSchema({ ...parser, fields: { title: { description: 'T' } } })).toBe(true);
  });

  it('accepts an environment reference where a URL or boolean is expected, as validate does', () => {
    const parser = {
      kind: 'Parser',
      name: 'x',
      urls: ['${BASE:-https://a.example}/p'],
      scraper_params: { render: '${RENDER:-false}' },
    };
    expect(validateSchema(parser)).toBe(true);
  });
});

describe('URLs as users write them (a letter beyond ASCII in the path, a | or {} in the query)', () => {
  const urls = [
    'https://de.wikipedia.org/wiki/Zürich',
    'https://books.example/search?q=poetry|fiction',
    'https://books.example/search?filter={"genre":"poetry"}',
  ];

  it('are accepted by validate and by the schema, in urls, expect, projectInput and webhookOutput', async () => {
    const work = mkdtempSync(path.join(tmpdir(), 'scrapeform-schema-urls-'));
    try {
      const file = path.join(work, 'urls.yaml');
      const documents = urls.map((url, i) => ({
        parser: { kind: 'Parser', name: `p${i}`, urls: [url], expect: [{ url, result: {} }] },
        project: {
          kind: 'Project',
          name: `w${i}`,
          projectType: 'urls',
          projectInput: { type: 'webhook_input', url },
          webhookOutput: { url },
        },
      }));
      const all = documents.flatMap((d) => [d.parser, d.project]);
      writeFileSync(file, all.map((d) => JSON.stringify(d)).join('\n---\n'));
      expect(await runScrapeform(['validate', file])).toMatchObject({ code: 0, stderr: '' });
      expect(all.map((d) => [d.name, validateSchema(d), validateSchema.errors?.[0]?.instancePath])).toEqual(
        all.map((d) => [d.name, true, undefined]),
      );
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
