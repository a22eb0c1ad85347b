import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempProjects } from '../../helpers/temp-projects.js';
import { formatManifestText } from '../../../src/manifest/format-manifest.js';
import { loadAllEnvironments, loadManifests } from '../../../src/manifest/load-manifests.js';
import { renderManifests } from '../../../src/manifest/render-manifests.js';

const EXAMPLE = path.resolve(import.meta.dirname, '../../../examples/multi-env');
/** A folder with these files (name -> text), removed after its test. */
const project = tempProjects('scrapeform-reuse-');

describe('within a file', () => {
  it('merges `<<: *anchor` (own keys win) and ignores top-level x- keys', async () => {
    const dir = await project({
      'a.yaml': `x-base: &base
  urls: [https://books.example/a.html]
  scraper_params: { render: true }
kind: Parser
name: books
<<: *base
scraper_params: { render: false }
`,
    });
    const loaded = await loadManifests({ paths: [dir], env: {} });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.parsers[0]).toMatchObject({
      urls: ['https://books.example/a.html'],
      scraperParams: { render: false },
    });
  });

  it('reports a wrong value brought in by a merge key where the anchor writes it', async () => {
    const dir = await project({
      'a.yaml': `x-base: &base
  urls: [ftp://books.example/a.html]
kind: Parser
name: books
<<: *base
`,
    });
    const loaded = await loadManifests({ paths: [dir], env: {} });
    expect(loaded.diagnostics.map((d) => [d.line, d.column, d.path, d.message])).toEqual([
      [2, 10, 'urls[0]', 'must be an absolute http:// or https:// URL'],
    ]);
  });
});

describe('templates', () => {
  it('merges a chain: own keys override, fields by name key by key, null drops, maps key by key', async () => {
    const dir = await project({
      'templates.yaml': `kind: ParserTemplate
name: base
scraper_params: { render: true, country_code: us }
fields:
  title: { description: Title, selector: h1 }
  price: { description: Price, type: number }
---
kind: ParserTemplate
name: product
extends: base
fields:
  stock: { description: Stock }
`,
      'books.yaml': `kind: Parser
name: books
extends: product
urls: [https://books.example/a.html]
scraper_params: { country_code: null, premium: true }
fields:
  title: { description: Book title }
  price: null
  isbn: { description: ISBN }
`,
    });
    const loaded = await loadManifests({ paths: [dir], env: {} });
    expect(loaded.diagnostics).toEqual([]);
    const [books] = loaded.parsers;
    expect(books?.scraperParams).toEqual({ premium: true, render: true });
    expect(books?.fields).toEqual([
      { name: 'title', description: 'Book title', selector: 'h1' },
      { name: 'stock', description: 'Stock' },
      { name: 'isbn', description: 'ISBN' },
    ]);
    expect(books?.source.origin?.map((o) => o.label)).toEqual([
      'ParserTemplate "product"',
      'ParserTemplate "base"',
    ]);
  });

  it('refuses a null that drops nothing, at its line', async () => {
    const dir = await project({
      'a.yaml': `kind: ParserTemplate
name: product
fields:
  title: { description: Title }
---
kind: Parser
name: books
extends: product
urls: [https://books.example/a.html]
fields:
  titel: null
`,
    });
    const loaded = await loadManifests({ paths: [dir], env: {} });
    expect(loaded.diagnostics.map((d) => [d.line, d.column, d.path, d.message])).toEqual([
      [11, 10, 'fields.titel', 'null drops "titel", but nothing of that name is inherited'],
    ]);
  });
});

