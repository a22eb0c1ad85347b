import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadManifests } from '../../../src/manifest/load-manifests.js';
import type { LoadManifestsOptions } from '../../../src/manifest/load-manifests.js';
import { sameExampleUrls } from '../../../src/plan/example-urls.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-rules-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function write(relative: string, content: string | Buffer): Promise<string> {
  const file = path.join(dir, relative);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
  return file;
}

async function load(options: Partial<LoadManifestsOptions> = {}) {
  const loaded = await loadManifests({ paths: [dir], env: {}, ...options });
  return {
    ...loaded,
    found: loaded.diagnostics.map((d) => ({
      code: d.code,
      severity: d.severity,
      where: `${path.relative(dir, d.file)}:${d.line}:${d.column} ${d.path}`,
      message: d.message,
    })),
  };
}

const PROJECT = `kind: Project
name: crawl
projectType: urls
`;

describe('cross-key rules run even when the schema failed', () => {
  it('reports the schema error and every rule problem of the document at once', async () => {
    await write(
      'p.yaml',
      `kind: Parser
name: books
urls: [ftp://books.example/a.html]
fields:
  reviews.author: { description: Reviewer }
  title: { description: Title, renamed_from: title }
  reviews:
    description: Reviews
    type: number
    fields:
      author: { description: Reviewer }
`,
    );
    const { found, valid } = await load();
    expect(valid).toBe(false);
    expect(found.map((d) => `${d.where} ${d.code}`)).toEqual([
      'p.yaml:3:8 urls[0] manifest.invalid-value',
      'p.yaml:5:3 fields.reviews.author manifest.field-name',
      'p.yaml:6:46 fields.title.renamed_from manifest.rename',
      'p.yaml:9:11 fields.reviews.type manifest.parent-type',
    ]);
  });

  it('reports a list with both list and file next to an unknown key', async () => {
    await write('in.txt', 'https://a.example/1\n');
    await write(
      'p.yaml',
      `${PROJECT}projectInput: { type: list, list: [https://a.example/2], file: in.txt }\noutputFormat: CSV\n`,
    );
    const { found } = await load();
    expect(found.map((d) => `${d.where} ${d.code}`)).toEqual([
      'p.yaml:4:58 projectInput.file manifest.project-input',
      'p.yaml:5:1 outputFormat manifest.unknown-key',
    ]);
  });
});

describe('scheduledAt in the past', () => {
  const manifest = `${PROJECT}projectInput: { type: list, list: [https://a.example/1] }\nscheduledAt: 2026-01-31T06:00:00Z\n`;

  it('warns, located, with the now it is given, and stays valid', async () => {
    await write('p.yaml', manifest);
    const { found, valid, projects } = await load({ now: new Date('2026-02-01T00:00:00Z') });
    expect(valid).toBe(true);
    expect(projects).toHaveLength(1);
    expect(found).toEqual([
      {
        code: 'manifest.scheduled-at-past',
        severity: 'warning',
        where: 'p.yaml:5:14 scheduledAt',
        message: '2026-01-31T06:00:00Z is in the past',
      },
    ]);
  });

  it('says nothing about a time still to come', async () => {
    await write('p.yaml', manifest);
    const { found } = await load({ now: new Date('2026-01-31T05:59:59Z') });
    expect(found).toEqual([]);
  });
});

