import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadManifests } from '../../../src/manifest/load-manifests.js';

const dirs: string[] = [];

/** Loads one manifest file holding these documents; returns its folder and what was loaded. */
async function load(text: string) {
  const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-moved-'));
  dirs.push(dir);
  await writeFile(path.join(dir, 'm.yaml'), text);
  const loaded = await loadManifests({ paths: [dir], env: {} });
  return {
    loaded,
    problems: loaded.diagnostics.map((d) => [
      d.code,
      `${path.basename(d.file)}:${d.line}:${d.column}`,
      d.message,
      d.hint,
    ]),
  };
}

afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const parser = (name: string, moved = ''): string =>
  `kind: Parser\nname: ${name}\nurls: [https://books.example/a.html]\n${moved}`;

describe('moved hints in manifests', () => {
  it('are read with their place; the same hint from every for_each instance counts once', async () => {
    const { loaded } = await load(`kind: Parser
name: books-\${each.c}
for_each: [{ c: de }, { c: gb }]
urls: [https://books.example/a.html]
moved:
  - { from: parser.books-uk, to: parser.books-gb }
  - { from: 'parser.books-\${each.c}', to: 'parser.books-\${each.c}' }
`);
    expect(loaded.diagnostics).toEqual([]);
    expect(
      loaded.parsers.map((p) => p.moved?.map((m) => `${m.from}>${m.to}@${m.place.line}:${m.place.column}`)),
    ).toEqual([
      ['parser.books-uk>parser.books-gb@6:5', 'parser.books-de>parser.books-de@7:5'],
      ['parser.books-uk>parser.books-gb@6:5', 'parser.books-gb>parser.books-gb@7:5'],
    ]);
  });

  it('a `to` naming no declared object is an error at the hint, with the nearest declared address', async () => {
    const { problems, loaded } = await load(
      parser('books-gb', 'moved:\n  - { from: parser.books-uk, to: parser.books-bg }\n'),
    );
    expect(loaded.valid).toBe(false);
    expect(problems).toEqual([
      [
        'manifest.moved',
        'm.yaml:5:5',
        'to parser.books-bg names no declared object',
        'did you mean parser.books-gb?',
      ],
    ]);
  });

  it('two moves to one address are an error at each', async () => {
    const { problems } = await load(
      parser(
        'books-gb',
        'moved:\n  - { from: parser.books-uk, to: parser.books-gb }\n  - { from: parser.books-en, to: parser.books-gb }\n',
      ),
    );
    const message =
      '2 moves lead to parser.books-gb (from parser.books-uk, parser.books-en); one object can take the state of one other only';
    expect(problems).toEqual([
      ['manifest.moved', 'm.yaml:5:5', message, undefined],
      ['manifest.moved', 'm.yaml:6:5', message, undefined],
    ]);
  });

  it('a chain of moves (an object renamed twice) is no error; a chain that ends nowhere declared is', async () => {
    const chain = 'moved:\n  - { from: parser.a, to: parser.b }\n  - { from: parser.b, to: parser.c }\n';
    expect((await load(parser('c', chain))).problems).toEqual([]);
    const { problems } = await load(parser('d', chain));
    expect(problems).toEqual([
      ['manifest.moved', 'm.yaml:6:5', 'to parser.c names no declared object', 'did you mean parser.d?'],
    ]);
  });

  it('a cycle of moves is one error naming the cycle', async () => {
    const { problems } = await load(
      `${parser('a', 'moved:\n  - { from: parser.a, to: parser.b }\n')}---\n${parser('b', 'moved:\n  - { from: parser.b, to: parser.a }\n')}`,
    );
    expect(problems).toEqual([
      ['manifest.moved', 'm.yaml:5:5', 'the moves make a cycle: parser.a -> parser.b -> parser.a', undefined],
    ]);
  });

  it('a `from` that a manifest still declares, and an address of the other kind, are errors', async () => {
    const { problems } = await load(
      `${parser('a', 'moved:\n  - { from: parser.b, to: parser.a }\n  - { from: project.x, to: project.y }\n')}---\n${parser('b')}`,
    );
    expect(problems).toEqual([
      [
        'manifest.moved',
        'm.yaml:5:5',
        `from parser.b is still declared (${path.join(dirs[0] ?? '', 'm.yaml')}:8): an object cannot be moved away and kept`,
        'remove the hint, or rename the object declared as parser.b',
      ],
      [
        'manifest.moved',
        'm.yaml:6:5',
        'project.x is not a parser address; a Parser manifest moves parsers',
        'write parser.NAME',
      ],
    ]);
  });

  it('an address that is not one is a schema error at its value', async () => {
    const { problems } = await load(parser('a', 'moved:\n  - { from: books, to: parser.a }\n'));
    expect(problems.map((p) => [p[1], p[2]])).toEqual([
      ['m.yaml:5:13', 'must be an address: parser.NAME or project.NAME'],
    ]);
  });
});
