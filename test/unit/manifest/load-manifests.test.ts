import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../../src/manifest/load-manifests.js';
import { suggestNearest } from '../../../src/manifest/suggest.js';
import { describeValue } from '../../../src/manifest/zod-diagnostics.js';
import { tempProjects } from '../../helpers/temp-projects.js';

const VALID = path.resolve(import.meta.dirname, '../../fixtures/valid');
const EXAMPLES = path.resolve(import.meta.dirname, '../../../examples');
const project = tempProjects('scrapeform-load-');

describe('loadManifests', () => {
  it('walks folders, skips hidden folders and node_modules, and accepts empty files', async () => {
    const loaded = await loadManifests({ paths: [VALID], env: { ENV_NAME: 'prod' } });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.files.map((f) => path.relative(VALID, f))).toEqual([
      'empty.yaml',
      path.join('nested', 'product.yaml'),
    ]);
  });

  it('flattens nested fields to dot notation and records renames under the old names', async () => {
    const loaded = await loadManifests({ paths: [VALID], env: { ENV_NAME: 'prod' } });
    const [parser] = loaded.parsers;
    expect(parser?.fields).toEqual([
      { name: 'headline', description: 'Title', selector: 'h1' },
      { name: 'reviews', description: 'Reviews', type: 'array' },
      { name: 'reviews.author', description: 'Reviewer' },
      { name: 'reviews.stars', description: 'Stars', type: 'number' },
    ]);
    expect(parser?.renames).toEqual([
      { from: 'title', to: 'headline' },
      { from: 'comments', to: 'reviews' },
      { from: 'comments.name', to: 'reviews.author' },
    ]);
    expect(parser?.address).toBe('parser.shop-product');
  });

  it('types a whole plain reference as YAML would, and keeps quoted ones strings', async () => {
    const loaded = await loadManifests({
      paths: [VALID],
      env: { ENV_NAME: 'prod', PREMIUM: 'true', COUNTRY: 'de' },
    });
    expect(loaded.parsers[0]?.scraperParams).toEqual({ country_code: 'de', premium: true, render: false });
  });

  it('reads list inputs from a file relative to the manifest and fills notification defaults', async () => {
    const loaded = await loadManifests({ paths: [VALID], env: { ENV_NAME: 'prod' } });
    const [project] = loaded.projects;
    expect(project?.address).toBe('project.crawl-prod');
    expect(project?.projectInput).toEqual({
      type: 'list',
      list: ['https://a.example/1', 'https://a.example/2'],
    });
    expect(project?.inputFile).toBe('../inputs.txt');
    expect(project?.notificationConfig).toEqual({
      notifyOnSuccess: 'daily',
      notifyOnFailure: 'with_every_run',
    });
    expect(project?.webhookOutput).toEqual({
      url: 'https://hooks.example/${literal}',
      webhookEncoding: 'multipart_form_data_encoding',
    });
    expect(project).not.toHaveProperty('scrapingInterval');
  });

  it('validates every example', async () => {
    const loaded = await loadManifests({ paths: [EXAMPLES], env: {} });
    // multi-env is a project of its own (its scrapeform.yaml): the walk skips it, and reuse.test.ts reads it.
    expect(loaded.diagnostics.map((d) => [d.severity, d.code, path.relative(EXAMPLES, d.file)])).toEqual([
      ['warning', 'manifest.nested-project', path.join('multi-env', 'scrapeform.yaml')],
    ]);
    expect(loaded.parsers.map((p) => p.name).sort()).toEqual([
      'books-product',
      'news-article',
      'news-listing',
      'shop-product',
    ]);
    expect(loaded.projects.map((p) => p.name).sort()).toEqual([
      'asin-watch',
      'catalogue-crawl',
      'nightly-book-pages',
    ]);
  });

  it('reports a path that does not exist', async () => {
    const loaded = await loadManifests({ paths: ['no/such/dir'], env: {} });
    expect(loaded.valid).toBe(false);
    expect(loaded.diagnostics[0]?.message).toBe('no such file or folder');
  });
});

describe('suggestNearest', () => {
  it.each([
    ['scraperParams', 'scraper_params'],
    ['Output_Format', 'output_format'],
    ['numeric', 'number'],
    ['selecter', 'selector'],
  ])('%s -> %s', (typed, expected) => {
    expect(suggestNearest(typed, ['scraper_params', 'output_format', 'number', 'selector', 'string'])).toBe(
      expected,
    );
  });

  it('suggests nothing for a word unlike any known one', () => {
    expect(suggestNearest('javascript', ['render', 'premium'])).toBeUndefined();
  });
});

describe('a key left out', () => {
  it('is said to be missing, never "got undefined undefined"', async () => {
    const dir = await project({ 'scrapeform.yaml': 'variables:\n  a: { type: string, default: x }\n' });
    const loaded = await loadManifests({ paths: [dir], env: {} });
    expect(loaded.diagnostics.map((d) => [d.line, d.column, d.code, d.path, d.message, d.hint])).toEqual([
      [1, 1, 'manifest.missing-key', 'kind', 'missing required key "kind"', 'write kind: Config'],
    ]);
    expect(describeValue(undefined)).toBe('nothing');
  });
});