describe('a page written twice in urls', () => {
  const parser = (urls: string): string =>
    `kind: Parser\nname: books\nurls:${urls}\nfields:\n  title: { description: Book title }\n`;
  /** The warnings as validate prints them, the folder left out of every place (the earlier entry's too). */
  const warnings = (found: { code: string; where: string; message: string }[]): string[] =>
    found.map((d) => `${d.where}: ${d.code}: ${d.message.replaceAll(`${dir}${path.sep}`, '')}`);

  it('warns at the repeated entry, naming the earlier one, and stays valid: plan reads them as one page', async () => {
    await write(
      'p.yaml',
      parser(
        '\n  - https://books.example/a.html\n  - https://books.example/b/\n  - https://BOOKS.example:443/a.html#reviews',
      ),
    );
    const { found, valid, parsers, diagnostics } = await load();
    expect(valid).toBe(true);
    expect(parsers.map((p) => p.urls)).toEqual([
      [
        'https://books.example/a.html',
        'https://books.example/b/',
        'https://BOOKS.example:443/a.html#reviews',
      ],
    ]);
    expect(found.map((d) => d.severity)).toEqual(['warning']);
    expect(warnings(found)).toEqual([
      'p.yaml:6:5 urls[2]: manifest.repeated-url: the same example page as urls[0] at p.yaml:4:5 (https://books.example/a.html): plan counts them as one page',
    ]);
    expect(diagnostics.map((d) => d.hint)).toEqual([
      'remove the repeated entry: plan reads the same pages without it, so removing it changes nothing live',
    ]);
    // As the planner compares them: the list without the copy is the same pages.
    const [urls = []] = parsers.map((p) => p.urls);
    expect(sameExampleUrls(urls, urls.slice(0, 2))).toBe(true);
  });

  it('in a flow list, spelled alike or with a trailing slash; each copy names the first entry', async () => {
    await write(
      'p.yaml',
      parser(' [https://books.example/b, https://books.example/b/, https://books.example/b]'),
    );
    expect(warnings((await load()).found)).toEqual([
      'p.yaml:3:33 urls[1]: manifest.repeated-url: the same example page as urls[0] at p.yaml:3:8 (https://books.example/b): plan counts them as one page',
      'p.yaml:3:59 urls[2]: manifest.repeated-url: the same example page as urls[0] at p.yaml:3:8: plan counts them as one page',
    ]);
  });

  it('says nothing of pages the planner tells apart', async () => {
    await write(
      'p.yaml',
      parser(
        ' [https://books.example/a.html, https://books.example/a.html?page=2, http://books.example/a.html]',
      ),
    );
    expect((await load()).found).toEqual([]);
  });

  it('names the object a for_each element made', async () => {
    await write(
      'p.yaml',
      [
        'kind: Parser',
        'name: books-${each.lang}',
        'for_each:',
        '  - { lang: en, second: https://books.example/en/b.html }',
        '  - { lang: de, second: https://books.example/de/a.html }',
        'urls: ["https://books.example/${each.lang}/a.html", "${each.second}"]',
        '',
      ].join('\n'),
    );
    const { found, valid, parsers } = await load();
    expect([valid, parsers.map((p) => p.address)]).toEqual([true, ['parser.books-en', 'parser.books-de']]);
    expect(warnings(found)).toEqual([
      'p.yaml:6:53 urls[1]: manifest.repeated-url: the same example page as urls[0] at p.yaml:6:8: plan counts them as one page (in parser.books-de: for_each[1] at p.yaml:5:5)',
    ]);
  });
});

describe('nested defaults', () => {
  const parser = (name: string): string =>
    `kind: Parser\nname: ${name}\nurls: [https://books.example/a.html]\n`;

  it.each([
    [{ A: 'a', B: 'b' }, 'a'],
    [{ B: 'b' }, 'b'],
    [{}, 'x'],
    [{ A: '' }, 'x'],
  ])('${A:-${B:-x}} with %o is %s', async (env, expected) => {
    await write('p.yaml', parser('${A:-${B:-x}}'));
    const { parsers, found } = await load({ env });
    expect(found).toEqual([]);
    expect(parsers[0]?.name).toBe(expected);
  });

  it('expands a default only when it is needed, so an unset inner variable is no error when A is set', async () => {
    await write('p.yaml', parser('${A:-${B}}'));
    const { parsers, found } = await load({ env: { A: 'a' } });
    expect(found).toEqual([]);
    expect(parsers[0]?.name).toBe('a');
  });

  it('refuses an unclosed nested reference instead of passing it through', async () => {
    await write('p.yaml', parser('"${A:-${B}"'));
    const { found, parsers } = await load();
    expect(parsers).toEqual([]);
    expect(found).toEqual([
      {
        code: 'manifest.env-syntax',
        severity: 'error',
        where: 'p.yaml:2:7 name',
        message: 'malformed variable reference in "${A:-${B}"',
      },
    ]);
  });
});

