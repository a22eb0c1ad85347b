import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectEnvironment } from '../../../src/manifest/project-file.js';

/** Paths named from outside a project (the tests run in the repository, which has no scrapeform.yaml). */
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-enclosing-'));
  const files: Record<string, string> = {
    'shop/scrapeform.yaml': 'kind: Config\nenvironments:\n  staging:\n    state: .scrapeform/staging.json\n',
    'shop/.scrapeformignore': 'drafts/\n',
    'shop/teams/books/books.yaml': 'kind: Parser\n',
    'shop/drafts/old.yaml': 'kind: Parser\n',
    'shop/.hidden/x.yaml': 'kind: Parser\n',
    'shop/other/scrapeform.yml': 'kind: Config\n',
    'shop/other/sub/y.yaml': 'kind: Parser\n',
  };
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function codes(paths: string[]): { code: string; file: string; message: string }[] {
  return selectEnvironment({ paths, env: {}, environment: 'staging' }).diagnostics.map((d) => ({
    code: d.code,
    file: d.file,
    message: d.message,
  }));
}

describe('a path inside a project whose file the run does not read', () => {
  it('a folder or a file under the project: refused at the nearest project file, once', () => {
    const folder = path.join(dir, 'shop/teams');
    const file = path.join(dir, 'shop/teams/books/books.yaml');
    const found = codes([folder, file]);
    expect(found).toEqual([
      {
        code: 'config.parent-project',
        file: path.relative(process.cwd(), path.join(dir, 'shop/scrapeform.yaml')),
        message: expect.stringContaining(`${folder} is inside the project of `) as string,
      },
    ]);
  });

  it('the nearest project above is the one named', () => {
    const [found] = codes([path.join(dir, 'shop/other/sub')]);
    expect(found?.file).toBe(path.relative(process.cwd(), path.join(dir, 'shop/other/scrapeform.yml')));
  });

  it.each(['shop/drafts', 'shop/.hidden', 'shop/drafts/old.yaml'])(
    '%s, which the project never reads, is not part of it',
    (given) => {
      expect(codes([path.join(dir, given)]).map((d) => d.code)).toEqual(['environment.no-project']);
    },
  );

  it('the project folder itself, named, is read as before', () => {
    expect(codes([path.join(dir, 'shop')])).toEqual([]);
  });
});
