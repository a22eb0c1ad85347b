import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { printable, unicodeEscape } from '../../src/invisible-characters.js';
import { loadManifests } from '../../src/manifest/load-manifests.js';
import { renderManifests } from '../../src/manifest/render-manifests.js';
import { tempProjects } from '../helpers/temp-projects.js';

// Review: four parsers named books, books + U+034F, books + U+3164 and books + a tag character printed as four
// identical `parser.books` lines in the plan: each showed as nothing and was let through.
const project = tempProjects('scrapeform-invisible-');

const SHOWN_AS_NOTHING: [string, string][] = [
  ['\u034f', '\\u034f'],
  ['\u115f', '\\u115f'],
  ['\u1160', '\\u1160'],
  ['\u3164', '\\u3164'],
  ['\uffa0', '\\uffa0'],
  ['\ufe00', '\\ufe00'],
  ['\ufe0f', '\\ufe0f'],
  ['\u{e0041}', '\\udb40\\udc41'],
  ['\u{e007f}', '\\udb40\\udc7f'],
];

describe('characters that show as nothing', () => {
  it.each(SHOWN_AS_NOTHING)('%j is printed as its escape %s', (character, escape) => {
    expect(printable(`books${character}`)).toBe(`books${escape}`);
    expect(unicodeEscape(character)).toBe(escape);
  });

  // Review: escaped as \\U000e0067, a subdivision flag (🏴 and tag characters) made every --json output and saved
  // plan holding it unreadable JSON.
  it('escapes a tag character so that JSON reads it back: printed JSON and saved plans stay valid', () => {
    const flag = '🏴\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}';
    const printed = printable(JSON.stringify({ d: `x${flag}` }));
    expect(JSON.parse(printed)).toEqual({ d: `x${flag}` });
    expect(printed).not.toMatch(/\u{e0067}/u);
  });

  it('leaves shown text alone, astral characters that show (an emoji) included', () => {
    for (const text of ['books', 'Bücher', '本', 'books 📚']) expect(printable(text)).toBe(text);
  });

  it('render writes them as escapes YAML reads back as the same name', async () => {
    const dir = await project({
      'a.yaml': `kind: Parser\nname: "books\\u3164\\U000E0041"\nurls: ['https://books.example/a.html']\nfields:\n  title: { description: Title }\n`,
    });
    const loaded = await loadManifests({ paths: [dir], env: {} });
    expect(loaded.diagnostics).toEqual([]);
    const text = renderManifests([{ objects: loaded.parsers }]);
    expect(text).toContain('name: "books\\u3164\\udb40\\udc41"');
    expect(text).not.toMatch(/[\u3164]|\u{e0041}/u);
    expect(parseAllDocuments(text)[0]?.toJS()).toMatchObject({ name: 'books\u3164\u{e0041}' });
  });
});