describe('for_each', () => {
  it('makes one object per matrix combination, values keeping their YAML type unless quoted', async () => {
    const dir = await project({
      'a.yaml': `kind: Parser
name: books-\${each.country}-\${each.session}
for_each: { matrix: { country: [de, fr], session: [1, 2] } }
urls: ['https://books.example/\${each.country}.html']
scraper_params:
  session_number: \${each.session}
  country_code: "\${each.country}"
`,
    });
    const loaded = await loadManifests({ paths: [dir], env: {} });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.parsers.map((p) => [p.name, p.scraperParams.session_number])).toEqual([
      ['books-de-1', 1],
      ['books-de-2', 2],
      ['books-fr-1', 1],
      ['books-fr-2', 2],
    ]);
    expect(loaded.parsers[1]?.source.origin?.[0]?.label).toBe('country=de, session=2');
  });

  it('names a missing element key with its instance', async () => {
    const dir = await project({
      'a.yaml': `kind: Parser
name: books-\${each.country}
for_each: [{ country: de }, { contry: fr }]
urls: [https://books.example/a.html]
`,
    });
    const loaded = await loadManifests({ paths: [dir], env: {} });
    expect(loaded.diagnostics.map((d) => `${d.line}:${d.column} ${d.message} ${d.hint ?? ''}`)).toEqual([
      `2:7 \${each.country}: the for_each element has no key "country" (in for_each[1] at ${path.join(dir, 'a.yaml')}:3:29) did you mean "contry"?`,
    ]);
    expect(loaded.parsers.map((p) => p.name)).toEqual(['books-de']);
  });

  it('reads an empty or null element value as the empty text, or its default; only a missing key is an error', async () => {
    const dir = await project({
      'a.yaml': `kind: Parser
name: books-\${each.country}
for_each:
  - { country: de, note: '', tag: ~ }
  - { country: fr, note: ~, tag: '' }
urls: ['https://books.example/a.html?n=\${each.note}&t=\${each.tag:-none}']
`,
    });
    const loaded = await loadManifests({ paths: [dir], env: {} });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.parsers.map((p) => [p.name, p.urls[0]])).toEqual([
      ['books-de', 'https://books.example/a.html?n=&t=none'],
      ['books-fr', 'https://books.example/a.html?n=&t=none'],
    ]);
  });
});