describe('input files', () => {
  const manifest = `${PROJECT}projectInput:\n  type: list\n  file: inputs.txt\n`;
  const expectInputError = async (message: string, code = 'manifest.project-input') => {
    const { found, projects } = await load();
    expect(projects).toEqual([]);
    expect(found).toEqual([{ code, severity: 'error', where: 'p.yaml:6:9 projectInput.file', message }]);
  };

  it('refuses a symlink that leads out of the folder being read', async () => {
    const outside = await mkdtemp(path.join(tmpdir(), 'scrapeform-outside-'));
    try {
      await writeFile(path.join(outside, 'secret.txt'), 'https://a.example/secret\n');
      await write('p.yaml', manifest);
      await symlink(path.join(outside, 'secret.txt'), path.join(dir, 'inputs.txt'));
      await expectInputError('input file "inputs.txt" resolves outside the folder being read');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('follows a symlink that stays inside the folder', async () => {
    await write('lists/real.txt', 'https://a.example/1\n');
    await write('p.yaml', manifest);
    await symlink(path.join(dir, 'lists/real.txt'), path.join(dir, 'inputs.txt'));
    const { projects, found } = await load();
    expect(found).toEqual([]);
    expect(projects[0]?.projectInput).toEqual({ type: 'list', list: ['https://a.example/1'] });
  });

  it('refuses a file over 1 MiB', async () => {
    await write('p.yaml', manifest);
    await write('inputs.txt', `${'https://a.example/1\n'.repeat(52_429)}`);
    await expectInputError('input file "inputs.txt" is 1048580 bytes; the limit is 1048576 (1 MiB)');
  });

  it('refuses a binary file and says where the NUL is', async () => {
    await write('p.yaml', manifest);
    await write('inputs.txt', Buffer.from('https://a.example/1\nab\u0000c\n'));
    await expectInputError(
      'input file "inputs.txt" is not text: the file holds a NUL character: it is binary, not text (line 2, column 3)',
    );
  });

  it('refuses a file that is not UTF-8', async () => {
    await write('p.yaml', manifest);
    await write('inputs.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    await expectInputError(
      'input file "inputs.txt" is not text: the file is not valid UTF-8: byte 0xE9 here (Latin-1 or Windows-1252, perhaps) (line 1, column 4)',
    );
  });

  it('refuses a URL with credentials in the file, naming the line but not the secret', async () => {
    await write('p.yaml', manifest);
    await write('inputs.txt', '# inputs\nhttps://a.example/1\nhttps://me:hunter2@a.example/2\n');
    const { found } = await load();
    expect(found.map((d) => d.message)).toEqual([
      'input file "inputs.txt", line 3: a URL must not hold a user name or password (user:secret@): they would be shown in plans and stored in state',
    ]);
    expect(JSON.stringify(found)).not.toContain('hunter2');
  });
});

describe('YAML that is not scrapeform', () => {
  const compose = 'services:\n  web:\n    image: nginx\n';

  it('skips another tool’s file with a warning that says how to exclude it', async () => {
    await write('docker-compose.yml', compose);
    await write('.github-like/workflow.yaml', 'name: ci\non: push\njobs: {}\n');
    await write('ci/workflow.yaml', 'name: ci\non: push\njobs: {}\n');
    const { found, valid } = await load();
    expect(valid).toBe(true);
    expect(found).toEqual(
      ['ci/workflow.yaml', 'docker-compose.yml'].map((file) => ({
        code: 'manifest.not-scrapeform',
        severity: 'warning',
        where: `${file}:1:1 `,
        message: 'skipped: not a scrapeform manifest (no kind, and none of the keys of a Parser or Project)',
      })),
    );
  });

  it('keeps an unknown kind an error', async () => {
    await write('deploy.yaml', 'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: web }\n');
    const { found, valid } = await load();
    expect(valid).toBe(false);
    expect(found.map((d) => `${d.where} ${d.code}`)).toEqual(['deploy.yaml:2:7 kind manifest.unknown-kind']);
  });

  it('reports `__proto__` anywhere, not only among fields', async () => {
    await write('p.yaml', `${PROJECT}projectInput: { type: list, list: [x] }\napiParams:\n  __proto__: 1\n`);
    const { found } = await load();
    expect(found.map((d) => `${d.where} ${d.code}`)).toEqual([
      'p.yaml:6:3 apiParams.__proto__ manifest.reserved-key',
    ]);
  });
});

describe('.scrapeformignore', () => {
  it('excludes what it lists (gitignore syntax), deeper files refining outer ones', async () => {
    await write('.scrapeformignore', '# not ours\ndocker-compose.yml\nvendor/\n*.draft.yaml\n');
    await write('docker-compose.yml', 'services: {}\n');
    await write('vendor/x.yaml', 'services: {}\n');
    await write('a.draft.yaml', 'services: {}\n');
    await write('nested/.scrapeformignore', '!keep.draft.yaml\n');
    await write('nested/keep.draft.yaml', 'kind: Parser\nname: kept\nurls: [https://a.example/]\n');
    await write('nested/other.draft.yaml', 'services: {}\n');
    await write('p.yaml', 'kind: Parser\nname: books\nurls: [https://a.example/]\n');
    const { found, files, parsers } = await load();
    expect(found).toEqual([]);
    expect(files.map((f) => path.relative(dir, f))).toEqual([
      path.join('nested', 'keep.draft.yaml'),
      'p.yaml',
    ]);
    expect(parsers.map((p) => p.name).sort()).toEqual(['books', 'kept']);
  });

  it('does not stop a file named on the command line', async () => {
    await write('.scrapeformignore', 'p.yaml\n');
    const file = await write('p.yaml', 'kind: Parser\nname: books\nurls: [https://a.example/]\n');
    expect((await load()).files).toEqual([]);
    expect((await load({ paths: [file] })).parsers.map((p) => p.name)).toEqual(['books']);
  });
});