describe('variables and environments', () => {
  const CONFIG = `kind: Config
variables:
  host: { type: string, default: https://a.example }
  retries: { type: number, default: 1 }
environments:
  staging:
    paths: [manifests]
    exclude: ['*.prod.yaml']
    varFiles: [staging.yaml]
    variables: { retries: 3 }
    state: state/staging.json
    apiKeyEnv: STAGING_KEY
  prod:
    paths: [manifests]
    state: postgres://db/scrapeform
    workspace: prod
`;
  const FILES = {
    'scrapeform.yaml': CONFIG,
    'staging.yaml': 'host: https://b.example\nretries: 2\n',
    'manifests/books.yaml': `kind: Parser
name: books
urls: ['\${var.host}/a.html']
scraper_params:
  session_number: \${var.retries}
`,
    'manifests/legacy.prod.yaml': `kind: Project
name: legacy
projectType: urls
projectInput: { type: list, list: [https://a.example/] }
`,
  };

  it('takes the default, then var files, then the environment, then --var-file; later wins', async () => {
    const dir = await project({ ...FILES, 'cli.yaml': 'host: https://c.example\n' });
    const options = { paths: [dir], env: {} };
    const staging = await loadManifests({ ...options, environment: 'staging' });
    expect(staging.diagnostics).toEqual([]);
    expect(staging.parsers[0]).toMatchObject({
      urls: ['https://b.example/a.html'],
      scraperParams: { session_number: 3 },
    });
    expect(staging.projects).toEqual([]);
    expect(staging.environment).toEqual({
      name: 'staging',
      others: ['prod'],
      state: path.join(dir, 'state/staging.json'),
      apiKeyEnv: 'STAGING_KEY',
    });
    const cli = await loadManifests({
      ...options,
      environment: 'staging',
      varFiles: [path.join(dir, 'cli.yaml')],
    });
    expect(cli.parsers[0]?.urls).toEqual(['https://c.example/a.html']);
    const prod = await loadManifests({ ...options, environment: 'prod' });
    expect(prod.parsers[0]?.urls).toEqual(['https://a.example/a.html']);
    expect(prod.projects.map((p) => p.name)).toEqual(['legacy']);
    expect(prod.environment).toEqual({
      name: 'prod',
      others: ['staging'],
      state: 'postgres://db/scrapeform',
      workspace: 'prod',
    });
  });

  it('checks a value against its declared type, and refuses undeclared ones, at their line', async () => {
    const dir = await project({ ...FILES, 'cli.yaml': 'retries: many\nhots: x\n' });
    const loaded = await loadManifests({
      paths: [dir],
      env: {},
      environment: 'prod',
      varFiles: [path.join(dir, 'cli.yaml')],
    });
    expect(
      loaded.diagnostics.map((d) => `${path.basename(d.file)}:${d.line}:${d.column} ${d.message}`),
    ).toEqual([
      'cli.yaml:1:10 variable "retries" is declared number, got "many"',
      'cli.yaml:2:1 no variable "hots" is declared',
    ]);
    expect(loaded.valid).toBe(false);
  });

  it('validates every environment without --env, saying which a problem belongs to', async () => {
    const dir = await project({ ...FILES, 'staging.yaml': 'host: not a url\n' });
    const loaded = await loadAllEnvironments({ paths: [dir], env: {} });
    expect(loaded.environments.map((e) => [e.name, e.parsers.length])).toEqual([
      ['staging', 0],
      ['prod', 1],
    ]);
    expect(loaded.diagnostics.map((d) => d.message)).toEqual([
      'must be an absolute http:// or https:// URL [environment staging]',
    ]);
  });

  it('narrows the environment with paths given: its whole set read, its exclude kept, no path outside it', async () => {
    const dir = await project({ ...FILES, 'other/books.yaml': FILES['manifests/books.yaml'] });
    const projectFile = path.join(dir, 'scrapeform.yaml');
    const load = (environment: string, given: string) =>
      loadManifests({ paths: [path.join(dir, given)], env: {}, environment, projectFile });
    const show = (d: { file: string; code: string; message: string }): string =>
      `${path.relative(dir, d.file)} ${d.code} ${d.message}`;

    const prod = await load('prod', 'manifests/books.yaml');
    expect(prod.diagnostics).toEqual([]);
    expect(prod.projects.map((p) => p.address)).toEqual(['project.legacy']);
    expect(prod.narrowedTo).toEqual({
      paths: [path.join(dir, 'manifests/books.yaml')],
      addresses: ['parser.books'],
    });

    const excluded = await load('staging', 'manifests/legacy.prod.yaml');
    expect(excluded.diagnostics.map(show)).toEqual([
      'manifests/legacy.prod.yaml environment.path-excluded environment "staging" excludes this file (exclude: *.prod.yaml)',
    ]);
    expect(excluded.valid).toBe(false);
    expect(excluded.projects).toEqual([]);

    const outside = await load('staging', 'other');
    expect(outside.diagnostics.map(show)).toEqual([
      'other environment.path-outside not among the paths of environment "staging" (manifests)',
    ]);
    expect(outside.valid).toBe(false);

    // validate and render without --env: the environments that read the paths, each showing what is under them.
    const all = await loadAllEnvironments({
      paths: [path.join(dir, 'manifests/legacy.prod.yaml')],
      env: {},
      projectFile,
    });
    expect(all.diagnostics).toEqual([]);
    expect(
      all.environments.map((e) => [e.name, [...e.parsers, ...e.projects].map((o) => o.address)]),
    ).toEqual([['prod', ['project.legacy']]]);
  });

  it('never reads a var file as a manifest, when an environment without paths walks its folder', async () => {
    const dir = await project({
      'scrapeform.yaml': `kind: Config
variables:
  host: { type: string, default: https://a.example }
environments:
  staging: { state: staging.json, varFiles: [vars/staging.yaml] }
  prod: { state: prod.json, varFiles: [vars/prod.yaml] }
`,
      'vars/staging.yaml': 'host: https://s.example\n',
      'vars/prod.yaml': 'host: https://p.example\n',
      'cli.yaml': 'host: https://c.example\n',
      'books.yaml': FILES['manifests/books.yaml'].replace(/scraper_params:[\s\S]*$/, ''),
    });
    const all = await loadAllEnvironments({ paths: [dir], env: {}, varFiles: [path.join(dir, 'cli.yaml')] });
    expect(all.diagnostics).toEqual([]);
    expect(all.files.map((f) => path.relative(dir, f))).toEqual(['books.yaml']);
    expect(all.environments.map((e) => e.parsers.map((p) => p.urls[0]))).toEqual([
      ['https://c.example/a.html'],
      ['https://c.example/a.html'],
    ]);
  });

  it('reports a varFiles entry that cannot be read at the entry in scrapeform.yaml', async () => {
    const dir = await project({
      'scrapeform.yaml': `kind: Config
variables:
  host: { type: string, default: https://a.example }
environments:
  prod:
    state: prod.json
    varFiles:
      - vars/prod.yaml
      - vars/prodX.yaml
`,
      'vars/prod.yaml': 'host: https://p.example\n',
      'books.yaml': FILES['manifests/books.yaml'].replace(/scraper_params:[\s\S]*$/, ''),
    });
    const loaded = await loadManifests({ paths: [dir], env: {}, environment: 'prod' });
    expect(
      loaded.diagnostics.map(
        (d) => `${path.relative(dir, d.file)}:${d.line}:${d.column} ${d.code} ${d.path}: ${d.message}`,
      ),
    ).toEqual([
      'scrapeform.yaml:9:9 config.var-file-unreadable environments.prod.varFiles[1]: cannot read var file "vars/prodX.yaml": no such file',
    ]);
    expect(loaded.diagnostics[0]?.hint).toBe(
      'varFiles are relative to scrapeform.yaml: fix the path, or remove the entry',
    );
    expect(loaded.valid).toBe(false);
    expect(loaded.parsers).toEqual([]);
  });

  it('refuses two environments that resolve to one state, at the later one, in every run', async () => {
    const parser = 'kind: Parser\nname: books\nurls: [https://a.example/a.html]\n';
    const dir = await project({
      'scrapeform.yaml': `kind: Config
environments:
  staging: {}
  prod:
    apiKeyEnv: PROD_KEY
  qa:
    state: postgres://db/scrapeform
  dev:
    state: postgres://db/scrapeform
    workspace: default
  own:
    workspace: own
`,
      'books.yaml': parser,
    });
    const expected = [
      `4:3 environments.prod environments "staging" and "prod" share one state (.scrapeform/state.json, workspace default): each would plan deleting the other's objects`,
      `8:3 environments.dev environments "qa" and "dev" share one state (postgres://db/scrapeform, workspace default): each would plan deleting the other's objects`,
    ];
    const show = (d: { line: number; column: number; path: string; message: string }): string =>
      `${d.line}:${d.column} ${d.path} ${d.message}`;
    const all = await loadAllEnvironments({ paths: [dir], env: {} });
    expect(all.diagnostics.map(show)).toEqual(expected);
    expect(all.diagnostics[0]?.hint).toBe(
      'give each environment its own state: or workspace: (such as environments.prod.state: .scrapeform/prod.json); "prod" names neither, so it uses the default; state already written is not moved: keep it with the environment it belongs to',
    );
    // Choosing an environment that shares nothing does not make the project file valid.
    const own = await loadManifests({ paths: [dir], env: {}, environment: 'own' });
    expect(own.diagnostics.map(show)).toEqual(expected);
    expect(own.valid).toBe(false);
    expect(own.parsers).toEqual([]);
  });

  it('lets environments share nothing but the default once SCRAPEFORM_STATE and a workspace tell them apart', async () => {
    const dir = await project({
      'scrapeform.yaml': `kind: Config
environments:
  staging: {}
  prod: { workspace: prod }
`,
      'books.yaml': 'kind: Parser\nname: books\nurls: [https://a.example/a.html]\n',
    });
    const loaded = await loadAllEnvironments({ paths: [dir], env: { SCRAPEFORM_STATE: 'x/state.json' } });
    expect(loaded.diagnostics).toEqual([]);
    // A workspace named the way another environment's state file is written is the same file.
    await writeFile(
      path.join(dir, 'scrapeform.yaml'),
      `kind: Config\nenvironments:\n  staging: { state: s/prod/state.json }\n  prod: { state: s/state.json, workspace: prod }\n`,
    );
    const clash = await loadAllEnvironments({ paths: [dir], env: {} });
    expect(clash.diagnostics.map((d) => [d.line, d.code])).toEqual([[4, 'config.shared-state']]);
    // One environment alone shares with nobody.
    await writeFile(path.join(dir, 'scrapeform.yaml'), `kind: Config\nenvironments:\n  staging: {}\n`);
    expect((await loadAllEnvironments({ paths: [dir], env: {} })).diagnostics).toEqual([]);
  });

  it('names a shared PostgreSQL state without its password, however its URL is spelled', async () => {
    const dir = await project({
      'scrapeform.yaml': `kind: Config
environments:
  staging: { state: "\${DB_URL}" }
  prod: { state: "POSTGRES://ci:S3cretPw@db.internal/scrapeform" }
`,
      'books.yaml': 'kind: Parser\nname: books\nurls: [https://a.example/a.html]\n',
    });
    const loaded = await loadAllEnvironments({
      paths: [dir],
      env: { DB_URL: ' postgres://ci:S3cretPw@db.internal/scrapeform' },
    });
    expect(loaded.diagnostics.map((d) => [d.line, d.code, d.message])).toEqual([
      [
        4,
        'config.shared-state',
        'environments "staging" and "prod" share one state (postgres://ci:***@db.internal/scrapeform, workspace default): each would plan deleting the other\'s objects',
      ],
    ]);
  });

  it('finds one PostgreSQL state however its URL is spelled, and never takes two logins or schemas for one', async () => {
    const dir = await project({
      'scrapeform.yaml': `kind: Config
environments:
  a: { state: "postgres://ci@db/scrapeform?sslmode=require", workspace: main }
  b: { state: "postgresql://ci:S3cretPw@DB:5432/scrape%66orm?application_name=sf", workspace: main }
  c: { state: "postgres://deploy@db/scrapeform?sslmode=require", workspace: main }
  d: { state: "postgres://ci@db:5433/scrapeform", workspace: main }
  e: { state: "postgres://ci@db/other", workspace: main }
  f: { state: "postgres://ci@db/scrapeform", workspace: prod }
  g: { state: "postgres://ci@db/scrapeform?options=-c%20search_path%3Dstaging", workspace: main }
  h: { state: "postgres://scrapeform@db", workspace: main }
  i: { state: "postgres://scrapeform@db/scrapeform", workspace: main }
  j: { state: "postgres://db/scrapeform?user=ci&password=x&connect_timeout=10", workspace: main }
`,
      'books.yaml': 'kind: Parser\nname: books\nurls: [https://a.example/a.html]\n',
    });
    const loaded = await loadAllEnvironments({ paths: [dir], env: {} });
    expect(loaded.diagnostics.map((d) => `${d.line}:${d.column} ${d.code} ${d.path} ${d.message}`)).toEqual([
      `4:3 config.shared-state environments.b environments "a" and "b" share one state (postgresql://ci:***@DB:5432/scrape%66orm?application_name=sf, workspace main): each would plan deleting the other's objects`,
      `11:3 config.shared-state environments.i environments "h" and "i" share one state (postgres://scrapeform@db/scrapeform, workspace main): each would plan deleting the other's objects`,
      `12:3 config.shared-state environments.j environments "a" and "j" share one state (postgres://db/scrapeform?user=ci&password=***&connect_timeout=10, workspace main): each would plan deleting the other's objects`,
    ]);
    expect(loaded.environments).toEqual([]);
  });

  it('finds one state file whether an environment names it relative to scrapeform.yaml or absolute', async () => {
    const dir = await project({
      'books.yaml': 'kind: Parser\nname: books\nurls: [https://a.example/a.html]\n',
    });
    const absolute = path.join(dir, 'state', 'prod.json');
    await writeFile(
      path.join(dir, 'scrapeform.yaml'),
      `kind: Config\nenvironments:\n  staging: { state: state/prod.json }\n  prod: { state: '${absolute}' }\n`,
    );
    const loaded = await loadAllEnvironments({ paths: [dir], env: {} });
    expect(loaded.diagnostics.map((d) => `${d.line}:${d.column} ${d.code} ${d.path} ${d.message}`)).toEqual([
      `4:3 config.shared-state environments.prod environments "staging" and "prod" share one state (${absolute}, workspace default): each would plan deleting the other's objects`,
    ]);
    await writeFile(
      path.join(dir, 'scrapeform.yaml'),
      `kind: Config\nenvironments:\n  prod: { state: '${absolute}' }\n`,
    );
    const prod = await loadManifests({ paths: [dir], env: {}, environment: 'prod' });
    expect(prod.diagnostics).toEqual([]);
    expect(prod.environment).toEqual({ name: 'prod', others: [], state: absolute });
  });

  it('reads an absolute path and var file of an environment as written, not under the project folder; its exclude speaks for the project folder', async () => {
    const shared = await project({
      'books.yaml': 'kind: Parser\nname: books\nurls: [https://a.example/a.html]\n',
      'prod.vars.yaml': 'host: https://prod.example\n',
    });
    const dir = await project({
      'scrapeform.yaml': `kind: Config
variables:
  host: { type: string, default: https://staging.example }
environments:
  prod: { paths: ['${shared}', own], varFiles: ['${path.join(shared, 'prod.vars.yaml')}'], exclude: ['*.prod-only.yaml'] }
`,
      'own/old.prod-only.yaml': 'kind: Parser\nname: old\nurls: [https://a.example/a.html]\n',
      'own/crawl.yaml':
        "kind: Project\nname: crawl\nprojectType: urls\nprojectInput: { type: list, list: ['${var.host}/a.html'] }\n",
    });
    const prod = await loadManifests({ paths: [dir], env: {}, environment: 'prod' });
    expect(prod.diagnostics).toEqual([]);
    expect(prod.parsers.map((p) => p.address)).toEqual(['parser.books']);
    expect(prod.projects[0]?.projectInput).toEqual({ type: 'list', list: ['https://prod.example/a.html'] });
  });

  it('reads examples/multi-env in both environments', async () => {
    const loaded = await loadAllEnvironments({ paths: [EXAMPLE], env: {} });
    expect(loaded.diagnostics).toEqual([]);
    const names = (env: string): string[] =>
      loaded.environments
        .filter((e) => e.name === env)
        .flatMap((e) => [...e.parsers, ...e.projects].map((o) => o.address))
        .sort();
    expect(names('staging')).toEqual([
      'parser.books-product',
      'parser.category-de',
      'parser.category-fr',
      'parser.ebooks-product',
      'project.nightly-partners',
    ]);
    expect(names('prod')).toHaveLength(13);
    expect(names('prod')).toContain('project.old-catalogue');
    expect(names('prod')).toContain('project.partner-feed');
  });
});

describe('render and fmt', () => {
  it('renders an expanded object headed by where its values come from', async () => {
    const dir = await project({
      'a.yaml': `kind: ParserTemplate
name: product
fields:
  title: { description: Title }
---
kind: Parser
name: books-\${each.c}
extends: product
for_each: [{ c: de }]
urls: ['https://books.example/\${each.c}.html']
`,
    });
    const loaded = await loadManifests({ paths: [dir], env: {} });
    const file = path.join(dir, 'a.yaml');
    expect(renderManifests([{ environment: 'prod', objects: loaded.parsers }])).toBe(
      `# environment: prod\n# parser.books-de from ${file}:6:1, for_each[0] at ${file}:9:12, ParserTemplate "product" at ${file}:1:1\n\nkind: Parser\nname: books-de\nurls:\n  - https://books.example/de.html\nfields:\n  title:\n    description: Title\n`,
    );
  });

  it('keeps adopt: true, which plan and apply read, and renders what loads back the same', async () => {
    const dir = await project({
      'a.yaml': `kind: Parser
name: books
adopt: true
urls: ['https://books.example/a.html']
fields:
  title: { description: Title }
---
kind: Project
name: nightly
projectType: urls
projectInput: { type: list, list: ['https://books.example/a.html'] }
adopt: true
`,
    });
    const loaded = await loadManifests({ paths: [dir], env: {} });
    expect(loaded.diagnostics).toEqual([]);
    const text = renderManifests([{ objects: [...loaded.parsers, ...loaded.projects] }]);
    expect(text.match(/^adopt: true$/gm)).toHaveLength(2);
    const again = await project({ 'rendered.yaml': text });
    const reloaded = await loadManifests({ paths: [again], env: {} });
    expect(reloaded.diagnostics).toEqual([]);
    expect([...reloaded.parsers, ...reloaded.projects].map((o) => [o.address, o.adopt])).toEqual([
      ['parser.books', true],
      ['project.nightly', true],
    ]);
  });

  it('keeps the key order of a document where sorting would put an alias before its anchor', () => {
    // Sorting urls before expect wrote *u before &u: fmt and fmt --check stopped with an internal error.
    const aliased = `kind: Parser\nname: b\nexpect:\n  - url: &u https://books.example/b.html\n    result: { title: B }\nurls: [*u]\nfields:\n  title: { description: Title }\n`;
    const other = `urls: [https://books.example/a.html]\nkind: Parser\nname: a\nfields:\n  title: { description: Title }\n`;
    expect(formatManifestText(`${other}---\n${aliased}`)).toBe(
      `kind: Parser\nname: a\nurls: [ https://books.example/a.html ]\nfields:\n  title: { description: Title }\n---\n${aliased.replace('[*u]', '[ *u ]')}`,
    );
  });

  it('leaves a file whose alias names no anchor as it is, for validate to say where', () => {
    // The library cannot write such an alias: fmt and fmt --check stopped with an internal error.
    const text = `urls: [https://a.example/]\nkind: Parser\nname: a\nfields:\n  title: { description: *nope }\n`;
    expect(formatManifestText(text)).toBe(text);
    expect(formatManifestText(`kind: Parser\nname: b\n---\n${text}`)).toBe(
      `kind: Parser\nname: b\n---\n${text}`,
    );
  });

  it('formats templates and keeps x- keys first, where their anchors must stay', () => {
    const text = `urls: [https://a.example/]\nkind: ParserTemplate\nx-f: &f { description: A }\nname: p\nfields: { a: *f }\n`;
    expect(formatManifestText(text)).toBe(
      `x-f: &f { description: A }\nkind: ParserTemplate\nname: p\nurls: [ https://a.example/ ]\nfields: { a: *f }\n`,
    );
  });
});

describe('input files written by a template', () => {
  const FILES = {
    'scrapeform.yaml': `kind: Config
environments:
  prod:
    paths: [templates, teams]
    state: state/prod.json
`,
    'teams/p.yaml': 'kind: Project\nname: nightly\nextends: crawl\n',
    'templates/inputs/urls.txt': 'https://books.example/catalogue/page-1.html\n',
    'teams/urls.txt': 'https://books.example/catalogue/page-2.html\n',
  };
  const template = (file: string): string =>
    `kind: ProjectTemplate\nname: crawl\nprojectType: urls\nprojectInput: { type: list, file: ${file} }\n`;

  it('are read inside the path the template was read from, not the object', async () => {
    const dir = await project({ ...FILES, 'templates/t.yaml': template('inputs/urls.txt') });
    const loaded = await loadManifests({ paths: [dir], env: {}, environment: 'prod' });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.projects[0]?.projectInput).toEqual({
      type: 'list',
      list: ['https://books.example/catalogue/page-1.html'],
    });
  });

  it('must stay inside that path: another of the environment paths is outside it', async () => {
    const dir = await project({ ...FILES, 'templates/t.yaml': template('../teams/urls.txt') });
    const loaded = await loadManifests({ paths: [dir], env: {}, environment: 'prod' });
    expect(
      loaded.diagnostics.map(
        (d) => `${path.relative(dir, d.file)}:${d.line}:${d.column} ${d.path}: ${d.message}`,
      ),
    ).toEqual([
      'templates/t.yaml:4:35 projectInput.file: input file "../teams/urls.txt" resolves outside the folder being read (in project.nightly)',
    ]);
    expect(loaded.projects).toEqual([]);
  });
});
